package count

import (
	"math"
	"slices"
)

// Gate makes a Model a gated count: where the fit's feature On is at most Upto (at least,
// with Above), the count is the share feature Use gives, as it is — a rule whose share
// responds to the share of anomalies where its evidence holds; elsewhere it is the
// prior, e^Intercept. Bands[1] is the interval of the first case, Bands[0] of the
// second (the prior's).
type Gate struct {
	Use   string  `json:"use"`
	On    string  `json:"on"`
	Upto  float64 `json:"upto"`
	Above bool    `json:"above,omitempty"`
}

// open says whether the gate lets the rule count for feature value v.
func (g *Gate) open(v float64) bool {
	if g.Above {
		return v >= g.Upto
	}
	return v <= g.Upto
}

// useFeatures are the features a gate may count by: shares of rules.
var useFeatures = []string{"kmeans_final", "kmeans_screen", "larger_kmeans", "kmeans_logfinal", "mad_final", "iqr_final"}

// GatedLn is a gated model's ln(share) for features f (in the order of names), and
// whether the gate was open.
func (m *Model) GatedLn(f []float64, names []string) (float64, bool) {
	if m.Gate == nil {
		return m.Clip(m.Intercept), false
	}
	on := f[slices.Index(names, m.Gate.On)]
	if !m.Gate.open(on) {
		return m.Clip(m.Intercept), false
	}
	return m.Clip(f[slices.Index(names, m.Gate.Use)]), true
}

// GatedEstimate is a gated model's count for features f (the model's order): the
// rule's share and Bands[1] where the gate is open, else the prior and Bands[0].
func (m *Model) GatedEstimate(f []float64) Estimate {
	ln, open := m.GatedLn(f, m.Features)
	b := m.Bands[0]
	if open {
		b = m.Bands[1]
	}
	share := math.Exp(ln)
	return Estimate{Share: share, Low: min(share*math.Exp(b.Low), 1), High: min(share*math.Exp(b.High), 1), Reliable: b.Reliable}
}

// RuleFeatures are the features that are shares of a rule (a gate's Use, a rule count's
// one), in the order they are tried.
func RuleFeatures() []string { return slices.Clone(useFeatures) }

package count

import (
	"cmp"
	"fmt"
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

// LearnGated learns a gated count from samples whose Features are in the order of
// o.Features: the prior is the group-weighted median of ln(true share); the gate (rule,
// feature, cut and side, or none) is the one of least group-weighted mean
// |ln(estimate/true)| on the samples; each case's interval comes from the residuals of
// the other groups' samples under gates learned without them (of their original tables
// only, with o.Originals).
func LearnGated(samples []Sample, o LearnOptions) (*Model, error) {
	o = o.defaults()
	groups := groupsOf(samples)
	if len(groups) < 3 || len(samples) < 10 {
		return nil, fmt.Errorf("count: learn a gate from %d samples of %d groups: too few", len(samples), len(groups))
	}
	m := fitGate(samples, o)
	size := calibrationSizes(samples, o)
	var prior, rule []residual
	for _, g := range groups {
		tr, te := split(samples, g)
		mg := fitGate(tr, o)
		for _, s := range te {
			if !o.calibrates(s) {
				continue
			}
			ln, open := mg.gatedLn(s.Features, o.Features)
			r := residual{r: math.Log(s.TrueShare) - ln, w: 1 / float64(size[s.Group])}
			if open {
				rule = append(rule, r)
			} else {
				prior = append(prior, r)
			}
		}
	}
	m.Bands = []Band{caseBand(prior, 0), caseBand(rule, 1)}
	if len(rule) == 0 {
		m.Bands[1] = m.Bands[0]
	}
	if len(prior) == 0 {
		m.Bands[0] = m.Bands[1]
	}
	return m, m.Validate()
}

// caseBand is one case's interval: the weighted 10th and 90th percentiles of its
// residuals (a wide one where there are none).
func caseBand(res []residual, upto float64) Band {
	if len(res) == 0 {
		return Band{Upto: upto, Low: -3, High: 3}
	}
	lo, hi := wquantile(res, 0.1), wquantile(res, 0.9)
	return Band{Upto: upto, Low: lo, High: hi, Reliable: math.Exp(hi-lo) <= UnreliableWidth}
}

// gatedLn is a gated model's ln(share) for features f (in the order of names), and
// whether the gate was open.
func (m *Model) gatedLn(f []float64, names []string) (float64, bool) {
	if m.Gate == nil {
		return m.clip(m.Intercept), false
	}
	on := f[slices.Index(names, m.Gate.On)]
	if !m.Gate.open(on) {
		return m.clip(m.Intercept), false
	}
	return m.clip(f[slices.Index(names, m.Gate.Use)]), true
}

// fitGate chooses the prior and the gate on samples.
func fitGate(samples []Sample, o LearnOptions) *Model {
	y, w := lnTruth(samples)
	m := blankModel(o)
	m.Intercept = WeightedQuantile(y, w, 0.5)
	loss := func(pred func(i int) float64) float64 {
		var e float64
		for i := range samples {
			e += w[i] * math.Abs(m.clip(pred(i))-y[i])
		}
		return e
	}
	best := loss(func(int) float64 { return m.Intercept })
	for _, use := range useFeatures {
		u := slices.Index(o.Features, use)
		if u < 0 {
			continue
		}
		for j, on := range o.Features {
			vals := make([]float64, len(samples))
			for i, s := range samples {
				vals[i] = s.Features[j]
			}
			for _, q := range []float64{0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95} {
				cut := quantileOf(vals, q)
				for _, above := range []bool{false, true} {
					g := Gate{Use: use, On: on, Upto: cut, Above: above}
					e := loss(func(i int) float64 {
						if g.open(vals[i]) {
							return samples[i].Features[u]
						}
						return m.Intercept
					})
					if e < best-1e-12 {
						best = e
						gg := g
						m.Gate = &gg
					}
				}
			}
		}
	}
	return m
}

// lnTruth is each sample's ln(true share) and its weight, every group's samples
// weighing 1 in all.
func lnTruth(samples []Sample) (y, w []float64) {
	size := map[string]int{}
	for _, s := range samples {
		size[s.Group]++
	}
	y, w = make([]float64, len(samples)), make([]float64, len(samples))
	for i, s := range samples {
		y[i], w[i] = math.Log(s.TrueShare), 1/float64(size[s.Group])
	}
	return y, w
}

// blankModel is a model of o's features, every coefficient and the intercept 0, the
// features neither centred nor scaled: a gate or a rule count fills it in.
func blankModel(o LearnOptions) *Model {
	p := len(o.Features)
	return &Model{
		Version: o.Version, Trained: o.Trained, Features: o.Features,
		Mean: make([]float64, p), Scale: ones(p), Coef: make([]float64, p),
		MinShare: o.MinShare, MaxShare: o.MaxShare, Reliability: o.Reliability,
	}
}

func ones(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = 1
	}
	return out
}

// WeightedQuantile is the q-quantile of the values y with weights w: the smallest y
// at which the weights of the values up to it reach q of their sum.
func WeightedQuantile(y, w []float64, q float64) float64 {
	idx := make([]int, len(y))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(y[a], y[b]) })
	var W float64
	for _, i := range idx {
		W += w[i]
	}
	acc := 0.0
	for _, i := range idx {
		if acc += w[i]; acc >= q*W {
			return y[i]
		}
	}
	return y[idx[len(idx)-1]]
}

func quantileOf(v []float64, q float64) float64 {
	x := slices.Clone(v)
	slices.Sort(x)
	return x[min(len(x)-1, int(q*float64(len(x))))]
}

// HeldoutGated is each sample's estimate from a gated count learned without its group.
func HeldoutGated(samples []Sample, o LearnOptions) ([]Estimate, error) {
	o = o.defaults()
	out := make([]Estimate, len(samples))
	for _, g := range groupsOf(samples) {
		tr, _ := split(samples, g)
		m, err := LearnGated(tr, o)
		if err != nil {
			return nil, fmt.Errorf("count: without group %s: %w", g, err)
		}
		for i, s := range samples {
			if s.Group == g {
				out[i] = m.estimateGated(s.Features)
			}
		}
	}
	return out, nil
}

func (m *Model) estimateGated(f []float64) Estimate {
	ln, open := m.gatedLn(f, m.Features)
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

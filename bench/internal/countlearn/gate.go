package countlearn

import (
	"github.com/udocc/udocc/internal/count"

	"cmp"
	"fmt"
	"math"
	"slices"
)

// LearnGated learns a gated count from samples whose Features are in the order of
// o.Features: the prior is the group-weighted median of ln(true share); the gate (rule,
// agreement feature, quartile cut and side, or none) is the one of least
// leave-one-group-out error within the samples (fitGate); each case's interval comes from
// the residuals of the other groups' samples under gates learned without them (of their
// original tables only, with o.Originals).
func LearnGated(samples []Sample, o LearnOptions) (*count.Model, error) {
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
			ln, open := mg.GatedLn(s.Features, o.Features)
			r := residual{r: math.Log(s.TrueShare) - ln, w: 1 / float64(size[s.Group]), group: s.Group}
			if open {
				rule = append(rule, r)
			} else {
				prior = append(prior, r)
			}
		}
	}
	m.Bands = []count.Band{caseBand(prior, 0), caseBand(rule, 1)}
	if len(rule) == 0 {
		m.Bands[1] = m.Bands[0]
	}
	if len(prior) == 0 {
		m.Bands[0] = m.Bands[1]
	}
	return m, m.Validate()
}

// MinBandGroups is the fewest source groups whose held-out residuals a case's interval
// must come from to be called reliable: its 10th and 90th percentiles cannot be read
// from fewer. (The gate of version 3 opens, held out, on 8 fits of 4 groups, and its
// narrow interval held the truth on 4 of them.)
const MinBandGroups = 10

// caseBand is one case's interval: the weighted 10th and 90th percentiles of its
// residuals (a wide one where there are none), reliable where it is narrow and comes
// from at least MinBandGroups groups.
func caseBand(res []residual, upto float64) count.Band {
	if len(res) == 0 {
		return count.Band{Upto: upto, Low: -3, High: 3}
	}
	groups := map[string]bool{}
	for _, r := range res {
		groups[r.group] = true
	}
	lo, hi := wquantile(res, 0.1), wquantile(res, 0.9)
	return count.Band{Upto: upto, Low: lo, High: hi, Reliable: math.Exp(hi-lo) <= count.UnreliableWidth && len(groups) >= MinBandGroups}
}

// gateOn are the features a gate may open on: the agreements between two views of a fit's
// rows (the screening and the final fit, the members, each member's distance and
// reconstruction), the evidence of whether its scores separate anything. gateCuts are
// the quantiles of their values, over the samples learned from, a gate may cut at.
var (
	gateOn   = []string{"agree_screen_final", "agree_members", "agree_dist_rec"}
	gateCuts = []float64{0.25, 0.5, 0.75}
)

// gateSpec is one candidate of a gated count: count by rule use where feature on is at
// most (at least, with above) its q-quantile over the samples; use < 0 is no gate (the
// prior everywhere).
type gateSpec struct {
	use, on int
	q       float64
	above   bool
}

// gateSpecs are the candidates among o's features: no gate, then every rule of
// count.RuleFeatures() by every feature of gateOn at every cut of gateCuts, on either side.
func gateSpecs(o LearnOptions) []gateSpec {
	specs := []gateSpec{{use: -1}}
	for _, use := range count.RuleFeatures() {
		u := slices.Index(o.Features, use)
		if u < 0 {
			continue
		}
		for _, on := range gateOn {
			j := slices.Index(o.Features, on)
			if j < 0 {
				continue
			}
			for _, q := range gateCuts {
				specs = append(specs, gateSpec{u, j, q, false}, gateSpec{u, j, q, true})
			}
		}
	}
	return specs
}

// gate is spec's gate on the samples of cuts (its cut the quantile of their values); nil
// for none.
func (sp gateSpec) gate(cuts *cutter, names []string) *count.Gate {
	if sp.use < 0 {
		return nil
	}
	return &count.Gate{Use: names[sp.use], On: names[sp.on], Upto: cuts.cut(sp.on, sp.q), Above: sp.above}
}

// cutter gives the quantiles of the samples' features, each feature's values sorted once
// however many candidates cut it.
type cutter struct {
	samples []Sample
	sorted  map[int][]float64
}

func newCutter(samples []Sample) *cutter { return &cutter{samples, map[int][]float64{}} }

// cut is the q-quantile of feature j over the samples (quantileSorted).
func (c *cutter) cut(j int, q float64) float64 {
	v, ok := c.sorted[j]
	if !ok {
		v = make([]float64, len(c.samples))
		for i, s := range c.samples {
			v[i] = s.Features[j]
		}
		slices.Sort(v)
		c.sorted[j] = v
	}
	return quantileSorted(v, q)
}

// fitGate chooses the prior and the gate on samples. The prior is the group-weighted
// median of ln(true share). The gate is the candidate of gateSpecs of least
// leave-one-group-out error within samples — each group's mean |ln(estimate/true)|
// under the prior and the cut learned without it, every group weighing alike — then
// cut on every sample. Choosing it by its error on the samples themselves, among
// thousands of cuts of every feature, was measured to overfit: held out by group it
// lost 0.12 in mean |ln| to this choice on the corpus (bench/notes/threshold.md A.0). With
// fewer than three groups there is no gate.
func fitGate(samples []Sample, o LearnOptions) *count.Model {
	y, w := lnTruth(samples)
	m := blankModel(o)
	m.Intercept = WeightedQuantile(y, w, 0.5)
	groups := groupsOf(samples)
	if len(groups) < 3 {
		return m
	}
	specs := gateSpecs(o)
	loss := make([]float64, len(specs))
	for _, g := range groups {
		tr, te := split(samples, g)
		ytr, wtr := lnTruth(tr)
		yte, _ := lnTruth(te)
		prior := WeightedQuantile(ytr, wtr, 0.5)
		cuts := newCutter(tr)
		for k, sp := range specs {
			gm := &count.Model{Intercept: prior, Gate: sp.gate(cuts, o.Features), MinShare: o.MinShare, MaxShare: o.MaxShare}
			e := 0.0
			for i, s := range te {
				ln, _ := gm.GatedLn(s.Features, o.Features)
				e += math.Abs(ln - yte[i])
			}
			loss[k] += e / float64(len(te))
		}
	}
	best := 0
	for k := range specs {
		if loss[k] < loss[best]-1e-12 {
			best = k
		}
	}
	m.Gate = specs[best].gate(newCutter(samples), o.Features)
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
func blankModel(o LearnOptions) *count.Model {
	p := len(o.Features)
	return &count.Model{
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

// quantileSorted is the q-quantile of the sorted values x.
func quantileSorted(x []float64, q float64) float64 {
	return x[min(len(x)-1, int(q*float64(len(x))))]
}

// HeldoutGated is each sample's estimate from a gated count learned without its group.
func HeldoutGated(samples []Sample, o LearnOptions) ([]count.Estimate, error) {
	return heldoutOn(samples, samples, o, LearnGated, true)
}

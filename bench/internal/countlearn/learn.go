package countlearn

import (
	"github.com/udocc/udocc/internal/count"

	"fmt"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// Sample is one fit of the corpus: its features (in the order of the learner's names),
// its reliability feature, its source group and its true share.
type Sample struct {
	Group       string
	Features    []float64
	Reliability float64
	TrueShare   float64
	// Copy marks a resampled copy of a table (its anomalies subsampled to another share):
	// material for the count's response, not a table as users bring them.
	Copy bool
}

// Lambdas are the ridge penalties the learner chooses among, leave-one-group-out.
var Lambdas = []float64{0.01, 0.03, 0.1, 0.3, 1, 3, 10, 100}

// LearnOptions are the learner's settings.
type LearnOptions struct {
	Features    []string // the model's inputs
	Reliability string   // the feature that orders the interval's bands
	Bands       int      // bands of equal weight (0: 3)
	MinShare    float64  // 0: 0.001
	MaxShare    float64  // 0: 0.30
	Trained     string
	Version     int
	// Originals: a count's intervals come from the held-out residuals of the
	// corpus's original tables only, whose shares are those of the tables users bring, and
	// not from those of the resampled copies too, whose shares are drawn log-uniformly over
	// 0.2-40 % by design. The prior and the gate are still learned on every sample (a
	// prior from the original tables alone, 5.0 % where it is 4.15 %, was measured 0.14
	// worse in held-out mean |ln|: bench/notes/threshold.md A.0).
	Originals bool
	// chooseReliability: the reliability feature is chosen among Features (Learn) and
	// read from there; Reliability only names the default.
	chooseReliability bool
}

// calibrates says whether a sample's held-out residual goes into a count's intervals:
// every sample's, or with o.Originals an original table's only.
func (o LearnOptions) calibrates(s Sample) bool { return !o.Originals || !s.Copy }

// calibrationSizes is each group's number of the samples the intervals are read from
// (calibrates), by which its residuals are weighed: every group weighs alike.
func calibrationSizes(samples []Sample, o LearnOptions) map[string]int {
	size := map[string]int{}
	for _, s := range samples {
		if o.calibrates(s) {
			size[s.Group]++
		}
	}
	return size
}

// ChooseReliability returns o with the reliability feature chosen among its features by
// the narrowest held-out intervals.
func (o LearnOptions) ChooseReliability() LearnOptions {
	o.chooseReliability = true
	return o
}

// Learn fits a Model on every sample, each source group weighing as much as any other
// (a group's samples share weight 1): the ridge penalty is chosen by leave-one-group-out
// error, and the interval's bands come from the leave-one-group-out residuals.
// Heldout returns, for every sample, the estimate of a model learned without its group
// (penalty and bands chosen without it too): the figures a table the model never saw
// would get.
func Learn(samples []Sample, o LearnOptions) (*count.Model, error) {
	o = o.defaults()
	if len(samples) < 10 {
		return nil, fmt.Errorf("count: learn from %d samples: too few", len(samples))
	}
	groups := groupsOf(samples)
	if len(groups) < 3 {
		return nil, fmt.Errorf("count: learn from %d groups: too few", len(groups))
	}
	lambda := chooseLambda(samples, groups)
	return learnWith(samples, o, func(s []Sample) *count.Model { return fitRidge(s, lambda, o) })
}

// LearnRule learns a rule count: the share that one label-free rule flags on the fit's
// scores, as it is — the rule (of count.RuleFeatures()) of least group-weighted mean
// |ln(share/true)| on the samples — with Learn's interval bands, read from the held-out
// residuals of rules chosen without each group. It has one choice among six where the
// ridge has thirteen coefficients and the gate thousands of cuts.
func LearnRule(samples []Sample, o LearnOptions) (*count.Model, error) {
	o = o.defaults()
	if len(samples) < 10 {
		return nil, fmt.Errorf("count: learn from %d samples: too few", len(samples))
	}
	if len(groupsOf(samples)) < 3 {
		return nil, fmt.Errorf("count: learn from %d groups: too few", len(groupsOf(samples)))
	}
	return learnWith(samples, o, func(s []Sample) *count.Model { return fitRule(s, o) })
}

// fitRule is the rule count of least group-weighted mean |ln(share/true)| on samples
// (the prior, their weighted median share, where no rule is among the features).
func fitRule(samples []Sample, o LearnOptions) *count.Model {
	m := blankModel(o)
	y, w := lnTruth(samples)
	best, bestErr := -1, math.Inf(1)
	for _, use := range count.RuleFeatures() {
		u := slices.Index(o.Features, use)
		if u < 0 {
			continue
		}
		e := 0.0
		for i, s := range samples {
			e += w[i] * math.Abs(m.Clip(s.Features[u])-y[i])
		}
		if e < bestErr-1e-12 {
			best, bestErr = u, e
		}
	}
	if best < 0 {
		m.Intercept = WeightedQuantile(y, w, 0.5)
	} else {
		m.Coef[best] = 1
	}
	return m
}

// learnWith fits a model on every sample with fit and gives it interval bands from the
// leave-one-group-out residuals of models fit without each group (Learn).
func learnWith(samples []Sample, o LearnOptions, fit func([]Sample) *count.Model) (*count.Model, error) {
	groups := groupsOf(samples)
	m := fit(samples)
	// The leave-one-group-out residuals at that penalty.
	type held struct {
		s Sample
		r float64
	}
	var hs []held
	for _, g := range groups {
		tr, te := split(samples, g)
		mg := fit(tr)
		for _, s := range te {
			hs = append(hs, held{s, math.Log(s.TrueShare) - mg.Clip(mg.PredictLn(s.Features))})
		}
	}
	// The residuals the bands are read from (the original tables' only, with
	// o.Originals), each group weighing alike.
	kept := hs[:0:0]
	for _, h := range hs {
		if o.calibrates(h.s) {
			kept = append(kept, h)
		}
	}
	hs = kept
	size := calibrationSizes(samples, o)
	// The reliability feature: among the model's features (o.Reliability where the
	// samples carry only that one), the one whose bands give the narrowest intervals on
	// average, the bands learned on the residuals of the other groups.
	best, bestW := -1, math.Inf(1)
	cands := []int{-1}
	if o.chooseReliability {
		cands = cands[:0]
		for j := range o.Features {
			cands = append(cands, j)
		}
	}
	relOf := func(s Sample, j int) float64 {
		if j < 0 {
			return s.Reliability
		}
		return s.Features[j]
	}
	for _, j := range cands {
		var width, wsum float64
		for _, g := range groups {
			var res []residual
			for _, h := range hs {
				if h.s.Group != g {
					res = append(res, residual{rel: relOf(h.s, j), r: h.r, w: 1 / float64(size[h.s.Group]), group: h.s.Group})
				}
			}
			bs := bands(res, o.Bands)
			for _, h := range hs {
				if h.s.Group == g {
					b := count.BandOf(bs, relOf(h.s, j))
					w := 1 / float64(size[g])
					width += w * (b.High - b.Low)
					wsum += w
				}
			}
		}
		if width /= wsum; width < bestW {
			best, bestW = j, width
		}
	}
	var res []residual
	for _, h := range hs {
		res = append(res, residual{rel: relOf(h.s, best), r: h.r, w: 1 / float64(size[h.s.Group]), group: h.s.Group})
	}
	if best >= 0 {
		m.Reliability = o.Features[best]
	}
	m.Bands = bands(res, o.Bands)
	return m, m.Validate()
}

// Heldout is each sample's estimate from a model learned without the sample's group.
func Heldout(samples []Sample, o LearnOptions) ([]count.Estimate, error) {
	return heldoutOn(samples, samples, o, Learn, false)
}

// HeldoutRule is each sample's estimate from a rule count learned without its group.
func HeldoutRule(samples []Sample, o LearnOptions) ([]count.Estimate, error) {
	return heldoutOn(samples, samples, o, LearnRule, false)
}

// HeldoutOn is each judged sample's estimate from a count of kind "gated", "ridge" or
// "rule" learned on the train samples of every group but the judged sample's own: the
// figures a count learned on one set of fits gets on another set of fits of the same
// tables (the default's fits with another setting), still held out by group.
func HeldoutOn(kind string, train, judge []Sample, o LearnOptions) ([]count.Estimate, error) {
	switch kind {
	case "gated":
		return heldoutOn(train, judge, o, LearnGated, true)
	case "ridge":
		return heldoutOn(train, judge, o.ChooseReliability(), Learn, false)
	case "rule":
		return heldoutOn(train, judge, o.ChooseReliability(), LearnRule, false)
	}
	return nil, fmt.Errorf("count: no learner %q", kind)
}

// heldoutOn is each judged sample's estimate from the model learn fits on the train
// samples of the other groups: a gated model's (gated), or one read at the sample's
// reliability.
func heldoutOn(train, judge []Sample, o LearnOptions, learn func([]Sample, LearnOptions) (*count.Model, error), gated bool) ([]count.Estimate, error) {
	o = o.defaults()
	out := make([]count.Estimate, len(judge))
	for _, g := range groupsOf(judge) {
		tr, _ := split(train, g)
		m, err := learn(tr, o)
		if err != nil {
			return nil, fmt.Errorf("count: without group %s: %w", g, err)
		}
		j := slices.Index(o.Features, m.Reliability)
		for i, s := range judge {
			if s.Group != g {
				continue
			}
			if gated {
				out[i] = m.GatedEstimate(s.Features)
				continue
			}
			rel := s.Reliability
			if j >= 0 && o.chooseReliability {
				rel = s.Features[j]
			}
			out[i] = m.Predict(s.Features, rel)
		}
	}
	return out, nil
}

func (o LearnOptions) defaults() LearnOptions {
	if o.Bands == 0 {
		o.Bands = 3
	}
	if o.MinShare == 0 {
		o.MinShare = 0.001
	}
	if o.MaxShare == 0 {
		o.MaxShare = 0.30
	}
	return o
}

func groupsOf(samples []Sample) []string {
	var gs []string
	for _, s := range samples {
		if !slices.Contains(gs, s.Group) {
			gs = append(gs, s.Group)
		}
	}
	slices.Sort(gs)
	return gs
}

func split(samples []Sample, g string) (train, test []Sample) {
	for _, s := range samples {
		if s.Group == g {
			test = append(test, s)
		} else {
			train = append(train, s)
		}
	}
	return train, test
}

// chooseLambda is the penalty of least group-weighted mean |ln(estimate/true)| over the
// held-out groups.
func chooseLambda(samples []Sample, groups []string) float64 {
	best, bestErr := Lambdas[0], math.Inf(1)
	for _, lam := range Lambdas {
		e := 0.0
		for _, g := range groups {
			tr, te := split(samples, g)
			m := fitRidge(tr, lam, LearnOptions{}.defaults())
			s := 0.0
			for _, x := range te {
				s += math.Abs(m.Clip(m.PredictLn(x.Features)) - math.Log(x.TrueShare))
			}
			e += s / float64(len(te))
		}
		if e < bestErr {
			best, bestErr = lam, e
		}
	}
	return best
}

// fitRidge is regression of ln(true share) on the standardised features by least
// absolute deviations with a ridge penalty, every group weighing 1: minimise
// Σ w_i |y_i − b − z_i·β| + λ·|β|² (scaled by the weights' sum).
func fitRidge(samples []Sample, lambda float64, o LearnOptions) *count.Model {
	// Least absolute deviations by iteratively reweighted least squares: the criterion
	// the count is judged by is mean |ln(estimate/true)|, whose best constant is the
	// median of ln(true), not the mean.
	extra := make([]float64, len(samples))
	for i := range extra {
		extra[i] = 1
	}
	var m *count.Model
	for it := 0; it < 15; it++ {
		m = fitWeighted(samples, lambda, o, extra)
		for i, s := range samples {
			r := math.Abs(math.Log(s.TrueShare) - m.PredictLn(s.Features))
			extra[i] = 1 / max(r, 0.05)
		}
	}
	return m
}

// fitWeighted is one weighted ridge solve: group weights times extra.
func fitWeighted(samples []Sample, lambda float64, o LearnOptions, extra []float64) *count.Model {
	p := len(samples[0].Features)
	size := map[string]int{}
	for _, s := range samples {
		size[s.Group]++
	}
	w := make([]float64, len(samples))
	var W float64
	for i, s := range samples {
		w[i] = extra[i] / float64(size[s.Group])
		W += w[i]
	}
	mean, scale := make([]float64, p), make([]float64, p)
	for j := 0; j < p; j++ {
		for i, s := range samples {
			mean[j] += w[i] * s.Features[j]
		}
		mean[j] /= W
		for i, s := range samples {
			d := s.Features[j] - mean[j]
			scale[j] += w[i] * d * d
		}
		scale[j] = math.Sqrt(scale[j] / W)
		if !(scale[j] > 1e-12) {
			scale[j] = 1
		}
	}
	var ym float64
	for i, s := range samples {
		ym += w[i] * math.Log(s.TrueShare)
	}
	ym /= W
	a := mat.NewDense(p, p, nil)
	b := mat.NewVecDense(p, nil)
	z := make([]float64, p)
	for i, s := range samples {
		for j := range z {
			z[j] = (s.Features[j] - mean[j]) / scale[j]
		}
		y := math.Log(s.TrueShare) - ym
		for j := 0; j < p; j++ {
			b.SetVec(j, b.AtVec(j)+w[i]*z[j]*y)
			for k := 0; k < p; k++ {
				a.Set(j, k, a.At(j, k)+w[i]*z[j]*z[k])
			}
		}
	}
	for j := 0; j < p; j++ {
		a.Set(j, j, a.At(j, j)+lambda*W)
	}
	var beta mat.VecDense
	if err := beta.SolveVec(a, b); err != nil {
		beta = *mat.NewVecDense(p, nil) // singular even with the penalty: the constant
	}
	m := &count.Model{
		Version: o.Version, Trained: o.Trained, Features: o.Features, Mean: mean, Scale: scale,
		Coef: make([]float64, p), Intercept: ym, Lambda: lambda,
		MinShare: o.MinShare, MaxShare: o.MaxShare, Reliability: o.Reliability,
	}
	for j := range m.Coef {
		m.Coef[j] = beta.AtVec(j)
	}
	return m
}

type residual struct {
	rel, r, w float64
	group     string
}

// bands cuts the residuals into k bands of equal weight by reliability, each with the
// weighted 10th and 90th percentiles of its residuals.
func bands(res []residual, k int) []count.Band {
	sort.Slice(res, func(i, j int) bool { return res[i].rel < res[j].rel })
	var W float64
	for _, r := range res {
		W += r.w
	}
	var out []count.Band
	start, acc := 0, 0.0
	for i, r := range res {
		acc += r.w
		if acc >= W*float64(len(out)+1)/float64(k) || i == len(res)-1 {
			part := res[start : i+1]
			lo, hi := wquantile(part, 0.1), wquantile(part, 0.9)
			out = append(out, count.Band{Upto: r.rel, Low: lo, High: hi, Reliable: math.Exp(hi-lo) <= count.UnreliableWidth})
			start = i + 1
			if len(out) == k {
				break
			}
		}
	}
	return out
}

func wquantile(res []residual, q float64) float64 {
	y, w := make([]float64, len(res)), make([]float64, len(res))
	for i, r := range res {
		y[i], w[i] = r.r, r.w
	}
	return WeightedQuantile(y, w, q)
}

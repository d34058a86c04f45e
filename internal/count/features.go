package count

import (
	"fmt"
	"math"
	"slices"

	"github.com/udocc/udocc/internal/stats"
	"github.com/udocc/udocc/internal/threshold"
)

// Inputs are what a fit of the default ensemble leaves that a count can be drawn from.
type Inputs struct {
	// Final are the combined scores of every row under the final fit, Screen under the
	// screening fit (nil without one); higher is more anomalous.
	Final, Screen []float64
	// MemberAgreement and DistRecAgreement are Agreements of the final fit's members.
	MemberAgreement, DistRecAgreement float64
}

// SampleRows is the most rows the rank-based features read: evenly spaced rows of a
// larger table, which estimate a rank correlation or an overlap as well and keep the
// count's cost flat in n.
const SampleRows = 20000

// Agreements are the mean rank correlation of the members' distances, pair by pair (1
// with one member), and the rank correlation of the members' summed distance ranks with
// their summed reconstruction ranks (how far the two views of a row agree), on at most
// SampleRows evenly spaced rows.
func Agreements(dist, rec [][]float32) (members, distRec float64) {
	if len(dist) == 0 {
		return 1, 1
	}
	rows := evenRows(len(dist[0]))
	pick := func(x []float32) []float64 {
		out := make([]float64, len(rows))
		for i, r := range rows {
			out[i] = float64(x[r])
		}
		return out
	}
	rd := make([][]float64, len(dist))
	for k := range dist {
		rd[k] = ranks(pick(dist[k]))
	}
	members = 1
	if len(rd) > 1 {
		s, c := 0.0, 0
		for i := range rd {
			for j := i + 1; j < len(rd); j++ {
				s += spearman(rd[i], rd[j])
				c++
			}
		}
		members = s / float64(c)
	}
	if len(rec) != len(dist) {
		return members, 1
	}
	sd, sr := make([]float64, len(rows)), make([]float64, len(rows))
	for k := range dist {
		for i, v := range rd[k] {
			sd[i] += v
		}
		for i, v := range ranks(pick(rec[k])) {
			sr[i] += v
		}
	}
	return members, spearman(ranks(sd), ranks(sr))
}

// evenRows are min(n, SampleRows) evenly spaced rows of n.
func evenRows(n int) []int {
	k := min(n, SampleRows)
	out := make([]int, k)
	for i := range out {
		out[i] = int(int64(i) * int64(n) / int64(k))
	}
	return out
}

// sample is the scores at evenRows.
func sample(s []float64) []float64 {
	if len(s) <= SampleRows {
		return s
	}
	rows := evenRows(len(s))
	out := make([]float64, len(rows))
	for i, r := range rows {
		out[i] = s[r]
	}
	return out
}

// A feature is one number drawn from a fit's Inputs: a share some rule flags, in ln
// (shares below one row are one row), or a measure of how cleanly the scores separate.
type feature struct {
	name string
	of   func(in *Inputs, c *cache) (float64, error)
	// reads says which inputs beside Final the feature reads.
	reads inputs
}

// inputs are the parts of Inputs beside Final, which a fit keeps or computes only for a
// model whose features read them (Model.Reads).
type inputs int

const (
	// Screen: Inputs.Screen, the screening's scores, kept through the final fit.
	Screen inputs = 1 << iota
	// Agreement: Inputs.MemberAgreement and DistRecAgreement (Agreements).
	Agreement
)

// cache holds what several features read: sorted copies and ranks.
type cache struct {
	finalRanks, screenRanks []float64
}

func (c *cache) ranksOf(in *Inputs) {
	if c.finalRanks == nil {
		c.finalRanks = ranks(sample(in.Final))
		if in.Screen != nil {
			c.screenRanks = ranks(sample(in.Screen))
		}
	}
}

// Features are the features the study measures, by name. The learned model reads the ones
// its file lists.
var features = []feature{
	{"kmeans_final", func(in *Inputs, _ *cache) (float64, error) { return lnShare(threshold.KMeans{}, in.Final) }, 0},
	{"kmeans_screen", func(in *Inputs, _ *cache) (float64, error) {
		if in.Screen == nil {
			return lnShare(threshold.KMeans{}, in.Final)
		}
		return lnShare(threshold.KMeans{}, in.Screen)
	}, Screen},
	{"larger_kmeans", func(in *Inputs, _ *cache) (float64, error) {
		// udocc 0.x's default count: two-means on the screening's and the final scores, the
		// larger share (bench/notes/threshold.md A.0).
		f, err := lnShare(threshold.KMeans{}, in.Final)
		if err != nil || in.Screen == nil {
			return f, err
		}
		s, err := lnShare(threshold.KMeans{}, in.Screen)
		return max(f, s), err
	}, Screen},
	{"kmeans_logfinal", func(in *Inputs, _ *cache) (float64, error) {
		return lnShare(threshold.KMeans{}, logPositive(in.Final))
	}, 0},
	{"mad_final", func(in *Inputs, _ *cache) (float64, error) { return lnShare(threshold.MAD{}, in.Final) }, 0},
	{"iqr_final", func(in *Inputs, _ *cache) (float64, error) { return lnShare(threshold.IQR{}, in.Final) }, 0},
	{"tail_final", func(in *Inputs, _ *cache) (float64, error) { return tailRatio(sample(in.Final)), nil }, 0},
	{"tail_screen", func(in *Inputs, _ *cache) (float64, error) {
		if in.Screen == nil {
			return tailRatio(sample(in.Final)), nil
		}
		return tailRatio(sample(in.Screen)), nil
	}, Screen},
	{"gap_final", func(in *Inputs, _ *cache) (float64, error) { return gapRatio(sample(in.Final)), nil }, 0},
	{"gap_screen", func(in *Inputs, _ *cache) (float64, error) {
		if in.Screen == nil {
			return gapRatio(sample(in.Final)), nil
		}
		return gapRatio(sample(in.Screen)), nil
	}, Screen},
	{"agree_screen_final", func(in *Inputs, c *cache) (float64, error) {
		if in.Screen == nil {
			return 1, nil
		}
		c.ranksOf(in)
		return topOverlap(c.finalRanks, c.screenRanks, 0.1), nil
	}, Screen},
	{"agree_members", func(in *Inputs, _ *cache) (float64, error) { return in.MemberAgreement, nil }, Agreement},
	{"agree_dist_rec", func(in *Inputs, _ *cache) (float64, error) { return in.DistRecAgreement, nil }, Agreement},
}

// readsOf are the inputs beside Final that the named features read.
func readsOf(names []string) inputs {
	var r inputs
	for _, f := range features {
		if slices.Contains(names, f.name) {
			r |= f.reads
		}
	}
	return r
}

// Names lists every feature the study measures.
func Names() []string {
	out := make([]string, len(features))
	for i, f := range features {
		out[i] = f.name
	}
	return out
}

// Compute returns the named features of in, in the order of names.
func Compute(in *Inputs, names []string) ([]float64, error) {
	if len(in.Final) < 2 {
		return nil, fmt.Errorf("count: %d scores: need 2", len(in.Final))
	}
	var c cache
	out := make([]float64, len(names))
	for i, name := range names {
		j := slices.IndexFunc(features, func(f feature) bool { return f.name == name })
		if j < 0 {
			return nil, fmt.Errorf("count: unknown feature %q", name)
		}
		v, err := features[j].of(in, &c)
		if err != nil {
			return nil, fmt.Errorf("count: feature %s: %w", name, err)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("count: feature %s is %v", name, v)
		}
		out[i] = v
	}
	return out, nil
}

// lnShare is ln of the share of scores the rule flags, at least one row's.
func lnShare(r threshold.Rule, scores []float64) (float64, error) {
	s, err := threshold.ShareOf(r, scores)
	if err != nil {
		return 0, err
	}
	return math.Log(max(s, 1/float64(len(scores)))), nil
}

// logPositive is ln(1 + max(s − median, 0)) of every score: the upper tail on a log
// scale, the bulk at 0.
func logPositive(s []float64) []float64 {
	med := stats.Median(slices.Clone(s))
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = math.Log1p(max(v-med, 0))
	}
	return out
}

// tailRatio is ln((q99 − q50) / (q90 − q50)) of the scores: how far the top percent
// reaches beyond the top decile (about ln 2.2 for a normal distribution's upper half,
// more for a heavy or separated tail).
func tailRatio(s []float64) float64 {
	x := slices.Clone(s)
	slices.Sort(x)
	q := func(p float64) float64 { return x[min(len(x)-1, int(p*float64(len(x))))] }
	a, b := q(0.99)-q(0.5), q(0.9)-q(0.5)
	if !(b > 0) || !(a > 0) {
		return 0
	}
	return math.Log(a / b)
}

// gapRatio is ln(1 + (max − q99) / (q99 − q50)) of the scores: how far the few most
// extreme rows lie beyond the top percent. Two-means splits off just those rows where it
// is large (bench/notes/threshold.md A.0).
func gapRatio(s []float64) float64 {
	x := slices.Clone(s)
	slices.Sort(x)
	q := func(p float64) float64 { return x[min(len(x)-1, int(p*float64(len(x))))] }
	a, b := x[len(x)-1]-q(0.99), q(0.99)-q(0.5)
	if !(b > 0) || !(a >= 0) {
		return 0
	}
	return math.Log1p(a / b)
}

// ranks are the ranks of s, 0 for the lowest, ties by index (a stable order).
func ranks(s []float64) []float64 {
	idx := make([]int, len(s))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case s[a] < s[b]:
			return -1
		case s[a] > s[b]:
			return 1
		}
		return 0
	})
	r := make([]float64, len(s))
	for k, i := range idx {
		r[i] = float64(k)
	}
	return r
}

// topOverlap is the share of the top share of rows by ranks a that are also in the top
// share by ranks b.
func topOverlap(a, b []float64, share float64) float64 {
	n := len(a)
	k := max(1, int(share*float64(n)))
	cut := float64(n - k)
	both := 0
	for i := range a {
		if a[i] >= cut && b[i] >= cut {
			both++
		}
	}
	return float64(both) / float64(k)
}

// Spearman is the rank correlation of x and y (ranks by value, ties by index).
func Spearman(x, y []float64) float64 { return spearman(ranks(x), ranks(y)) }

// spearman is the rank correlation of two rank vectors, each a permutation of 0..n−1.
func spearman(a, b []float64) float64 {
	n := float64(len(a))
	m := (n - 1) / 2
	var sab, saa, sbb float64
	for i := range a {
		da, db := a[i]-m, b[i]-m
		sab += da * db
		saa += da * da
		sbb += db * db
	}
	if saa == 0 || sbb == 0 {
		return 0
	}
	return sab / math.Sqrt(saa*sbb)
}

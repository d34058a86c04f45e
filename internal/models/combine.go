package models

import (
	"math"

	"github.com/udocc/udocc/internal/dynamics"
)

// CombineMembers combines the final scores of the paper's methods' members (the
// per-member scores scores[k] and thresholds thr[k], +Inf for a member without one, as
// OC). One member is returned as it is. With several, each member's score is divided by
// its own threshold (by its median score when some member has none), so that 1 is every
// member's boundary, and the quotients are averaged; a row is anomalous when that average
// is above 1. Rows are labelled only when every member has a threshold; labels are nil
// otherwise. CombinedThreshold is the threshold of the result.
func CombineMembers(scores [][]float64, thr []float64) ([]float64, []bool) {
	labelled := true
	for _, t := range thr {
		labelled = labelled && !math.IsInf(t, 0)
	}
	label := func(s []float64, t float64) []bool {
		if !labelled {
			return nil
		}
		out := make([]bool, len(s))
		for i, v := range s {
			out[i] = v > t
		}
		return out
	}
	if len(scores) == 1 {
		return scores[0], label(scores[0], thr[0])
	}
	out := make([]float64, len(scores[0]))
	for k, s := range scores {
		div := thr[k]
		if !labelled || !(div > 0) {
			div, _ = dynamics.Quantile(s, 0.5)
		}
		if !(div > 0) {
			div = 1 // scores all 0 or most of them: nothing to scale by
		}
		for i, v := range s {
			out[i] += v / div / float64(len(scores))
		}
	}
	return out, label(out, 1)
}

// CombinedThreshold is the threshold of CombineMembers' scores in their own units: the
// member's own for one member, 1 for several, +Inf when some member has none.
func CombinedThreshold(thr []float64) float64 {
	if len(thr) == 1 {
		return thr[0]
	}
	for _, t := range thr {
		if math.IsInf(t, 0) {
			return math.Inf(1)
		}
	}
	return 1
}

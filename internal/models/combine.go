package models

import (
	"math"

	"github.com/udocc/udocc/internal/dynamics"
)

// CombineMembers combines the final scores of the paper's methods' members (the
// per-member scores scores[k] and scales div[k], MemberScales). One member is returned
// as it is. With several, each member's score is divided by its scale, so that 1 is
// every member's boundary (or its median training score), and the quotients are
// averaged; a row is anomalous when that average is above 1. Rows are labelled only when
// every member has a threshold (thr[k] finite); labels are nil otherwise.
// CombinedThreshold is the threshold of the result. A row's combined score depends on
// that row alone: the scales are fitted on the training rows and saved with the model.
func CombineMembers(scores [][]float64, thr, div []float64) ([]float64, []bool) {
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
		for i, v := range s {
			out[i] += v / div[k] / float64(len(scores))
		}
	}
	return out, label(out, 1)
}

// MemberScales are the divisors CombineMembers scales the members' scores by, fitted on
// the training rows' scores: each member's own threshold where every member has one,
// else its median training score (1 where that is not positive: scores all 0, or most
// of them, have nothing to scale by).
func MemberScales(scores [][]float64, thr []float64) []float64 {
	labelled := true
	for _, t := range thr {
		labelled = labelled && !math.IsInf(t, 0)
	}
	out := make([]float64, len(scores))
	for k, s := range scores {
		div := thr[k]
		if !labelled || !(div > 0) {
			div, _ = dynamics.Quantile(s, 0.5)
		}
		if !(div > 0) {
			div = 1
		}
		out[k] = div
	}
	return out
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

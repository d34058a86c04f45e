package dynamics

import (
	"math"
	"slices"
)

// Ranks returns the ranking r_i of every score in ascending order (Section IV-A): a
// permutation of 1..n in which rank 1 is the most normal row (lowest score) and rank n
// the most anomalous.
//
// Equal scores are ranked by row index, the lower index first, so the ranking is a
// deterministic function of the scores. A network whose scores have collapsed to one
// value therefore yields the identity ranking in every epoch. NaN ranks after every
// number (NaNs among themselves by row index); the selectors reject non-finite scores
// before ranking.
func Ranks(scores []float64) []int {
	order := rankOrder(scores)
	ranks := make([]int, len(scores))
	for r, i := range order {
		ranks[i] = r + 1
	}
	return ranks
}

// rankOrder returns the row indices sorted by rank: order[r-1] is the row of rank r.
func rankOrder(scores []float64) []int {
	order := make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := compareScores(scores[a], scores[b]); c != 0 {
			return c
		}
		return a - b
	})
	return order
}

// compareScores orders numbers ascending with NaN after +Inf.
func compareScores(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	xn, yn := math.IsNaN(x), math.IsNaN(y)
	switch {
	case xn && !yn:
		return 1
	case !xn && yn:
		return -1
	}
	return 0
}

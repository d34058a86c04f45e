package threshold

import (
	"fmt"
	"slices"
)

// Contamination is the threshold that flags the round(c·n) highest of the n scores, for
// a known anomaly ratio c in (0, 1): at least one row, and more where rows tie at the
// cut (TopCount's tie rule).
func Contamination(scores []float64, c float64) (float64, error) {
	if !(c > 0 && c < 1) {
		return 0, fmt.Errorf("threshold: contamination %g: want a ratio in (0, 1)", c)
	}
	k := max(1, int(c*float64(len(scores))+0.5))
	if k >= len(scores) {
		return 0, fmt.Errorf("threshold: contamination %g flags all %d rows", c, len(scores))
	}
	return TopCount(scores, k)
}

// ByContamination is the threshold of scores for a known anomaly ratio c > 0
// (Contamination), or rule's when c is 0.
func ByContamination(scores []float64, rule string, c float64) (float64, error) {
	if c > 0 {
		return Contamination(scores, c)
	}
	r, err := ByName(rule)
	if err != nil {
		return 0, err
	}
	return r.Threshold(scores)
}

// Count is the number of scores above t: the rows a threshold t flags.
func Count(scores []float64, t float64) int {
	k := 0
	for _, s := range scores {
		if s > t {
			k++
		}
	}
	return k
}

// Transfer is the threshold on scores that flags as many rows as t flags on from, scores
// of the same rows from elsewhere (at most all rows but one): a count of anomalies found on
// one score applied to another, as the ensemble takes its screening fit's count.
func Transfer(scores, from []float64, t float64) (float64, error) {
	return TopCount(scores, min(Count(from, t), len(scores)-1))
}

// Larger is the threshold on scores that flags as many rows as the larger of two counts
// (at most all rows but one): the rows t flags on scores itself and the rows tFrom flags
// on from, scores of the same rows from elsewhere. It is how the ensemble draws its
// threshold after a screening fit: its rule's count on the screening fit's scores, or on
// the final scores where that count is larger.
func Larger(scores []float64, t float64, from []float64, tFrom float64) (float64, error) {
	if len(from) != len(scores) {
		return 0, fmt.Errorf("threshold: %d scores to count on and %d from elsewhere", len(scores), len(from))
	}
	return TopCount(scores, min(max(Count(scores, t), Count(from, tFrom)), len(scores)-1))
}

// TopCount is the threshold that flags the k highest of the scores, 0 ≤ k < n. A row is
// flagged when its score is above the threshold, so rows of equal scores are always
// labelled alike; the tie rule decides a count that would cut inside a block of equal
// scores: the block is flagged whole (more than k rows), unless it holds the lowest
// score, when none of it is (flagging it would flag every row). k = 0 flags none.
func TopCount(scores []float64, k int) (float64, error) {
	if k < 0 || k >= len(scores) {
		return 0, fmt.Errorf("threshold: cannot flag %d of %d rows", k, len(scores))
	}
	s := slices.Clone(scores)
	slices.Sort(s)
	n := len(s)
	if k == 0 || s[n-k-1] < s[n-k] {
		return s[n-k-1], nil
	}
	// The k-th highest score ties with the one below it: cut below the tied block.
	first, _ := slices.BinarySearch(s, s[n-k]) // the block's lowest index
	if first == 0 {
		return s[0], nil
	}
	return s[first-1], nil
}

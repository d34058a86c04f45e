package dynamics

import (
	"fmt"
	"math"
)

// MinTrainRows is the fewest rows a selector ever trains on: the networks' BatchNorm
// layers need two rows in a batch.
const MinTrainRows = 2

// checkNext validates a call Next(e, scores) after epoch last: the Selector contract
// has epochs 1, 2, 3, … in order and one finite score per row.
func checkNext(last, e, n int, scores []float64) error {
	if err := checkEpoch(last, e); err != nil {
		return err
	}
	return checkScores(n, scores)
}

// checkEpoch checks that epoch e follows epoch last.
func checkEpoch(last, e int) error {
	if e != last+1 {
		return fmt.Errorf("dynamics: epoch %d after epoch %d: %w", e, last, ErrEpoch)
	}
	return nil
}

// checkScores validates the scores passed to Next or Label.
func checkScores(n int, scores []float64) error {
	if len(scores) != n {
		return fmt.Errorf("dynamics: %d scores for %d rows: %w", len(scores), n, ErrLength)
	}
	for i, s := range scores {
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return fmt.Errorf("dynamics: score of row %d is %v: %w", i+1, s, ErrNonFinite)
		}
	}
	return nil
}

// newRecord is the record of epoch e with every float field not applicable yet.
func newRecord(e, nextTrain int) Record {
	nan := math.NaN()
	return Record{Epoch: e, DeltaBar: nan, MinScaled: nan, SelectedRatio: nan,
		NextTrainSize: nextTrain, Threshold: nan}
}

func allRows(n int) []bool {
	mask := make([]bool, n)
	for i := range mask {
		mask[i] = true
	}
	return mask
}

// lowestRanks selects the k most normal rows: those ranked 1..k.
func lowestRanks(ranks []int, k int) []bool {
	mask := make([]bool, len(ranks))
	for i, r := range ranks {
		mask[i] = r <= k
	}
	return mask
}

// rankCut is the threshold in score units between the rows ranked below k and those
// ranked k or above (2 ≤ k ≤ n): a value t with s_(k−1) ≤ t < s_(k), where s_(r) is the
// score of rank r. A score is above t exactly when its rank is at least k, unless
// s_(k−1) = s_(k): a cut inside a block of equal scores (which Ranks splits by row
// index). The tie rule, threshold.TopCount's for every method: the block is then flagged
// whole, t moving below it (between the block and the next lower score), unless the
// block holds the lowest score, when t is the block's score and none of it is flagged.
// Labels are the scores above t (aboveCut), so that Predict on the training rows gives
// them back.
func rankCut(scores []float64, ranks []int, k int) float64 {
	var lo, hi float64
	for i, r := range ranks {
		switch r {
		case k - 1:
			lo = scores[i]
		case k:
			hi = scores[i]
		}
	}
	if lo < hi {
		return between(lo, hi)
	}
	below, found := math.Inf(-1), false
	for _, s := range scores {
		if s < hi && s > below {
			below, found = s, true
		}
	}
	if !found {
		return hi
	}
	return between(below, hi)
}

// aboveCut labels the scores above t, true = anomaly.
func aboveCut(scores []float64, t float64) []bool {
	labels := make([]bool, len(scores))
	for i, s := range scores {
		labels[i] = s > t
	}
	return labels
}

// between returns the midpoint of a ≤ b, moved down to a when rounding would land it on
// b (adjacent floats), so that a ≤ t < b whenever a < b.
func between(a, b float64) float64 {
	t := a + (b-a)/2
	if t >= b {
		return a
	}
	return t
}

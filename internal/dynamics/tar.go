package dynamics

import (
	"fmt"
	"math"
)

// TAR is the OC+TAR oracle of Section V-A: given the true anomaly ratio, from epoch 2 on
// the next epoch trains on the n−k rows with the lowest scores, k = round(ratio·n).
// Epochs 1 and 2 train on every row, as in Algorithm 1.
type TAR struct {
	n, k, last int
}

// NewTAR returns a TAR selector for n rows and an anomaly ratio in [0, 1). It flags
// k = round(ratio·n) rows (rounded so that ratio = anomalies/n gives back the count
// despite floating point) and needs n−k ≥ MinTrainRows.
func NewTAR(n int, ratio float64) (*TAR, error) {
	if !(ratio >= 0 && ratio < 1) {
		return nil, fmt.Errorf("dynamics: tar ratio %v outside [0, 1): %w", ratio, ErrOption)
	}
	k := int(math.Round(ratio * float64(n)))
	if n-k < MinTrainRows {
		return nil, fmt.Errorf("dynamics: tar ratio %v leaves %d of %d rows to train on: %w",
			ratio, n-k, n, ErrTooFewRows)
	}
	return &TAR{n: n, k: k}, nil
}

// Name returns "tar".
func (t *TAR) Name() string { return "tar" }

// Next implements Selector. SelectedRatio is k/n; the mask is the complement of Label's.
func (t *TAR) Next(e int, scores []float64) ([]bool, Record, error) {
	if err := checkNext(t.last, e, t.n, scores); err != nil {
		return nil, Record{}, err
	}
	t.last = e
	if e == 1 {
		return allRows(t.n), newRecord(e, t.n), nil
	}
	ranks := Ranks(scores)
	rec := newRecord(e, t.n-t.k)
	rec.SelectedRatio = float64(t.k) / float64(t.n)
	rec.Threshold = t.threshold(scores, ranks)
	return lowestRanks(ranks, t.n-t.k), rec, nil
}

// Label implements Selector: the k rows of highest rank are anomalous, and the rows
// that tie with the lowest of them too (rankCut's tie rule). The threshold lies between
// the scores of ranks n−k and n−k+1, as for Proposed; +Inf when k = 0.
func (t *TAR) Label(scores []float64) ([]bool, float64, error) {
	if err := checkScores(t.n, scores); err != nil {
		return nil, 0, err
	}
	thr := t.threshold(scores, Ranks(scores))
	return aboveCut(scores, thr), thr, nil
}

func (t *TAR) threshold(scores []float64, ranks []int) float64 {
	if t.k == 0 {
		return math.Inf(1)
	}
	return rankCut(scores, ranks, t.n-t.k+1)
}

package dynamics

import (
	"fmt"
	"math"
	"slices"

	"github.com/udocc/udocc/internal/stats"
)

// OtsuThreshold returns Otsu's threshold on the scores: of all ways to cut the sorted
// scores into a lower and an upper class between two distinct values, the one with the
// least intra-class variance w₀σ₀² + w₁σ₁², equivalently the largest between-class
// variance w₀w₁(μ₀−μ₁)²: stats.TwoClassSplit of the sorted scores, its sums taken about
// the median (stats.AboutMedian). Exact ties go to the lowest cut.
//
// The threshold t lies between the largest lower-class score a and the smallest
// upper-class score b, a ≤ t < b (the midpoint, unless rounding puts it on b): the
// upper class is exactly the scores above t. With fewer than two distinct scores there is
// no cut and t = +Inf. Non-finite scores return ErrNonFinite.
func OtsuThreshold(scores []float64) (float64, error) {
	if err := checkScores(len(scores), scores); err != nil {
		return 0, err
	}
	return otsuSorted(slices.Sorted(slices.Values(scores))), nil
}

// otsuSorted is OtsuThreshold of the ascending x.
func otsuSorted(x []float64) float64 {
	cut := stats.TwoClassSplit(x, stats.AboutMedian)
	if cut == 0 {
		return math.Inf(1)
	}
	return between(x[cut-1], x[cut])
}

// Otsu is the OC+Otsu baseline of Section V-A: from epoch 2 on, each epoch's scores are
// cut by OtsuThreshold and the next epoch trains on the rows at or below the threshold.
// Epochs 1 and 2 train on every row, as in Algorithm 1.
type Otsu struct {
	n, last int
}

// NewOtsu returns an Otsu selector for n ≥ 2 rows.
func NewOtsu(n int) (*Otsu, error) {
	if n < MinTrainRows {
		return nil, fmt.Errorf("dynamics: otsu selector over %d rows: %w", n, ErrTooFewRows)
	}
	return &Otsu{n: n}, nil
}

// Name returns "otsu".
func (o *Otsu) Name() string { return "otsu" }

// Next implements Selector. A lower class of one row is replaced by the MinTrainRows
// lowest-ranked rows (Record.Floored). SelectedRatio is the fraction above the threshold.
func (o *Otsu) Next(e int, scores []float64) ([]bool, Record, error) {
	if err := checkNext(o.last, e, o.n, scores); err != nil {
		return nil, Record{}, err
	}
	o.last = e
	if e == 1 {
		return allRows(o.n), newRecord(e, o.n), nil
	}
	labels, t := otsuLabels(scores)
	mask := make([]bool, o.n)
	size := 0
	for i, anomalous := range labels {
		if !anomalous {
			mask[i] = true
			size++
		}
	}
	rec := newRecord(e, size)
	rec.Threshold = t
	rec.SelectedRatio = float64(o.n-size) / float64(o.n)
	if size < MinTrainRows {
		mask, rec.NextTrainSize, rec.Floored = lowestRanks(Ranks(scores), MinTrainRows), MinTrainRows, true
	}
	return mask, rec, nil
}

// Label implements Selector: a row is anomalous when its score is above
// OtsuThreshold(scores). With fewer than two distinct scores nothing is flagged (+Inf).
func (o *Otsu) Label(scores []float64) ([]bool, float64, error) {
	if err := checkScores(o.n, scores); err != nil {
		return nil, 0, err
	}
	labels, t := otsuLabels(scores)
	return labels, t, nil
}

func otsuLabels(scores []float64) ([]bool, float64) {
	t := otsuSorted(slices.Sorted(slices.Values(scores)))
	labels := make([]bool, len(scores))
	for i, s := range scores {
		labels[i] = s > t
	}
	return labels, t
}

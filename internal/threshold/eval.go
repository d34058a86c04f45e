package threshold

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/udocc/udocc/metrics"
)

// Eval is how one threshold fares on scores with ground-truth labels.
type Eval struct {
	// Selected is the fraction of rows flagged (score > threshold).
	Selected float64
	// True is the fraction of rows labelled anomalous.
	True float64
	// F1 is the F1 of the flagged rows against the labels.
	F1 float64
	// OracleF1 is OracleF1 of the same scores: what a rule that knew the
	// number of anomalies would reach.
	OracleF1 float64
}

// Evaluate flags scores > thr and compares them with labels (1 = anomaly,
// 0 = normal). Errors are metrics' (ErrLength, ErrLabel) for mismatched
// lengths, no rows or labels other than 0/1.
func Evaluate(scores []float64, labels []int, thr float64) (Eval, error) {
	pred := make([]int, len(scores))
	for i, s := range scores {
		if s > thr {
			pred[i] = 1
		}
	}
	c, err := metrics.Count(labels, pred)
	if err != nil {
		return Eval{}, fmt.Errorf("threshold: evaluate: %w", err)
	}
	oracle, err := OracleF1(scores, labels)
	if err != nil {
		return Eval{}, err
	}
	n := float64(len(scores))
	return Eval{
		Selected: float64(c.TP+c.FP) / n,
		True:     float64(c.TP+c.FN) / n,
		F1:       c.F1(),
		OracleF1: oracle,
	}, nil
}

// OracleF1 returns the F1 of flagging the k highest scores, k the number of
// rows labelled 1, ties broken toward the lower row index. With as many
// flagged as true anomalies precision equals recall, so it is the fraction
// of anomalies among the top k; 0 when there are none.
func OracleF1(scores []float64, labels []int) (float64, error) {
	if len(scores) != len(labels) || len(scores) == 0 {
		return 0, fmt.Errorf("threshold: oracle F1: %d scores, %d labels: %w", len(scores), len(labels), metrics.ErrLength)
	}
	k := 0
	for i, y := range labels {
		if y != 0 && y != 1 {
			return 0, fmt.Errorf("threshold: oracle F1: labels[%d] = %d: %w", i, y, metrics.ErrLabel)
		}
		k += y
	}
	if k == 0 {
		return 0, nil
	}
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	tp := 0
	for _, i := range idx[:k] {
		tp += labels[i]
	}
	return float64(tp) / float64(k), nil
}

// LogRatioError returns |ln(selected/actual)|, how many e-folds the selected
// anomaly ratio is off the actual one, symmetric in over- and
// under-selection: +Inf when exactly one of them is 0, 0 when both are.
func LogRatioError(selected, actual float64) float64 {
	switch {
	case selected == 0 && actual == 0:
		return 0
	case selected == 0 || actual == 0:
		return math.Inf(1)
	}
	return math.Abs(math.Log(selected / actual))
}

// WithinFactor reports whether selected lies in [actual/factor,
// actual·factor], factor ≥ 1: LogRatioError(selected, actual) ≤ ln(factor).
func WithinFactor(selected, actual, factor float64) bool {
	return selected >= actual/factor && selected <= actual*factor
}

package metrics

import "fmt"

// Counts is the confusion table of a 0/1 labelling. Anomaly (1) is the positive
// class.
type Counts struct {
	TP, FP, TN, FN int
}

// Count tallies predicted against the true labels. Both must be 0/1, of equal and
// non-zero length.
func Count(labels, predicted []int) (Counts, error) {
	var c Counts
	if len(labels) != len(predicted) || len(labels) == 0 {
		return c, fmt.Errorf("metrics: %d labels, %d predictions: %w", len(labels), len(predicted), ErrLength)
	}
	for i, y := range labels {
		p := predicted[i]
		switch {
		case y != 0 && y != 1:
			return Counts{}, fmt.Errorf("metrics: labels[%d] = %d: %w", i, y, ErrLabel)
		case p != 0 && p != 1:
			return Counts{}, fmt.Errorf("metrics: predicted[%d] = %d: %w", i, p, ErrLabel)
		case y == 1 && p == 1:
			c.TP++
		case y == 0 && p == 1:
			c.FP++
		case y == 0:
			c.TN++
		default:
			c.FN++
		}
	}
	return c, nil
}

// Precision returns TP / (TP + FP). It is 0 when nothing is predicted positive, as
// scikit-learn's precision_score returns with zero_division="warn". Flagging nothing
// finds no anomaly, so 0 is also the honest score.
func (c Counts) Precision() float64 { return ratio(c.TP, c.TP+c.FP) }

// Recall returns TP / (TP + FN). It is 0 when there are no anomalies, as in
// scikit-learn's recall_score.
func (c Counts) Recall() float64 { return ratio(c.TP, c.TP+c.FN) }

// F1 returns the harmonic mean of precision and recall, 2·TP / (2·TP + FP + FN). It
// is 0 when TP + FP + FN = 0, as in scikit-learn's f1_score.
func (c Counts) F1() float64 { return ratio(2*c.TP, 2*c.TP+c.FP+c.FN) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

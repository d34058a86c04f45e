package metrics

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Sentinel errors, wrapped with details; branch with errors.Is.
var (
	// ErrOneClass reports labels that are all 0 or all 1: ROC AUC and
	// average precision are undefined (scikit-learn raises or returns NaN).
	ErrOneClass = errors.New("labels hold only one class")
	// ErrLength reports inputs of different lengths, or empty ones.
	ErrLength = errors.New("input lengths differ or are zero")
	// ErrLabel reports a label or prediction other than 0 or 1.
	ErrLabel = errors.New("label is not 0 or 1")
	// ErrNonFinite reports a NaN or infinite score.
	ErrNonFinite = errors.New("score is NaN or infinite")
)

// ROCAUC returns the area under the ROC curve of scores against labels, as
// scikit-learn's roc_auc_score does. It is the trapezoidal area over the curve's
// points at each distinct score. A tie between a positive and a negative counts one
// half: the Mann–Whitney U statistic over P·N.
func ROCAUC(labels []int, scores []float64) (float64, error) {
	steps, pos, neg, err := curve(labels, scores)
	if err != nil {
		return 0, err
	}
	return rocArea(steps, pos, neg), nil
}

// PRAUC returns the area under the precision–recall curve as average precision, as
// scikit-learn's average_precision_score does: AP = Σₖ (Rₖ − Rₖ₋₁)·Pₖ over the
// distinct scores from the highest down. Pₖ and Rₖ are the precision and recall of
// flagging every score ≥ the k-th. It is a step-wise sum; the trapezoid would be
// optimistic.
func PRAUC(labels []int, scores []float64) (float64, error) {
	steps, pos, _, err := curve(labels, scores)
	if err != nil {
		return 0, err
	}
	return prArea(steps, pos), nil
}

// AUCs returns ROCAUC and PRAUC of scores against labels from one sort of the scores.
func AUCs(labels []int, scores []float64) (rocauc, prauc float64, err error) {
	steps, pos, neg, err := curve(labels, scores)
	if err != nil {
		return 0, 0, err
	}
	return rocArea(steps, pos, neg), prArea(steps, pos), nil
}

// rocArea is ROCAUC's area: twice the area in units of one positive × one negative,
// summed in integers so the result is exact until the one division.
func rocArea(steps []step, pos, neg int64) float64 {
	var area2, tp, fp int64
	for _, s := range steps {
		area2 += (s.fp - fp) * (s.tp + tp)
		tp, fp = s.tp, s.fp
	}
	return float64(area2) / (2 * float64(pos) * float64(neg))
}

// prArea is PRAUC's average precision over the curve's steps.
func prArea(steps []step, pos int64) float64 {
	var ap float64
	var tp int64
	for _, s := range steps {
		ap += float64(s.tp-tp) * (float64(s.tp) / float64(s.tp+s.fp))
		tp = s.tp
	}
	return ap / float64(pos)
}

// orderKey maps a finite score to an integer of the same order: the float's bits with
// the sign bit set for a positive score and every bit flipped for a negative one. -0
// becomes +0 first (s + 0), so the two are one score, as they compare equal.
func orderKey(s float64) uint64 {
	b := math.Float64bits(s + 0)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

// step is one point of the ROC / PR curves: the true and false positives
// when every score ≥ some distinct score is predicted positive.
type step struct{ tp, fp int64 }

// curve checks the inputs and returns the cumulative counts at each
// distinct score, highest first, and the class sizes.
func curve(labels []int, scores []float64) ([]step, int64, int64, error) {
	if len(labels) != len(scores) || len(labels) == 0 {
		return nil, 0, 0, fmt.Errorf("metrics: %d labels, %d scores: %w", len(labels), len(scores), ErrLength)
	}
	var pos int64
	for i, y := range labels {
		if y != 0 && y != 1 {
			return nil, 0, 0, fmt.Errorf("metrics: labels[%d] = %d: %w", i, y, ErrLabel)
		}
		if s := scores[i]; math.IsNaN(s) || math.IsInf(s, 0) {
			return nil, 0, 0, fmt.Errorf("metrics: scores[%d] = %v: %w", i, s, ErrNonFinite)
		}
		pos += int64(y)
	}
	neg := int64(len(labels)) - pos
	if pos == 0 || neg == 0 {
		return nil, 0, 0, fmt.Errorf("metrics: %d anomalies and %d normal points: %w", pos, neg, ErrOneClass)
	}
	// The positives' and the negatives' scores, each sorted on its own as integers of the
	// same order (orderKey), then merged from the highest score down: several times
	// faster than one sort of (score, label) pairs through a comparison function.
	ps, ns := make([]uint64, 0, pos), make([]uint64, 0, neg)
	for i, s := range scores {
		if labels[i] == 1 {
			ps = append(ps, orderKey(s))
		} else {
			ns = append(ns, orderKey(s))
		}
	}
	slices.Sort(ps)
	slices.Sort(ns)
	steps := make([]step, 0, min(len(scores), 1<<16))
	var tp, fp int64
	for i, j := len(ps)-1, len(ns)-1; i >= 0 || j >= 0; {
		var k uint64 // the next distinct score's key
		switch {
		case i < 0:
			k = ns[j]
		case j < 0:
			k = ps[i]
		default:
			k = max(ps[i], ns[j])
		}
		for ; i >= 0 && ps[i] == k; i-- {
			tp++
		}
		for ; j >= 0 && ns[j] == k; j-- {
			fp++
		}
		steps = append(steps, step{tp, fp})
	}
	return steps, pos, neg, nil
}

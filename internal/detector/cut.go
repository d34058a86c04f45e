package detector

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/threshold"
)

// validate refuses a cut with not exactly one field set, or one out of range.
// MaxContamination is the largest share of rows a contamination may flag, the same
// for a fit, a re-cut of new rows and a cut of the training rows: anomalies are the
// minority, and the training scores' sketch reaches the top half.
const MaxContamination = 0.5

func validateCut(c Cut) error {
	set := 0
	for _, b := range []bool{c.Contamination != 0, c.Count != 0, c.Rule != "", c.Score != nil} {
		if b {
			set++
		}
	}
	switch {
	case set != 1:
		return errors.New("udocc: a cut takes exactly one of a contamination, a count, a rule and a score")
	case c.Contamination != 0 && !(c.Contamination > 0 && c.Contamination <= MaxContamination):
		return fmt.Errorf("udocc: contamination %g: want a share of rows in (0, %g]", c.Contamination, MaxContamination)
	case c.Score != nil && (math.IsNaN(*c.Score) || math.IsInf(*c.Score, 0)):
		return fmt.Errorf("udocc: score threshold %g: want a finite number", *c.Score)
	case c.Count < 0:
		return fmt.Errorf("udocc: count %d: want 1 or more", c.Count)
	case c.Rule != "" && !slices.Contains(CountRules(), c.Rule):
		return fmt.Errorf("udocc: rule %q: want one of %v", c.Rule, CountRules())
	}
	return nil
}

// thresholdFor is the threshold, in score units, that cut c draws on scores: the rows a
// contamination or a count flags are exactly the top ones. With scores nil it draws on
// the training rows' scores as the model keeps them. That is exact for a fitted model.
// A loaded one reads their sketch in model.json: exact at the shares it lists, and
// within about 1 % of the share asked for between them (a contamination of at most
// 1/2). A rule needs scores. The model is not changed.
// ErrPastSketch reports a cut on the training rows beyond the sketch of their scores
// that the model keeps (model.json's training_scores): the rows must be scored again.
var ErrPastSketch = errors.New("udocc: past the model's sketch of its training scores")

// ThresholdFor is the threshold, in score units, that cut c draws on scores: scores
// above it are flagged. It changes nothing. ErrNoRecut: it cannot be drawn.
func (m *Model) ThresholdFor(scores []float64, c Cut) (float64, error) {
	if err := validateCut(c); err != nil {
		return 0, err
	}
	if m.meta.Ensemble == nil {
		return 0, fmt.Errorf("%w: method %s thresholds each member on its own; refit with the ensemble method", ErrNoRecut, m.meta.Method)
	}
	if c.Score != nil {
		return *c.Score, nil
	}
	if scores == nil {
		scores = m.scores
	}
	if scores == nil {
		return m.tailThreshold(c)
	}
	n := len(scores)
	switch {
	case c.Contamination > 0:
		return threshold.Contamination(scores, c.Contamination)
	case c.Count > 0:
		if c.Count >= n {
			return 0, fmt.Errorf("udocc: count %d flags all %d rows", c.Count, n)
		}
		return threshold.TopCount(scores, c.Count)
	}
	r, err := threshold.ByName(string(c.Rule))
	if err != nil {
		return 0, err
	}
	t, err := r.Threshold(scores)
	if err != nil {
		return 0, fmt.Errorf("udocc: rule %s: %w", c.Rule, err)
	}
	if math.IsInf(t, 1) {
		t = slices.Max(scores) // no cut: nothing flagged, a number model.json can hold
	}
	return t, nil
}

// tailThreshold is ThresholdFor from the sketch of the training scores.
func (m *Model) tailThreshold(c Cut) (float64, error) {
	t := m.meta.Tail
	if t == nil {
		return 0, fmt.Errorf("%w: the model keeps no training scores (saved by an older udocc); give rows to score", ErrNoRecut)
	}
	if c.Rule != "" {
		return 0, fmt.Errorf("%w: rule %s needs the scores of rows; give them", ErrNoRecut, c.Rule)
	}
	share := c.Contamination
	if c.Count > 0 {
		share = float64(c.Count) / float64(t.N)
	}
	k := max(1, int(share*float64(t.N)+0.5))
	share = float64(k) / float64(t.N)
	if k >= t.N || share > t.Shares[len(t.Shares)-1] {
		return 0, fmt.Errorf("%w: a share of %g of the %d training rows: the model's sketch of their scores reaches %g; score the rows and cut on their scores to flag more", ErrPastSketch, share, t.N, t.Shares[len(t.Shares)-1])
	}
	i, exact := slices.BinarySearch(t.Shares, share)
	switch {
	case exact:
		return t.Scores[i], nil
	case i == 0:
		return t.Scores[0], nil
	}
	// Between two listed shares: linear in log share.
	a, b := math.Log(t.Shares[i-1]), math.Log(t.Shares[i])
	f := (math.Log(share) - a) / (b - a)
	return t.Scores[i-1] + f*(t.Scores[i]-t.Scores[i-1]), nil
}

// Recut draws the ensemble's threshold anew by c (ThresholdFor on scores, nil for the
// training rows') and sets it: Threshold, Label and Predict follow it, as do the
// training rows' Labels of a fitted model, model.json's threshold_rule and Save. It
// returns the new threshold. No network is trained or changed.
func (m *Model) Recut(scores []float64, c Cut) (float64, error) {
	t, err := m.ThresholdFor(scores, c)
	if err != nil {
		return 0, err
	}
	m.meta.Threshold, m.meta.ThresholdRule, m.meta.RatioInterval = &t, c.String(), nil
	m.thr = t
	if m.scores != nil {
		m.labels = m.Label(m.scores)
	}
	return t, nil
}

// tailPoints is the most top shares newTail lists.
const tailPoints = 1024

// newTail sketches n scores for model.json: the score above which the top k of them
// lie for k on a geometric grid from 1 to n/2 (every k where n is small), and their
// median; nil for fewer than 4 scores.
func newTail(scores []float64) *models.Tail {
	n := len(scores)
	if n < 4 {
		return nil
	}
	s := slices.Clone(scores)
	slices.Sort(s)
	t := &models.Tail{N: n, Median: s[n/2]}
	if n%2 == 0 {
		t.Median = (s[n/2-1] + s[n/2]) / 2
	}
	last := 0
	hi := math.Log(float64(n / 2))
	for i := range tailPoints {
		k := int(math.Round(math.Exp(hi * float64(i) / float64(tailPoints-1))))
		if k <= last || k >= n {
			continue
		}
		last = k
		t.Shares = append(t.Shares, float64(k)/float64(n))
		t.Scores = append(t.Scores, s[n-k-1]) // TopCount(scores, k)
	}
	return t
}

// probabilityAnchor is the probability of a row that scores the training rows' median:
// a typical row is 1 % likely an anomaly.
const probabilityAnchor = 0.01

// Probability is a row's probability of being an anomaly, from its score: a logistic
// curve in the score anchored at the model's threshold, 0.5 there, and at the training
// rows' median score, probabilityAnchor (1 %) there, so that it is monotone in the
// score, in [0, 1] (0 and 1 only where float64 rounds the curve to them), above 1/2 exactly for the rows Label flags, and depends on the row
// alone. It is a reading aid on the threshold's own scale, not a calibrated frequency
// (docs/cli.md). NaN where the model has no threshold (method oc) or keeps no training
// scores (a model saved by an older udocc).
func (m *Model) Probability(score float64) float64 {
	t := m.meta.Tail
	if t == nil || math.IsInf(m.thr, 0) || math.IsNaN(score) {
		return math.NaN()
	}
	w := (m.thr - t.Median) / math.Log(1/probabilityAnchor-1)
	if !(w > 0) {
		// A threshold at or below the median: the spread of the top half instead.
		w = (t.Scores[0] - t.Median) / math.Log(1/probabilityAnchor-1)
		if !(w > 0) {
			return math.NaN()
		}
	}
	return 1 / (1 + math.Exp(-(score-m.thr)/w))
}

// Probabilities is Probability of each score.
func (m *Model) Probabilities(scores []float64) []float64 {
	out := make([]float64, len(scores))
	for i, s := range scores {
		out[i] = m.Probability(s)
	}
	return out
}

// TrainingFlagged is how many training rows the threshold flags: counted on the
// training scores of a fitted model, estimated from their sketch in model.json for a
// loaded one (interpolated between the top shares it lists); -1 where neither is kept.
func (m *Model) TrainingFlagged() int {
	if m.scores != nil {
		return threshold.Count(m.scores, m.thr)
	}
	t := m.meta.Tail
	if t == nil {
		return -1
	}
	// The shares ascend as their scores descend: find where the threshold falls.
	i := 0
	for i < len(t.Scores) && t.Scores[i] > m.thr {
		i++
	}
	switch {
	case i == 0 && m.thr == t.Scores[0]: // the sketch's own top point (cut --count 1)
		return int(t.Shares[0]*float64(t.N) + 0.5)
	case i == 0:
		return int(t.Shares[0]*float64(t.N)+0.5) - 1
	case i == len(t.Scores):
		if m.thr >= t.Median {
			return int(t.Shares[i-1]*float64(t.N) + 0.5)
		}
		return t.N / 2
	}
	// Between two listed shares: TopShare interpolates in ln share.
	return int(t.TopShare(m.thr)*float64(t.N) + 0.5)
}

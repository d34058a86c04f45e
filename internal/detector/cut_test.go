package detector_test

import (
	"errors"
	"math"
	"slices"
	"sort"
	"testing"

	"github.com/udocc/udocc/internal/detector"
)

// TestRecut: a cut draws a new threshold without training, exactly on given scores and
// on a fitted model's training scores, and from the saved sketch of them within a
// percent of the share asked for; labels and probabilities follow it (issue 42 item 6).
func TestRecut(t *testing.T) {
	m := fitted(t, detector.Ensemble{}, table(400, 3, 1))
	scores := m.Scores()
	for _, c := range []detector.Cut{{Contamination: 0.05}, {Count: 7}, {Rule: "mad"}} {
		got, err := m.ThresholdFor(nil, c)
		if err != nil {
			t.Fatal(err)
		}
		if c.Rule == "" {
			want := 20
			if c.Count > 0 {
				want = c.Count
			}
			if k := countAbove(scores, got); k != want {
				t.Errorf("%v: %d training rows flagged, want %d", c, k, want)
			}
		}
	}
	loaded := reloaded(t, m)
	thr, err := loaded.Recut(nil, detector.Cut{Contamination: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if k := countAbove(scores, thr); k < 19 || k > 21 {
		t.Errorf("a loaded model's cut at 5 %% flags %d of 400 training rows, want 20 ± 1", k)
	}
	if loaded.Threshold() != thr || loaded.TrainingFlagged() < 19 || loaded.TrainingFlagged() > 21 {
		t.Errorf("after Recut: threshold %v (cut %v), training flagged %d", loaded.Threshold(), thr, loaded.TrainingFlagged())
	}
	again := reloaded(t, loaded)
	if again.Threshold() != thr {
		t.Errorf("saved and loaded: threshold %v, want %v", again.Threshold(), thr)
	}
	if _, err := loaded.ThresholdFor(nil, detector.Cut{Rule: "mad"}); !errors.Is(err, detector.ErrNoRecut) {
		t.Errorf("a rule without scores on a loaded model: %v, want detector.ErrNoRecut", err)
	}
	if _, err := loaded.ThresholdFor(nil, detector.Cut{Contamination: 0.1, Count: 3}); err == nil {
		t.Error("two cuts at once: no error")
	}
	paper := fitted(t, detector.Proposed{}, table(120, 3, 1))
	if _, err := paper.Recut(nil, detector.Cut{Count: 3}); !errors.Is(err, detector.ErrNoRecut) {
		t.Errorf("Recut of method proposed: %v, want detector.ErrNoRecut", err)
	}
}

func countAbove(scores []float64, t float64) int {
	k := 0
	for _, s := range scores {
		if s > t {
			k++
		}
	}
	return k
}

// TestProbability: a row's probability of being an anomaly is monotone in its score, in
// [0, 1], 1/2 at the threshold, above it exactly for the flagged rows, and 1 % at the
// training rows' median score (issue 42 item 7).
func TestProbability(t *testing.T) {
	m := fitted(t, detector.Ensemble{}, table(400, 3, 1))
	scores := slices.Clone(m.Scores())
	p := m.Probabilities(scores)
	for i, s := range scores {
		if !(p[i] >= 0 && p[i] <= 1) || (p[i] > 0.5) != m.Labels()[i] {
			t.Fatalf("row %d: score %v, probability %v, label %v", i, s, p[i], m.Labels()[i])
		}
	}
	order := make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return scores[order[a]] < scores[order[b]] })
	for k := 1; k < len(order); k++ {
		if p[order[k]] < p[order[k-1]] {
			t.Fatalf("not monotone: score %v has %v, score %v has %v", scores[order[k-1]], p[order[k-1]], scores[order[k]], p[order[k]])
		}
	}
	if got := m.Probability(m.Threshold()); got != 0.5 {
		t.Errorf("at the threshold: %v, want 0.5", got)
	}
	sorted := slices.Clone(scores)
	slices.Sort(sorted)
	median := (sorted[199] + sorted[200]) / 2
	if got := m.Probability(median); math.Abs(got-0.01) > 1e-9 {
		t.Errorf("at the median training score: %v, want 0.01", got)
	}
	loaded := reloaded(t, m)
	if got := loaded.Probabilities(scores); !slices.Equal(got, p) {
		t.Error("a loaded model's probabilities differ from the fitted one's")
	}
	oc := fitted(t, detector.OC{}, table(120, 3, 1))
	if !math.IsNaN(oc.Probability(1)) {
		t.Error("method oc, without a threshold: a probability")
	}
}

package udocc

import (
	"testing"

	"github.com/udocc/udocc/threshold"
)

// TestEnsembleThreshold checks the ensemble's threshold on hand-made scores: the larger
// of the screening's count and the rule's own count on the final scores, the rule alone
// without a screening, and the top share when a contamination is given.
func TestEnsembleThreshold(t *testing.T) {
	// Two-means splits these between 1.4 and 9: it flags the three rows at 9, 10 and 11.
	scores := []float64{1, 1.1, 0.9, 1.2, 1, 0.8, 1.3, 9, 10, 11, 1.05, 0.95, 1.15, 1.25, 1.4, 0.85}
	km, err := threshold.ByContamination(scores, "kmeans", 0)
	if err != nil {
		t.Fatal(err)
	}
	if k := threshold.Count(scores, km); k != 3 {
		t.Fatalf("kmeans flags %d of the hand-made scores, want 3", k)
	}
	for _, c := range []struct {
		flagged       int
		contamination float64
		want          int
		why           string
	}{
		{1, 0, 3, "the rule's own count on the final scores (3) is larger than the screening's (1)"},
		{5, 0, 5, "the screening's count (5) is larger"},
		{3, 0, 3, "the counts tie"},
		{-1, 0, 3, "no screening: the rule on the scores"},
		{1, 0.25, 4, "a contamination of 0.25: the top 4 of 16"},
		{20, 0, 15, "at most all rows but one"},
	} {
		opts := DefaultOptions()
		opts.Contamination = c.contamination
		thr, err := ensembleThreshold(scores, c.flagged, opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := threshold.Count(scores, thr); got != c.want {
			t.Errorf("flagged %d, contamination %g: %d rows flagged, want %d (%s)", c.flagged, c.contamination, got, c.want, c.why)
		}
	}
}

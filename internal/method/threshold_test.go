package method

import (
	"math"
	"testing"

	"github.com/udocc/udocc/internal/threshold"
)

// TestEnsembleThreshold checks the ensemble's threshold for one rule on hand-made
// scores: the larger of the screening's share and the rule's own share on the final
// scores, the rule alone without a screening, and the top share when a contamination
// is given.
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
		screen        []float64
		contamination float64
		want          int
		why           string
	}{
		{[]float64{1.0 / 16}, 0, 3, "the rule's own count on the final scores (3) is larger than the screening's (1)"},
		{[]float64{5.0 / 16}, 0, 5, "the screening's count (5) is larger"},
		{[]float64{3.0 / 16}, 0, 3, "the counts tie"},
		{nil, 0, 3, "no screening: the rule on the scores"},
		{[]float64{1.0 / 16}, 0.25, 4, "a contamination of 0.25: the top 4 of 16"},
		{[]float64{1}, 0, 15, "at most all rows but one"},
	} {
		cfg := counting(t, c.contamination, "kmeans")
		thr, iv, err := ensembleThreshold(scores, c.screen, cfg)
		if err != nil {
			t.Fatal(err)
		}
		// kmeans is the default rule, which gives an interval unless a contamination is given.
		if got := threshold.Count(scores, thr); got != c.want || (iv != nil) != (c.contamination == 0) {
			t.Errorf("screen %v, contamination %g: %d rows flagged, interval %v; want %d, an interval only without a contamination (%s)", c.screen, c.contamination, got, iv, c.want, c.why)
		}
	}
}

// TestKMeansCount checks the earlier default count, kmeans alone: two-means' share, the larger of the
// screening's and the final scores' (its own threshold without a screening), with the
// interval DefaultInterval gives around it; a contamination still overrides it,
// without an interval; another rule or combination has no interval.
func TestKMeansCount(t *testing.T) {
	const n = 200
	scores := make([]float64, n)
	for i := range scores {
		scores[i] = float64(i) / n // a bulk in [0, 1), no two rows tied
	}
	for i := 190; i < n; i++ {
		scores[i] = 10 + float64(i) // ten far rows
	}
	opts := counting(t, 0, "kmeans") // the earlier default, with its interval
	own, err := ruleShares(scores, opts.Count)
	if err != nil {
		t.Fatal(err)
	}
	if len(own) != 1 || own[0] != 10.0/n {
		t.Fatalf("two-means' share %v, want the ten far rows' 0.05", own)
	}
	for _, screen := range [][]float64{nil, {0.01}, {0.2}} {
		thr, iv, err := ensembleThreshold(scores, screen, opts)
		if err != nil {
			t.Fatal(err)
		}
		share := own[0]
		if screen != nil {
			share = max(share, screen[0])
		}
		want := int(share*n + 0.5)
		lo, hi := share*math.Exp(DefaultInterval.Low), min(share*math.Exp(DefaultInterval.High), 1)
		if got := threshold.Count(scores, thr); got != want || len(iv) != 2 || math.Abs(iv[0]-lo) > 1e-15 || math.Abs(iv[1]-hi) > 1e-15 {
			t.Errorf("screen %v: %d rows flagged, interval %v; want %d (the share %g), [%g, %g]", screen, got, iv, want, share, lo, hi)
		}
	}
	for _, rules := range [][]string{{"kmeans", "mad"}, {"mad"}} {
		other := counting(t, 0, rules...)
		if _, iv, err := ensembleThreshold(scores, []float64{0.05, 0.05}[:len(rules)], other); err != nil || iv != nil {
			t.Errorf("%v: interval %v, error %v; want none, nil", rules, iv, err)
		}
	}
	opts = counting(t, 0.1, "kmeans")
	thr, iv, err := ensembleThreshold(scores, []float64{0.02, 0.02}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := threshold.Count(scores, thr); got != 20 || iv != nil {
		t.Errorf("contamination 0.1: %d rows flagged, interval %v; want 20 and none", got, iv)
	}
}

// counting is the ensemble's count configuration of the rules named, as package udocc
// translates Ensemble.Count and Ensemble.Contamination: KMeansInterval for kmeans alone
// without a contamination.
func counting(t *testing.T, contamination float64, names ...string) Config {
	t.Helper()
	cfg := Config{Contamination: contamination, KMeansInterval: contamination == 0 && len(names) == 1 && names[0] == "kmeans"}
	for _, name := range names {
		r, err := threshold.ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Count = append(cfg.Count, r)
	}
	return cfg
}

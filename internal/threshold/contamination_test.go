package threshold

import (
	"strings"
	"testing"
)

func TestContamination(t *testing.T) {
	scores := []float64{5, 1, 4, 2, 3, 3, 0, 9, 8, 7}
	cases := []struct {
		name    string
		c       float64
		flagged int
		err     string
	}{
		{"a fifth flags the two highest", 0.2, 2, ""},
		{"a tiny ratio still flags one row", 0.01, 1, ""},
		{"ties with the last flagged row are flagged with it", 0.6, 7, ""},
		{"every row is refused", 0.99, 0, "flags all 10 rows"},
		{"zero is not a ratio", 0, 0, "want a ratio"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			thr, err := Contamination(scores, c.c)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, l := range Labels(scores, thr) {
				if l {
					n++
				}
			}
			if n != c.flagged {
				t.Errorf("threshold %g flags %d rows, want %d", thr, n, c.flagged)
			}
		})
	}
}

func TestTopCount(t *testing.T) {
	scores := []float64{5, 1, 4, 2, 3, 3, 0, 9, 8, 7}
	for _, c := range []struct{ k, flagged int }{{0, 0}, {1, 1}, {3, 3}, {5, 5}, {6, 7}, {7, 7}, {9, 9}} {
		thr, err := TopCount(scores, c.k)
		if err != nil {
			t.Fatal(err)
		}
		// k = 6 reaches into the tie at 3: both 3s are flagged (the tie rule).
		if got := Count(scores, thr); got != c.flagged {
			t.Errorf("TopCount(%d) = %g flags %d rows, want %d", c.k, thr, got, c.flagged)
		}
	}
	for _, k := range []int{-1, 10} {
		if _, err := TopCount(scores, k); err == nil {
			t.Errorf("TopCount(%d) of 10 rows: no error", k)
		}
	}
	if got := Count(scores, 4.5); got != 4 {
		t.Errorf("Count(> 4.5) = %d, want 4 (5, 7, 8, 9)", got)
	}
}

// TestTopCountTies: a count that cuts inside a block of equal scores flags the block
// whole, whatever its place; one that holds the lowest score flags none of it. Before
// the rule, 30 equal scores with a count of 20 flagged none (issue 47).
func TestTopCountTies(t *testing.T) {
	for _, c := range []struct {
		name    string
		scores  []float64
		k, want int
	}{
		{"30 tied far rows, 20 counted", append(repeat(9, 30), seq(370)...), 20, 30},
		{"tied block in the middle", []float64{1, 2, 5, 5, 5, 8, 9}, 3, 5},
		{"tied block holding the lowest", []float64{4, 4, 4, 4, 7}, 2, 1},
		{"all tied", repeat(1, 10), 3, 0},
		{"count ends at the block's edge", []float64{1, 5, 5, 8}, 3, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			thr, err := TopCount(c.scores, c.k)
			if err != nil {
				t.Fatal(err)
			}
			if got := Count(c.scores, thr); got != c.want {
				t.Errorf("TopCount(%d) = %g flags %d rows, want %d", c.k, thr, got, c.want)
			}
		})
	}
}

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func seq(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i) / float64(n)
	}
	return out
}

func TestTransfer(t *testing.T) {
	from := []float64{1, 2, 3, 4}
	scores := []float64{10, 40, 20, 30}
	// t = 2.5 flags two rows of from (3, 4): the two highest of scores (40, 30) are flagged.
	thr, err := Transfer(scores, from, 2.5)
	if err != nil {
		t.Fatal(err)
	}
	if thr != 20 || Count(scores, thr) != 2 {
		t.Errorf("Transfer(t = 2.5) = %g flagging %d rows, want 20 flagging 2", thr, Count(scores, thr))
	}
	// A cut below every row of from flags them all: at most all rows but one are flagged.
	if thr, err = Transfer(scores, from, 0); err != nil || thr != 10 || Count(scores, thr) != 3 {
		t.Errorf("Transfer(t = 0) = %g, %v flagging %d rows, want 10 flagging 3", thr, err, Count(scores, thr))
	}
}

func TestLarger(t *testing.T) {
	from := []float64{1, 2, 3, 4, 5}
	scores := []float64{10, 50, 20, 40, 30}
	for _, c := range []struct {
		t, tFrom float64
		thr      float64
		flagged  int
		why      string
	}{
		{45, 2.5, 20, 3, "from's count (3, 4, 5) is larger: the three highest scores"},
		{15, 4.5, 10, 4, "scores' own count (20, 30, 40, 50) is larger"},
		{35, 3.5, 30, 2, "the counts tie at 2"},
		{5, 0, 10, 4, "both flag every row: at most all but one"},
		{60, 6, 50, 0, "neither flags a row"},
	} {
		thr, err := Larger(scores, c.t, from, c.tFrom)
		if err != nil {
			t.Fatal(err)
		}
		if thr != c.thr || Count(scores, thr) != c.flagged {
			t.Errorf("Larger(%g, %g) = %g flagging %d rows, want %g flagging %d (%s)", c.t, c.tFrom, thr, Count(scores, thr), c.thr, c.flagged, c.why)
		}
	}
	if _, err := Larger(scores, 1, from[:4], 1); err == nil {
		t.Error("Larger of 5 scores from 4: no error")
	}
}

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
		{"ties with the last flagged row are not flagged", 0.6, 5, ""},
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

package dynamics

import (
	"math"
	"slices"
	"testing"
)

func TestTAR(t *testing.T) {
	tests := []struct {
		name   string
		n      int
		ratio  float64
		scores []float64
		labels []bool
		thr    float64
		// flagged is how many rows Label flags where a tie at the cut makes it other
		// than k (-1: none); 0 means k.
		flagged int
	}{
		{
			// 15 anomalies of 22 rows: (15/22)·22 is 14.999999999999998, so a floor
			// would flag 14.
			name: "ratio from a count", n: 22, ratio: 15.0 / 22,
		},
		{
			name: "top ratio flagged", n: 5, ratio: 0.4,
			scores: []float64{0.5, 0.1, 0.9, 0.3, 0.7},
			labels: []bool{false, false, true, false, true},
			thr:    0.6, // between 0.5 (rank 3) and 0.7 (rank 4)
		},
		{
			// Training splits the tie by row index (the next epoch trains on rows 0, 1
			// and 3); the labels flag the tied block whole, as Predict does with thr.
			name: "equal scores on the cut flagged whole", n: 4, ratio: 0.25,
			scores: []float64{1, 2, 2, 0},
			labels: []bool{false, true, true, false},
			thr:    1.5, flagged: 2,
		},
		{
			name: "a tie that holds the lowest score is not flagged", n: 4, ratio: 0.5,
			scores: []float64{3, 3, 3, 3},
			labels: []bool{false, false, false, false},
			thr:    3, flagged: -1,
		},
		{
			name: "ratio 0 flags nothing", n: 3, ratio: 0,
			scores: []float64{3, 1, 2},
			labels: []bool{false, false, false},
			thr:    math.Inf(1),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewTAR(tt.n, tt.ratio)
			if err != nil {
				t.Fatal(err)
			}
			scores := tt.scores
			if scores == nil {
				scores = toyScores(1, tt.n, 0, 1, 1)[0]
			}
			if _, _, err := s.Next(1, scores); err != nil {
				t.Fatal(err)
			}
			mask, rec, err := s.Next(2, scores)
			if err != nil {
				t.Fatal(err)
			}
			labels, thr, err := s.Label(scores)
			if err != nil {
				t.Fatal(err)
			}
			k := int(math.Round(tt.ratio * float64(tt.n)))
			want := k
			switch {
			case tt.flagged > 0:
				want = tt.flagged
			case tt.flagged < 0:
				want = 0
			}
			if got := count(labels); got != want || rec.NextTrainSize != tt.n-k || rec.SelectedRatio != float64(k)/float64(tt.n) {
				t.Fatalf("flags %d rows, record %+v; want %d flagged", got, rec, want)
			}
			for i := range mask {
				if want != k {
					break // a tie at the cut: training splits it by row index, the labels do not
				}
				if mask[i] == labels[i] {
					t.Fatalf("row %d: trained on and flagged alike (%v)", i, mask[i])
				}
			}
			if tt.labels != nil && (!slices.Equal(labels, tt.labels) || thr != tt.thr || rec.Threshold != thr) {
				t.Errorf("Label = %v, %v (record %v); want %v, %v", labels, thr, rec.Threshold, tt.labels, tt.thr)
			}
		})
	}
}

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
			name: "equal scores on the cut split by row index", n: 4, ratio: 0.25,
			scores: []float64{1, 2, 2, 0},
			labels: []bool{false, false, true, false},
			thr:    2,
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
			if got := count(labels); got != k || rec.NextTrainSize != tt.n-k || rec.SelectedRatio != float64(k)/float64(tt.n) {
				t.Fatalf("flags %d rows, record %+v; want %d flagged", got, rec, k)
			}
			for i := range mask {
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

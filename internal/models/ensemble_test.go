package models

import (
	"testing"
)

func TestFitScale(t *testing.T) {
	for _, c := range []struct {
		name string
		s    []float64
		want Scale
	}{
		// median 3; |s−3| = 2,1,0,1,97 → MAD 1
		{"odd length, one outlier", []float64{1, 2, 3, 4, 100}, Scale{3, 1}},
		// median 2.5; |s−2.5| = 1.5,0.5,0.5,1.5 → MAD 1
		{"even length", []float64{4, 1, 3, 2}, Scale{2.5, 1}},
		// median 5; |s−5| = 0,0,0,4 → MAD 0, mean absolute deviation 1
		{"MAD 0 falls back to the mean deviation", []float64{5, 5, 5, 9}, Scale{5, 1}},
		{"constant falls back to 1", []float64{7, 7, 7}, Scale{7, 1}},
		{"empty", nil, Scale{0, 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := FitScale(c.s); got != c.want {
				t.Errorf("FitScale(%v) = %+v, want %+v", c.s, got, c.want)
			}
		})
	}
}

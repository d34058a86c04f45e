package dynamics

import (
	"errors"
	"math"
	"slices"
	"testing"
)

func TestQuantile(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		q    float64
		want float64
	}{
		// numpy.quantile documentation: a = [[10, 7, 4], [3, 2, 1]], np.quantile(a, 0.5)
		// is 3.5 and np.quantile(a, 0.5, axis=0) is [6.5, 4.5, 2.5].
		{"numpy docs, flattened", []float64{10, 7, 4, 3, 2, 1}, 0.5, 3.5},
		{"numpy docs, column 0", []float64{10, 3}, 0.5, 6.5},
		{"numpy docs, column 1", []float64{7, 2}, 0.5, 4.5},
		{"numpy docs, column 2", []float64{4, 1}, 0.5, 2.5},
		// Printed numpy outputs in tutorials: np.quantile(np.arange(8), [.25, .5, .75])
		// is 1.75 3.5 5.25; np.quantile([20, 2, 7, 1, 34], q) is 7, 2, 20, 1.4 for
		// q = .5, .25, .75, .1.
		{"arange(8) q=.25", []float64{0, 1, 2, 3, 4, 5, 6, 7}, 0.25, 1.75},
		{"arange(8) q=.5", []float64{0, 1, 2, 3, 4, 5, 6, 7}, 0.5, 3.5},
		{"arange(8) q=.75", []float64{0, 1, 2, 3, 4, 5, 6, 7}, 0.75, 5.25},
		{"five values q=.5", []float64{20, 2, 7, 1, 34}, 0.5, 7},
		{"five values q=.25", []float64{20, 2, 7, 1, 34}, 0.25, 2},
		{"five values q=.75", []float64{20, 2, 7, 1, 34}, 0.75, 20},
		{"five values q=.1", []float64{20, 2, 7, 1, 34}, 0.1, 1.4},
		{"q = 0 is the minimum", []float64{3, -1, 2}, 0, -1},
		{"q = 1 is the maximum", []float64{3, -1, 2}, 1, 3},
		{"one value", []float64{4}, 0.3, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.xs)
			got, err := Quantile(in, tt.q)
			if err != nil || got != tt.want {
				t.Errorf("Quantile(%v, %v) = %v, %v; want %v", tt.xs, tt.q, got, err, tt.want)
			}
			if !slices.Equal(in, tt.xs) {
				t.Errorf("Quantile modified its input: %v", in)
			}
		})
	}
}

func TestQuantileErrors(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		q    float64
		want error
	}{
		{"empty", nil, 0.5, ErrTooFewRows},
		{"q above 1", []float64{1}, 1.5, ErrOption},
		{"q NaN", []float64{1}, math.NaN(), ErrOption},
		{"NaN value", []float64{1, math.NaN()}, 0.5, ErrNonFinite},
		{"Inf value", []float64{1, math.Inf(-1)}, 0.5, ErrNonFinite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Quantile(tt.xs, tt.q); !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

package dynamics

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// TestQuantile checks that Quantile sorts a copy of its input: the values themselves are
// stats.QuantileNumPy's, tested there.
func TestQuantile(t *testing.T) {
	// np.quantile([20, 2, 7, 1, 34], q) is 7, 2, 20, 1.4 for q = .5, .25, .75, .1.
	xs := []float64{20, 2, 7, 1, 34}
	for _, c := range []struct{ q, want float64 }{{0.5, 7}, {0.25, 2}, {0.75, 20}, {0.1, 1.4}} {
		in := slices.Clone(xs)
		if got, err := Quantile(in, c.q); err != nil || got != c.want {
			t.Errorf("Quantile(%v, %v) = %v, %v; want %v", xs, c.q, got, err, c.want)
		}
		if !slices.Equal(in, xs) {
			t.Errorf("Quantile modified its input: %v", in)
		}
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

package dynamics

import (
	"fmt"
	"math"
	"slices"
)

// Quantile returns the q-quantile of xs with numpy's default ("linear") interpolation:
// with xs sorted ascending, h = (n−1)·q, j = ⌊h⌋ and g = h − j, it is
// xs[j] + g·(xs[j+1] − xs[j]), with the float operations of numpy's _lerp (from the
// upper end when g ≥ 0.5). Soft-boundary Deep SVDD's radius is R = Quantile of the
// square-rooted distances ‖φ(x)−c‖ at q = 1−ν, as Ruff's get_radius computes it (with
// interpolation, R² is not the (1−ν)-quantile of the squared distances).
//
// xs is not modified. Empty xs returns ErrTooFewRows, non-finite values ErrNonFinite, and
// q outside [0, 1] ErrOption.
func Quantile(xs []float64, q float64) (float64, error) {
	if !(q >= 0 && q <= 1) {
		return 0, fmt.Errorf("dynamics: quantile %v outside [0, 1]: %w", q, ErrOption)
	}
	if len(xs) == 0 {
		return 0, fmt.Errorf("dynamics: quantile of no values: %w", ErrTooFewRows)
	}
	if err := checkScores(len(xs), xs); err != nil {
		return 0, err
	}
	s := slices.Sorted(slices.Values(xs))
	h := float64(len(s)-1) * q
	j := int(math.Floor(h))
	if j >= len(s)-1 {
		return s[len(s)-1], nil
	}
	g := h - float64(j)
	a, b := s[j], s[j+1]
	if g >= 0.5 {
		return b - (b-a)*(1-g), nil
	}
	return a + (b-a)*g, nil
}

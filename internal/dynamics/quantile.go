package dynamics

import (
	"fmt"
	"slices"

	"github.com/udocc/udocc/internal/stats"
)

// Quantile returns the q-quantile of xs with numpy's default ("linear") interpolation and
// its rounding (stats.QuantileNumPy of xs sorted). Soft-boundary Deep SVDD's radius is R = Quantile of the
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
	return stats.QuantileNumPy(slices.Sorted(slices.Values(xs)), q), nil
}

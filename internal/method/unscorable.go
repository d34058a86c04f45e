package method

import (
	"errors"
	"fmt"
	"math"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/scale"
)

// ErrUnscorable reports a row whose score is not a finite number: a value so far from
// the training rows (in the training scale) that the float32 networks overflow on it,
// such as 1e19 or ±3.4e38 in a column of values near 1. A row is never given a NaN or
// infinite score; the error names it and its farthest column.
var ErrUnscorable = errors.New("a value lies too far outside the training range to be scored in float32")

// unscorable is the error for row i of ds, whose what is v; the row's farthest value
// from the training center, in training scales, is named where ds holds the row (a
// data-parallel rank holds its block only: local is false).
func unscorable(sc *scale.Scaler, ds *data.Dataset, local bool, i int, what string, v float64) error {
	far := ""
	if local && i < ds.N {
		best, bj := -1.0, 0
		for j, x := range ds.X[i*ds.D : (i+1)*ds.D] {
			if z := math.Abs((float64(x) - sc.Mean[j]) / sc.Scale[j]); z > best || math.IsNaN(z) {
				best, bj = z, j
			}
		}
		name := fmt.Sprintf("x%d", bj+1)
		if bj < len(ds.Features) {
			name = ds.Features[bj]
		}
		far = fmt.Sprintf(" (column %q holds %g, %.3g training scales from its training center %.4g)",
			name, ds.X[i*ds.D+bj], best, sc.Mean[bj])
	}
	return fmt.Errorf("udocc: row %d (1-based, as scores.csv numbers rows): %s is %v%s: %w; remove the row or correct the value",
		i+1, what, v, far, ErrUnscorable)
}

// checkScored refuses the first row whose member distances, reconstruction errors or
// combined score (scores, when not nil) are not finite numbers.
func checkScored(sc *scale.Scaler, ds *data.Dataset, local bool, dist, rec [][]float32, scores []float64) error {
	for _, part := range []struct {
		xs   [][]float32
		what string
	}{{dist, "member %d's distance"}, {rec, "member %d's reconstruction error"}} {
		for k, xs := range part.xs {
			for i, v := range xs {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					return unscorable(sc, ds, local, i, fmt.Sprintf(part.what, k), float64(v))
				}
			}
		}
	}
	for i, v := range scores {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return unscorable(sc, ds, local, i, "the score", v)
		}
	}
	return nil
}

// checkStandardised refuses the first value of x, rows lo.. of ds standardised, that
// is not a finite float32 (a value far outside the training range overflows there).
func checkStandardised(sc *scale.Scaler, ds *data.Dataset, lo int, x []float32) error {
	for p, v := range x {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return unscorable(sc, ds, true, lo+p/ds.D, "its value in the training scale", float64(v))
		}
	}
	return nil
}

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

// UnscorableError is ErrUnscorable at a row: the first of a scored table whose score is
// not a finite number, and the column whose value lies farthest from its training
// center, in training scales, where the table holds the row.
type UnscorableError struct {
	Row    int     // 1-based, as scores.csv numbers rows
	What   string  // what is not finite: "the score", "member 2's distance", …
	Result float64 // its value: NaN or ±Inf
	// Column is the farthest column's name ("x3" where the table names none) and Index
	// its 1-based position; "" and 0 where the table does not hold the row (a rank of a
	// data-parallel fit holds its block only).
	Column string
	Index  int
	Value  float64 // the farthest column's value
	Scales float64 // how many training scales Value lies from Center
	Center float64 // the column's training center (mean)
}

func (e *UnscorableError) Error() string {
	far := ""
	if e.Index > 0 {
		// The value as the table holds it: a float32.
		far = fmt.Sprintf(" (column %q holds %g, %.3g training scales from its training center %.4g)", e.Column, float32(e.Value), e.Scales, e.Center)
	}
	return fmt.Sprintf("udocc: row %d (1-based, as scores.csv numbers rows): %s is %v%s: %v; remove the row or correct the value",
		e.Row, e.What, e.Result, far, ErrUnscorable)
}

// Is reports ErrUnscorable as the error's kind.
func (e *UnscorableError) Is(target error) bool { return target == ErrUnscorable }

// unscorable is the error for row i of ds, whose what is v; the row's farthest value
// from the training center, in training scales, is named where ds holds the row (a
// data-parallel rank holds its block only: local is false).
func unscorable(sc *scale.Scaler, ds *data.Dataset, local bool, i int, what string, v float64) error {
	e := &UnscorableError{Row: i + 1, What: what, Result: v}
	if local && i < ds.N {
		best, bj := -1.0, 0
		for j, x := range ds.X[i*ds.D : (i+1)*ds.D] {
			if z := math.Abs((float64(x) - sc.Mean[j]) / sc.Scale[j]); z > best || math.IsNaN(z) {
				best, bj = z, j
			}
		}
		e.Column, e.Index = fmt.Sprintf("x%d", bj+1), bj+1
		if bj < len(ds.Features) {
			e.Column = ds.Features[bj]
		}
		e.Value, e.Scales, e.Center = float64(ds.X[i*ds.D+bj]), best, sc.Mean[bj]
	}
	return e
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

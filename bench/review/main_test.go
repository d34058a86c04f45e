package main

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/udocc/udocc/internal/review"
)

// TestHalfOracle checks halfOracle's prior: the fixed coordinate's marginal is own's,
// and the other coordinate's conditional given it is held's.
func TestHalfOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func() []float64 {
		w := make([]float64, review.CurvePairs)
		s := 0.0
		for i := range w {
			w[i] = rng.Float64()
			s += w[i]
		}
		for i := range w {
			w[i] /= s
		}
		return w
	}
	own, held := random(), random()
	R := review.CurveCeilings
	S := review.CurvePairs / R
	for _, bySlope := range []bool{true, false} {
		out := halfOracle(own, held, bySlope)
		outer, inner := R, S // fixed: the ceiling
		at := func(fixed, other int) int { return other*R + fixed }
		if bySlope {
			outer, inner = S, R
			at = func(fixed, other int) int { return fixed*R + other }
		}
		for f := range outer {
			var mOut, mOwn, mHeld float64
			for o := range inner {
				mOut += out[at(f, o)]
				mOwn += own[at(f, o)]
				mHeld += held[at(f, o)]
			}
			if math.Abs(mOut-mOwn) > 1e-12 {
				t.Fatalf("bySlope %v: marginal %d is %g, want own's %g", bySlope, f, mOut, mOwn)
			}
			for o := range inner {
				got, want := out[at(f, o)]/mOut, held[at(f, o)]/mHeld
				if math.Abs(got-want) > 1e-12 {
					t.Fatalf("bySlope %v: conditional (%d, %d) is %g, want held's %g", bySlope, f, o, got, want)
				}
			}
		}
	}
}

package models

import (
	"math/rand/v2"
	"testing"
)

// TestFitNormal: each feature's median and spread are FitScale's of its column, at any
// thread count and for widths around FitNormal's block of features.
func TestFitNormal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, d := range []int{1, normalBlock - 1, normalBlock, normalBlock + 1, 3*normalBlock + 5} {
		m := 37
		x := make([]float32, m*d)
		for i := range x {
			x[i] = float32(rng.ExpFloat64())
			if i%7 == 0 {
				x[i] = 0 // ties
			}
		}
		for _, threads := range []int{1, 2, 3} {
			nr := FitNormal(x, m, d, threads)
			for j := 0; j < d; j++ {
				col := make([]float64, m)
				for i := range col {
					col[i] = float64(x[i*d+j])
				}
				if sc := FitScale(col); nr.Median[j] != sc.Median || nr.Spread[j] != sc.Spread {
					t.Fatalf("d %d, %d threads, feature %d: %v, %v; FitScale of the column %v, %v", d, threads, j, nr.Median[j], nr.Spread[j], sc.Median, sc.Spread)
				}
			}
		}
	}
}

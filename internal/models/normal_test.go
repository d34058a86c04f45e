package models

import (
	"math/rand/v2"
	"testing"
)

// TestFitNormal: each feature's median and spread are FitScale's of its column, at any
// thread count and for widths around FitNormal's block of features, whose width shrinks
// where many rows would hold more than normalValues at once.
func TestFitNormal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct{ d, m int }{{1, 37}, {normalBlock - 1, 37}, {normalBlock, 37}, {normalBlock + 1, 37}, {3*normalBlock + 5, 37},
		{normalBlock + 3, normalValues / 25}} { // the last: blocks of fewer features, 12 at 2 threads
		d, m := c.d, c.m
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

package stats

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestTwoClassSplit(t *testing.T) {
	tests := []struct {
		name string
		x    []float64
		want int
	}{
		{"two clear groups", []float64{0, 1, 10, 11}, 2},
		{"one high value", []float64{0, 0, 0, 10}, 3},
		// k = 1 and k = 2 both give k·(n−k)·(μ₀ − μ₁)² = 4.5: the first wins.
		{"an exact tie goes to the first cut", []float64{0, 1, 2}, 1},
		{"cuts fall only between distinct values", []float64{0, 5, 5, 5, 6}, 1},
		{"all equal: no cut", []float64{3, 3, 3}, 0},
		{"one value: no cut", []float64{3}, 0},
		{"no values: no cut", nil, 0},
	}
	for _, tt := range tests {
		for sums, about := range []string{AboutMedian: "about the median", AboutMean: "about the mean"} {
			t.Run(tt.name+", "+about, func(t *testing.T) {
				if got := TwoClassSplit(tt.x, Sums(sums)); got != tt.want {
					t.Errorf("TwoClassSplit(%v, %s) = %d, want %d", tt.x, about, got, tt.want)
				}
			})
		}
	}
}

// TestTwoClassSplitSums shows the two sums parting on a tie that holds in the reals but
// not in floating point: 0.2, 0.8, 1.4000000000000001 are nearly evenly spaced.
func TestTwoClassSplitSums(t *testing.T) {
	x := []float64{0.2, 0.8, 1.4000000000000001}
	if got := TwoClassSplit(x, AboutMedian); got != 1 {
		t.Errorf("about the median: cut %d, want 1", got)
	}
	if got := TwoClassSplit(x, AboutMean); got != 2 {
		t.Errorf("about the mean: cut %d, want 2", got)
	}
}

// TestTwoClassSplitOptimal checks both sums against every cut's between-class variance
// computed exactly (in rationals), on random values: the cut found is within 1e-12
// (relative) of the best one.
func TestTwoClassSplitOptimal(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 200; trial++ {
		n := 2 + r.IntN(40)
		x := make([]float64, n)
		for i := range x {
			x[i] = 1e3 + r.NormFloat64()
			if r.IntN(5) == 0 {
				x[i] += 6
			}
		}
		slices.Sort(x)
		best := new(big.Rat)
		for k := 1; k < n; k++ {
			if v := between(x, k); v.Cmp(best) > 0 {
				best = v
			}
		}
		for _, sums := range []Sums{AboutMedian, AboutMean} {
			k := TwoClassSplit(x, sums)
			got, _ := between(x, k).Float64()
			want, _ := best.Float64()
			if got < want*(1-1e-12) {
				t.Fatalf("%v, sums %v: cut %d gives %v, the best cut %v", x, sums, k, got, want)
			}
		}
	}
}

// between is k·(n−k)·(μ₀ − μ₁)² of the cut k of x, exactly.
func between(x []float64, k int) *big.Rat {
	n := len(x)
	lo, hi := new(big.Rat), new(big.Rat)
	for i, v := range x {
		r := new(big.Rat).SetFloat64(v)
		if i < k {
			lo.Add(lo, r)
		} else {
			hi.Add(hi, r)
		}
	}
	d := new(big.Rat).Sub(lo.Quo(lo, big.NewRat(int64(k), 1)), hi.Quo(hi, big.NewRat(int64(n-k), 1)))
	d.Mul(d, d)
	return d.Mul(d, big.NewRat(int64(k*(n-k)), 1))
}

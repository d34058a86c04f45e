package dynamics

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// intraVariance is n·(w₀σ₀² + w₁σ₁²) for the cut of sorted x before index k, from the
// definition: the squared deviations from each class mean, two passes.
func intraVariance(x []float64, k int) float64 {
	ss := 0.0
	for _, class := range [][]float64{x[:k], x[k:]} {
		mean := 0.0
		for _, v := range class {
			mean += v
		}
		mean /= float64(len(class))
		for _, v := range class {
			ss += (v - mean) * (v - mean)
		}
	}
	return ss
}

// otsuSlow tries every cut between distinct sorted values: O(n²). It returns the index of
// the best cut (0 when there is none) and the intra-class variance of every cut.
func otsuSlow(scores []float64) (int, map[int]float64) {
	x := slices.Sorted(slices.Values(scores))
	best, cut := math.Inf(1), 0
	all := map[int]float64{}
	for k := 1; k < len(x); k++ {
		if x[k-1] == x[k] {
			continue
		}
		all[k] = intraVariance(x, k)
		if all[k] < best {
			best, cut = all[k], k
		}
	}
	return cut, all
}

func TestOtsuThreshold(t *testing.T) {
	tests := []struct {
		name   string
		scores []float64
		want   float64
	}{
		{"two clusters", []float64{11, 1, 2, 3, 10, 12}, 6.5},
		{"two values", []float64{4, 2, 4, 2, 2}, 3},
		{"far outlier takes the cut (the paper's OC+Otsu remark)", []float64{0, 0.25, 0.5, 0.75, 1, 100}, 50.5},
		{"one value: no cut", []float64{5, 5, 5}, math.Inf(1)},
		{"one row: no cut", []float64{5}, math.Inf(1)},
		{"adjacent floats: t stays below b", []float64{1, 1, math.Nextafter(1, 2), math.Nextafter(1, 2)}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := OtsuThreshold(tt.scores)
			if err != nil || got != tt.want {
				t.Errorf("OtsuThreshold(%v) = %v, %v; want %v", tt.scores, got, err, tt.want)
			}
		})
	}
	if _, err := OtsuThreshold([]float64{1, math.NaN()}); !errors.Is(err, ErrNonFinite) {
		t.Errorf("NaN: err = %v, want ErrNonFinite", err)
	}
}

// TestOtsuMatchesBruteForce compares the prefix-sum Otsu with trying every cut, on random
// data with many ties, with a large offset, and on continuous mixtures.
func TestOtsuMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for rep := range 2000 {
		n := 2 + rng.IntN(60)
		if rep%97 == 0 { // every kind of data, at a size where rounding accumulates
			n = 1500
		}
		scores := make([]float64, n)
		levels, offset := 1+rng.IntN(20), []float64{0, 1e6, -3}[rep%3]
		for i := range scores {
			switch rep % 4 {
			case 0, 1: // integers: ties everywhere
				scores[i] = offset + float64(rng.IntN(levels))
			case 2: // a two-component mixture
				scores[i] = offset + rng.NormFloat64() + 4*float64(rng.IntN(2))
			case 3: // heavy tail
				scores[i] = rng.ExpFloat64() * rng.ExpFloat64()
			}
		}
		got, err := OtsuThreshold(scores)
		if err != nil {
			t.Fatal(err)
		}
		cut, all := otsuSlow(scores)
		x := slices.Sorted(slices.Values(scores))
		if cut == 0 {
			if !math.IsInf(got, 1) {
				t.Fatalf("rep %d: no cut exists, got %v", rep, got)
			}
			continue
		}
		// The cut the fast version chose: the number of scores at or below its threshold.
		k, _ := slices.BinarySearch(x, math.Nextafter(got, math.Inf(1)))
		v, ok := all[k]
		if !ok || x[k-1] > got || got >= x[k] {
			t.Fatalf("rep %d: threshold %v is not between two distinct sorted scores", rep, got)
		}
		best := all[cut]
		if v > best*(1+1e-9)+1e-12 {
			t.Fatalf("rep %d: intra-class variance %v at cut %d, brute force %v at cut %d", rep, v, k, best, cut)
		}
		// Where no other cut comes within rounding of the best, both pick the same one.
		unique := true
		for j, w := range all {
			unique = unique && (j == cut || w > best*(1+1e-9)+1e-12)
		}
		if unique && k != cut {
			t.Fatalf("rep %d: cut %d, brute force %d", rep, k, cut)
		}
	}
}

func TestOtsuSelector(t *testing.T) {
	o, err := NewOtsu(6)
	if err != nil {
		t.Fatal(err)
	}
	epochs := []struct {
		scores  []float64
		mask    []bool
		floored bool
		thr     float64
	}{
		{[]float64{5, 1, 2, 3, 4, 6}, []bool{true, true, true, true, true, true}, false, math.NaN()},
		{[]float64{11, 1, 2, 3, 10, 12}, []bool{false, true, true, true, false, false}, false, 6.5},
		// The lower class {0} has one row: the two lowest ranks are trained on instead.
		{[]float64{10, 0, 10.1, 10.2, 10.3, 10.4}, []bool{true, true, false, false, false, false}, true, 5},
	}
	for e, ep := range epochs {
		mask, rec, err := o.Next(e+1, ep.scores)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(mask, ep.mask) || rec.Floored != ep.floored ||
			rec.Threshold != ep.thr && !(math.IsNaN(rec.Threshold) && math.IsNaN(ep.thr)) {
			t.Errorf("epoch %d: mask %v, record %+v; want %v floored=%v threshold %v", e+1, mask, rec, ep.mask, ep.floored, ep.thr)
		}
	}
}

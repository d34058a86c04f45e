package torch

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func denseRand(n int, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	return x
}

// TestGram checks x·xᵀ against float64 sums, that it is symmetric bit for bit, and the
// same bits at one and three threads.
func TestGram(t *testing.T) {
	const r, c = 150, 300 // tiles of 64 rows and blocks of 128 columns, each with a remainder
	x := denseRand(r*c, 1)
	end := WithThreads(1)
	one, err := Gram(x, r, c)
	end()
	if err != nil {
		t.Fatal(err)
	}
	end = WithThreads(3)
	three, err := Gram(x, r, c)
	end()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(one, three) {
		t.Error("the Gram matrix differs between one and three threads")
	}
	for i := 0; i < r; i++ {
		for j := 0; j < i; j++ {
			if math.Float64bits(one[i*r+j]) != math.Float64bits(one[j*r+i]) {
				t.Fatalf("(%d, %d) is %v, (%d, %d) %v: not symmetric", i, j, one[i*r+j], j, i, one[j*r+i])
			}
		}
	}
	for i := 0; i < r; i++ {
		for j := 0; j < r; j++ {
			var want, size float64
			for k := 0; k < c; k++ {
				p := float64(x[i*c+k]) * float64(x[j*c+k])
				want += p
				size += math.Abs(p)
			}
			if got := one[i*r+j]; math.Abs(got-want) > 1e-6*size {
				t.Fatalf("(%d, %d): %v, want %v", i, j, got, want)
			}
		}
	}
	if _, err := Gram(x, r, c+1); err == nil {
		t.Error("Gram took a matrix of the wrong size")
	}
}

// TestRowsProduct checks both forms against float64 sums, and that a row's values are a
// function of the row alone: the same bits scored alone, within a block, at another
// place and at another thread count.
func TestRowsProduct(t *testing.T) {
	const n, k, q = 70, 90, 40
	x, b := denseRand(n*k, 2), denseRand(q*k, 3)
	for _, bT := range []bool{true, false} {
		end := WithThreads(2)
		all, err := RowsProduct(x, n, k, b, q, bT)
		end()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			for j := 0; j < q; j++ {
				var want, size float64
				for l := 0; l < k; l++ {
					bv := b[l*q+j] // b is k × q
					if bT {
						bv = b[j*k+l] // b is q × k
					}
					p := float64(x[i*k+l]) * float64(bv)
					want += p
					size += math.Abs(p)
				}
				if got := float64(all[i*q+j]); math.Abs(got-want) > 1e-5*size {
					t.Fatalf("bT %v, (%d, %d): %v, want %v", bT, i, j, got, want)
				}
			}
		}
		for _, i := range []int{0, 63, 64, 69} {
			one, err := RowsProduct(x[i*k:(i+1)*k], 1, k, b, q, bT)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(one, all[i*q:(i+1)*q]) {
				t.Errorf("bT %v: row %d alone differs from the row among %d", bT, i, n)
			}
		}
		tail, err := RowsProduct(x[5*k:], n-5, k, b, q, bT) // every row at another place in its block
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(tail, all[5*q:]) {
			t.Errorf("bT %v: rows 5.. differ when the call starts at row 5", bT)
		}
	}
	if _, err := RowsProduct(x, n, k, b[1:], q, true); err == nil {
		t.Error("RowsProduct took a matrix of the wrong size")
	}
}

package synth

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// rowsOf returns the rows of x (row-major, d columns) whose label is want,
// each rendered as an exact string, sorted.
func rowsOf[F float32 | float64](x []F, y []int, d, want int) []string {
	var rows []string
	for i, yi := range y {
		if yi == want {
			rows = append(rows, fmt.Sprint(x[i*d:(i+1)*d]))
		}
	}
	slices.Sort(rows)
	return rows
}

// sameMultiset reports whether two sorted row lists are equal.
func sameMultiset(a, b []string) bool { return slices.Equal(a, b) }

// gaussianRows returns n rows drawn from N(mean, LLᵀ), L lower triangular
// given row-major d×d.
func gaussianRows(rng *rand.Rand, n int, mean, l []float64) []float64 {
	d := len(mean)
	x := make([]float64, 0, n*d)
	z := make([]float64, d)
	for i := 0; i < n; i++ {
		for j := range z {
			z[j] = rng.NormFloat64()
		}
		for j := 0; j < d; j++ {
			v := mean[j]
			for k := 0; k <= j; k++ {
				v += l[j*d+k] * z[k]
			}
			x = append(x, v)
		}
	}
	return x
}

// rowsWith returns the rows of x labelled want, row-major.
func rowsWith(x []float64, y []int, d, want int) []float64 {
	var out []float64
	for i, yi := range y {
		if yi == want {
			out = append(out, x[i*d:(i+1)*d]...)
		}
	}
	return out
}

// column returns column j of the row-major matrix x with d columns.
func column(x []float64, d, j int) []float64 {
	c := make([]float64, len(x)/d)
	for i := range c {
		c[i] = x[i*d+j]
	}
	return c
}

// f32 is x as a data.Dataset holds it.
func f32(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

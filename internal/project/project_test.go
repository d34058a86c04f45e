package project

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/udocc/udocc/internal/torch"
)

// lowRank is m rows of d columns: 6 latent directions of decaying scale plus noise.
func lowRank(m, d int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	basis := make([][]float64, 6)
	for i := range basis {
		basis[i] = make([]float64, d)
		for j := range basis[i] {
			basis[i][j] = rng.NormFloat64()
		}
	}
	x := make([]float64, m*d)
	for r := 0; r < m; r++ {
		for i, b := range basis {
			f := rng.NormFloat64() * 10 / float64(i+1)
			for j := range b {
				x[r*d+j] += f * b[j]
			}
		}
		for j := 0; j < d; j++ {
			x[r*d+j] += 0.1 * rng.NormFloat64()
		}
	}
	return x
}

// TestFitFindsTheLeadingDirections: on rows of six latent directions and noise, the
// randomised fit's components are orthonormal and each of the six is, up to sign, the
// exact SVD's (|cosine| above 0.999); a second fit with the seed gives the same bits.
func TestFitFindsTheLeadingDirections(t *testing.T) {
	for _, shape := range [][2]int{{300, 800}, {900, 350}} {
		m, d := shape[0], shape[1]
		x := lowRank(m, d, 3)
		p, err := Fit(x, m, d, 6, 7)
		if err != nil {
			t.Fatal(err)
		}
		a := mat.NewDense(m, d, slices.Clone(x))
		for j := 0; j < d; j++ {
			var mean float64
			for i := 0; i < m; i++ {
				mean += a.At(i, j)
			}
			for i := 0; i < m; i++ {
				a.Set(i, j, a.At(i, j)-mean/float64(m))
			}
		}
		var svd mat.SVD
		if !svd.Factorize(a, mat.SVDThin) {
			t.Fatal("exact SVD failed")
		}
		var v mat.Dense
		svd.VTo(&v)
		for i := 0; i < 6; i++ {
			var dot, norm float64
			for j := 0; j < d; j++ {
				c := float64(p.Components[i*d+j])
				dot += c * v.At(j, i)
				norm += c * c
			}
			if math.Abs(norm-1) > 1e-5 || math.Abs(math.Abs(dot)-1) > 1e-3 {
				t.Errorf("%d × %d: component %d: norm² %.6f, |cosine| with the exact one %.6f", m, d, i, norm, math.Abs(dot))
			}
			for k := 0; k < i; k++ {
				var o float64
				for j := 0; j < d; j++ {
					o += float64(p.Components[i*d+j]) * float64(p.Components[k*d+j])
				}
				if math.Abs(o) > 1e-5 {
					t.Errorf("components %d and %d: dot %.2g", k, i, o)
				}
			}
		}
		again, err := Fit(x, m, d, 6, 7)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(again.Components, p.Components) {
			t.Error("a second fit with the same seed gives other components")
		}
	}
}

// TestApply: Apply is the rows times the components' transpose.
func TestApply(t *testing.T) {
	p := &Projection{K: 2, D: 3, Components: []float32{1, 0, 0, 0, 0.5, 0.75}}
	out := make([]float32, 4)
	p.Apply(out, []float32{1, 2, 3, -1, 0, 5}, 2)
	if want := []float32{1, 3.25, -1, 3.75}; !slices.Equal(out, want) {
		t.Errorf("Apply: %v, want %v", out, want)
	}
	col := make([]float32, 2)
	p.Column(2, col)
	if want := []float32{0, 0.75}; !slices.Equal(col, want) {
		t.Errorf("Column 2: %v, want %v", col, want)
	}
}

// TestValidate: a projection of the wrong shape or with a non-finite value is refused.
func TestValidate(t *testing.T) {
	for name, p := range map[string]*Projection{
		"short":   {K: 2, D: 3, Components: []float32{1, 0, 0}},
		"NaN":     {K: 1, D: 2, Components: []float32{float32(math.NaN()), 0}},
		"too big": {K: 1, D: 2, Components: []float32{3, 0}},
		"no k":    {K: 0, D: 2},
		// K·D overflows int64 to 0: the claim is refused before its product is trusted.
		"a claim the values do not hold": {K: 1 << 32, D: 1 << 32},
	} {
		if err := p.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := Fit(nil, 0, 3, 2, 1); err == nil {
		t.Error("Fit of no rows: no error")
	}
}

// TestFitFewRows: with fewer rows than the components asked for, K is capped at the rows
// (the subspace iteration's start then has as many columns as rows), and the components
// are orthonormal and the same bits at one and three threads.
func TestFitFewRows(t *testing.T) {
	const m, d = 5, 400
	x := lowRank(m, d, 9)
	var runs [2]*Projection
	for i, threads := range []int{1, 3} {
		end := torch.WithThreads(threads)
		p, err := Fit(x, m, d, 32, 3)
		end()
		if err != nil {
			t.Fatal(err)
		}
		runs[i] = p
	}
	p := runs[0]
	if p.K != m || p.D != d {
		t.Fatalf("K %d, D %d: want %d, %d", p.K, p.D, m, d)
	}
	if !slices.Equal(runs[0].Components, runs[1].Components) {
		t.Error("the components differ between one and three threads")
	}
	// The centred rows span m − 1 directions: those components are unit vectors, and
	// orthogonal to each other.
	for i := 0; i < m-1; i++ {
		for k := 0; k <= i; k++ {
			var dot float64
			for j := 0; j < d; j++ {
				dot += float64(p.Components[i*d+j]) * float64(p.Components[k*d+j])
			}
			want := 0.0
			if i == k {
				want = 1
			}
			if math.Abs(dot-want) > 1e-5 {
				t.Errorf("components %d and %d: dot %.6f, want %v", k, i, dot, want)
			}
		}
	}
}

// TestApplyOneChainEach: Apply, which sums four components side by side, gives the bits
// of summing each component alone in the columns' order, for K around the four.
func TestApplyOneChainEach(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, k := range []int{1, 3, 4, 5, 8, 9, 32} {
		d, n := 37, 5
		p := &Projection{K: k, D: d, Components: make([]float32, k*d)}
		for i := range p.Components {
			p.Components[i] = float32(rng.NormFloat64())
		}
		x := make([]float32, n*d)
		for i := range x {
			x[i] = float32(rng.NormFloat64() * 100)
		}
		out := make([]float32, n*k)
		p.Apply(out, x, n)
		for r := 0; r < n; r++ {
			for i := 0; i < k; i++ {
				var s float64
				for j := 0; j < d; j++ {
					s += float64(p.Components[i*d+j]) * float64(x[r*d+j])
				}
				if got := out[r*k+i]; math.Float32bits(got) != math.Float32bits(float32(s)) {
					t.Fatalf("K %d, row %d, component %d: %v, alone %v", k, r, i, got, float32(s))
				}
			}
		}
	}
}

package project

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/udocc/udocc/internal/torch"
)

// naiveGaussian is the Ledoit–Wolf squared Mahalanobis distance written out directly:
// scikit-learn's shrinkage formula on the d × d covariance, Σ built and inverted.
func naiveGaussian(x []float64, m, d int) (shrinkage float64, score func([]float64) float64) {
	c := make([]float64, d)
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			c[j] += x[i*d+j] / float64(m)
		}
	}
	for j := range c {
		c[j] = float64(float32(c[j]))
	}
	s := mat.NewSymDense(d, nil)
	x2 := mat.NewDense(m, d, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			x2.Set(i, j, (x[i*d+j]-c[j])*(x[i*d+j]-c[j]))
		}
	}
	for j := 0; j < d; j++ {
		for k := j; k < d; k++ {
			var v float64
			for i := 0; i < m; i++ {
				v += (x[i*d+j] - c[j]) * (x[i*d+k] - c[k])
			}
			s.SetSym(j, k, v/float64(m))
		}
	}
	var mu float64
	for j := 0; j < d; j++ {
		mu += s.At(j, j) / float64(d)
	}
	var x2tx2 mat.Dense
	x2tx2.Mul(x2.T(), x2)
	beta, delta := mat.Sum(&x2tx2), 0.0
	for j := 0; j < d; j++ {
		for k := 0; k < d; k++ {
			delta += s.At(j, k) * s.At(j, k)
		}
	}
	b := (beta/float64(m) - delta) / float64(d*m)
	dd := (delta - 2*mu*mu*float64(d) + float64(d)*mu*mu) / float64(d)
	shrinkage = min(b, dd) / dd
	sigma := mat.NewSymDense(d, nil)
	for j := 0; j < d; j++ {
		for k := j; k < d; k++ {
			v := (1 - shrinkage) * s.At(j, k)
			if j == k {
				v += shrinkage * mu
			}
			sigma.SetSym(j, k, v)
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(sigma); err != nil {
		panic(err)
	}
	return shrinkage, func(row []float64) float64 {
		y := make([]float64, d)
		for j := range y {
			y[j] = row[j] - c[j]
		}
		v := mat.NewVecDense(d, y)
		return mat.Inner(v, &inv, v)
	}
}

func TestGaussianMatchesDirect(t *testing.T) {
	for _, sh := range [][2]int{{40, 12}, {12, 40}, {30, 30}} {
		m, d := sh[0], sh[1]
		rng := rand.New(rand.NewPCG(uint64(m), uint64(d)))
		x := make([]float64, m*d)
		for i := 0; i < m; i++ {
			f := rng.NormFloat64()
			for j := 0; j < d; j++ { // a shared factor, so that the columns correlate
				x[i*d+j] = float64(float32(f*float64(j%3) + rng.NormFloat64()*float64(1+j%4)))
			}
		}
		shrink, naive := naiveGaussian(x, m, d)
		g, err := FitGaussian(x, m, d)
		if err != nil {
			t.Fatal(err)
		}
		// ‖S‖²_F comes from the shim's single-precision products, summed in float64.
		if math.Abs(g.Shrinkage-shrink) > 1e-6*shrink {
			t.Errorf("%d × %d: shrinkage %v, want %v", m, d, g.Shrinkage, shrink)
		}
		rows := make([]float32, 5*d)
		for i := range rows {
			rows[i] = float32(rng.NormFloat64() * 2)
		}
		got := make([]float64, 5)
		if err := g.Score(got, rows, 5); err != nil {
			t.Fatal(err)
		}
		for r := 0; r < 5; r++ {
			row := make([]float64, d)
			for j := range row {
				row[j] = float64(rows[r*d+j])
			}
			want := naive(row)
			if math.Abs(got[r]-want) > 1e-4*want {
				t.Errorf("%d × %d: row %d scores %v, want %v (B has %d rows)", m, d, r, got[r], want, g.R)
			}
		}
	}
}

func TestGaussianConstantColumns(t *testing.T) {
	x := make([]float64, 10*3)
	for i := range x {
		x[i] = 2
	}
	if _, err := FitGaussian(x, 10, 3); !errors.Is(err, ErrGaussian) {
		t.Fatalf("constant rows: %v, want ErrGaussian", err)
	}
	g := &Gaussian{D: 2, R: 1, Iso: 1, Center: []float32{0, 0}, B: Floats{1, float32(math.NaN())}}
	if err := g.Validate(); !errors.Is(err, ErrGaussian) {
		t.Fatalf("NaN in B: %v, want ErrGaussian", err)
	}
}

func TestFloatsJSON(t *testing.T) {
	in := Floats{0, -1.5, float32(math.Inf(1)), 3.25e-20}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	// The string JSON writes for a []byte of the values' little-endian bits, as model.json
	// has held them since the Gaussian came: models saved before read back.
	raw := make([]byte, 4*len(in))
	for i, v := range in {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	if want, _ := json.Marshal(raw); string(b) != string(want) {
		t.Fatalf("Floats write %s, want %s", b, want)
	}
	var out Floats
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	for i := range in {
		if math.Float32bits(in[i]) != math.Float32bits(out[i]) {
			t.Fatalf("%s: value %d read back %v, wrote %v", b, i, out[i], in[i])
		}
	}
	if err := json.Unmarshal([]byte(`"AAAA"`), &out); !errors.Is(err, ErrGaussian) {
		t.Fatalf("3 bytes: %v, want ErrGaussian", err)
	}
}

// TestGaussianShapley: the closed form's values equal Shapley's definition, the mean over
// every order of the columns of what each adds (4! orders here), and sum to G(x) − G(b).
func TestGaussianShapley(t *testing.T) {
	for _, sh := range [][2]int{{30, 4}, {3, 4}} {
		m, d := sh[0], sh[1]
		rng := rand.New(rand.NewPCG(7, uint64(m)))
		x := make([]float64, m*d)
		for i := 0; i < m; i++ {
			f := rng.NormFloat64()
			for j := 0; j < d; j++ {
				x[i*d+j] = f*float64(j+1) + rng.NormFloat64()
			}
		}
		g, err := FitGaussian(x, m, d)
		if err != nil {
			t.Fatal(err)
		}
		row := []float32{2, -1, 0.5, 3}
		base := []float32{0.1, 0.2, -0.3, 0}
		phi := make([]float64, d)
		if err := g.Shapley(phi, row, 1, base); err != nil {
			t.Fatal(err)
		}
		var one [1]float64
		if err := g.Score(one[:], row, 1); err != nil {
			t.Fatal(err)
		}
		gx := one[0]
		if err := g.Score(one[:], base, 1); err != nil {
			t.Fatal(err)
		}
		gb := one[0]
		value := func(in []bool) float64 {
			z := make([]float32, d)
			for j := range z {
				z[j] = base[j]
				if in[j] {
					z[j] = row[j]
				}
			}
			var v [1]float64
			if err := g.Score(v[:], z, 1); err != nil {
				t.Fatal(err)
			}
			return v[0]
		}
		want := make([]float64, d)
		var perms int
		var walk func(order []int, used []bool)
		walk = func(order []int, used []bool) {
			if len(order) == d {
				perms++
				in := make([]bool, d)
				prev := value(in)
				for _, j := range order {
					in[j] = true
					next := value(in)
					want[j] += next - prev
					prev = next
				}
				return
			}
			for j := 0; j < d; j++ {
				if !used[j] {
					used[j] = true
					walk(append(order, j), used)
					used[j] = false
				}
			}
		}
		walk(nil, make([]bool, d))
		var sum float64
		for j := range want {
			want[j] /= float64(perms)
			sum += phi[j]
			if math.Abs(phi[j]-want[j]) > 1e-6*(1+math.Abs(want[j])) {
				t.Errorf("%d × %d: column %d: φ %v, by every order %v", m, d, j, phi[j], want[j])
			}
		}
		// A block of rows gives each row's values as alone.
		rows := append(append(append([]float32(nil), base...), row...), 1, 2, 3, 4)
		block := make([]float64, 3*d)
		if err := g.Shapley(block, rows, 3, base); err != nil {
			t.Fatal(err)
		}
		for j := range phi {
			if block[d+j] != phi[j] || block[j] != 0 {
				t.Errorf("%d × %d: column %d in a block: %v (the baseline row %v), alone %v", m, d, j, block[d+j], block[j], phi[j])
			}
		}
		all := []bool{true, true, true, true}
		if math.Abs(gx-value(all)) > 1e-9*gx || math.Abs(gb-value(make([]bool, d))) > 1e-6*(1+gb) || math.Abs(sum-(gx-gb)) > 1e-6*(1+gx) {
			t.Errorf("%d × %d: G(x) %v (scored %v), G(b) %v, Σφ %v", m, d, gx, value(all), gb, sum)
		}
	}
}

// TestGaussianBlocks: rows scored in blocks shared by two goroutines score as each
// alone, in both forms (Cholesky: more rows than columns; Woodbury: fewer); a Cholesky
// form with a value above its diagonal is refused.
func TestGaussianBlocks(t *testing.T) {
	for _, sh := range [][2]int{{60, 8}, {6, 8}} {
		m, d := sh[0], sh[1]
		rng := rand.New(rand.NewPCG(3, uint64(m)))
		x := make([]float64, m*d)
		for i := range x {
			x[i] = rng.NormFloat64() * float64(1+i%d)
		}
		g, err := FitGaussian(x, m, d)
		if err != nil {
			t.Fatal(err)
		}
		n := 2*gaussBlock + 17
		rows := make([]float32, n*d)
		for i := range rows {
			rows[i] = float32(rng.NormFloat64())
		}
		all := make([]float64, n)
		if err := g.Score(all, rows, n); err != nil {
			t.Fatal(err)
		}
		for r := 0; r < n; r += 37 {
			var one [1]float64
			if err := g.Score(one[:], rows[r*d:(r+1)*d], 1); err != nil {
				t.Fatal(err)
			}
			if one[0] != all[r] {
				t.Fatalf("%d × %d: row %d scores %v in blocks, %v alone", m, d, r, all[r], one[0])
			}
		}
		if m > d {
			bad := &Gaussian{D: g.D, R: g.R, Shrinkage: g.Shrinkage, Iso: g.Iso, Coef: g.Coef, Center: g.Center, B: append(Floats(nil), g.B...)}
			bad.B[1] = 0.5 // row 0, column 1
			if err := bad.Validate(); !errors.Is(err, ErrGaussian) {
				t.Errorf("a value above the Cholesky form's diagonal: %v, want ErrGaussian", err)
			}
		}
	}
}

// TestSolveByColumns: L⁻¹ and L⁻¹A by blocks of columns equal gonum's to rounding, and
// are the same bits at one and three threads (300 columns: three blocks, one partial).
func TestSolveByColumns(t *testing.T) {
	const n, c = 300, 260
	rng := rand.New(rand.NewPCG(3, 4))
	l := mat.NewTriDense(n, mat.Lower, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			l.SetTri(i, j, rng.NormFloat64()*0.05)
		}
		l.SetTri(i, i, 1+rng.Float64())
	}
	a := mat.NewDense(n, c, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < c; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var inv mat.TriDense
	if err := inv.InverseTri(l); err != nil {
		t.Fatal(err)
	}
	var sol mat.Dense
	if err := sol.Solve(l, a); err != nil {
		t.Fatal(err)
	}
	var runs [2][2][]float64
	for r, threads := range []int{1, 3} {
		end := torch.WithThreads(threads)
		runs[r] = [2][]float64{inverseLower(l), solveLower(l, a)}
		end()
	}
	if !slices.Equal(runs[0][0], runs[1][0]) || !slices.Equal(runs[0][1], runs[1][1]) {
		t.Error("the solves differ between one and three threads")
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if got, want := runs[0][0][i*n+j], inv.At(i, j); math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
				t.Fatalf("L⁻¹ (%d, %d): %v, want %v", i, j, got, want)
			}
		}
		for j := 0; j < c; j++ {
			if got, want := runs[0][1][i*c+j], sol.At(i, j); math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
				t.Fatalf("L⁻¹A (%d, %d): %v, want %v", i, j, got, want)
			}
		}
	}
}

// TestCholeskyLower: choleskyLower is gonum's Cholesky factor L bit for bit (the
// condition number it skips is all that differs), and refuses a matrix that is not
// positive definite.
func TestCholeskyLower(t *testing.T) {
	const n, m = 200, 260
	rng := rand.New(rand.NewPCG(5, 6))
	a := mat.NewDense(m, n, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	s := mat.NewSymDense(n, nil)
	s.SymOuterK(1, a.T())
	var ch mat.Cholesky
	if !ch.Factorize(s) {
		t.Fatal("gonum: not positive definite")
	}
	var want mat.TriDense
	ch.LTo(&want)
	got, ok := choleskyLower(mat.NewSymDense(n, slices.Clone(s.RawSymmetric().Data)))
	if !ok {
		t.Fatal("choleskyLower: not positive definite")
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if g, w := got.At(i, j), want.At(i, j); math.Float64bits(g) != math.Float64bits(w) {
				t.Fatalf("L (%d, %d): %v, gonum's %v", i, j, g, w)
			}
		}
	}
	bad := mat.NewSymDense(2, []float64{1, 2, 2, 1})
	if _, ok := choleskyLower(bad); ok {
		t.Error("an indefinite matrix was factored")
	}
}

package project

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/udocc/udocc/internal/parallel"
	"github.com/udocc/udocc/internal/torch"
)

// Gaussian is a Ledoit–Wolf Gaussian of a wide table's standardised columns: its score of
// a row x is the squared Mahalanobis distance
//
//	(x − c)ᵀ Σ⁻¹ (x − c),   Σ = (1 − δ)·S + δ·μ·I,
//
// S the covariance of the rows it was fitted on (divided by m), μ = tr(S)/d and δ the
// Ledoit–Wolf shrinkage (O. Ledoit & M. Wolf, "A well-conditioned estimator for
// large-dimensional covariance matrices", J. Multivariate Analysis 88(2), 2004; computed
// as scikit-learn's ledoit_wolf_shrinkage does). Where the rows are fewer than the
// columns, S is singular and the shrinkage is what makes Σ invertible: the form that a
// pretrained network's embedding (MVTec-AD, 20 Newsgroups) needs, and where the
// ensemble's 32 principal components miss the small directions in which its anomalies
// differ (bench/notes/cost.md, "A Gaussian beside the networks on wide tables").
//
// Σ⁻¹ is kept as y ↦ Iso·‖y‖² + Coef·‖B·y‖² for y = x − c, B of R rows:
//   - rows m ≥ d: Σ = L·Lᵀ (Cholesky), B = L⁻¹ (d × d), Iso 0, Coef 1;
//   - rows m < d: Woodbury's identity, Σ⁻¹ = (I − Aᵀ(κI + AAᵀ)⁻¹A)/(δμ) with A the
//     centred rows and κ = m·δμ/(1 − δ); κI + AAᵀ = L·Lᵀ, B = L⁻¹A (m × d),
//     Iso = 1/(δμ), Coef = −1/(δμ).
//
// B and c are float32, as saved, and a loaded model scores rows exactly as the fit did.
// The dense products (the rows' Gram matrix, B·y) run on the shim's single-precision
// products (torch.Gram, torch.RowsProduct), with every sum of them in float64: scoring
// five times as fast as gonum's float64 products, within 10⁻⁵ of them relatively
// (bench/notes/cost.md, "The Gaussian's products on the shim").
type Gaussian struct {
	D         int       `json:"d"`
	R         int       `json:"r"`
	Shrinkage float64   `json:"shrinkage"` // δ in [0, 1]
	Iso       float64   `json:"iso"`
	Coef      float64   `json:"coef"`
	Center    []float32 `json:"center"` // c, D values
	B         Floats    `json:"b"`      // R × D, row-major
}

// Floats is a float32 vector that JSON holds as the base64 of its little-endian bytes:
// a Gaussian's matrix has up to D² values (2.4 million for a table of 1,555 columns),
// which as decimal numbers, one a line, would make model.json eight times larger.
type Floats []float32

// MarshalText is the base64 of f's little-endian bytes, which JSON writes as a string
// (as a text, not a JSON value: encoding/json need not scan it again).
func (f Floats) MarshalText() ([]byte, error) {
	raw := make([]byte, 4*len(f))
	for i, v := range f {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	out := make([]byte, base64.StdEncoding.EncodedLen(len(raw)))
	base64.StdEncoding.Encode(out, raw)
	return out, nil
}

// WriteBase64 writes what MarshalText returns, the base64 of f's little-endian bytes, to w
// in blocks, without holding either whole: a model.json of a wide table's Gaussian is
// written with it (models.WriteMeta).
func (f Floats) WriteBase64(w io.Writer) error {
	const block = 3 << 12 // values a block: 4·block bytes, a multiple of 3, encode alone
	enc := base64.NewEncoder(base64.StdEncoding, w)
	raw := make([]byte, 4*min(block, len(f)))
	for lo := 0; lo < len(f); lo += block {
		part := f[lo:min(lo+block, len(f))]
		for i, v := range part {
			binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
		}
		if _, err := enc.Write(raw[:4*len(part)]); err != nil {
			return err
		}
	}
	return enc.Close()
}

// UnmarshalText reads the base64 of a multiple of 4 bytes.
func (f *Floats) UnmarshalText(b []byte) error {
	raw := make([]byte, base64.StdEncoding.DecodedLen(len(b)))
	n, err := base64.StdEncoding.Decode(raw, b)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrGaussian, err)
	}
	raw = raw[:n]
	if len(raw)%4 != 0 {
		return fmt.Errorf("%w: %d bytes of float32 values", ErrGaussian, len(raw))
	}
	out := make(Floats, len(raw)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	*f = out
	return nil
}

// ErrGaussian reports a Gaussian that cannot be fitted or does not hold together.
var ErrGaussian = errors.New("project: bad Gaussian")

// minShrinkage keeps Σ invertible where the rows' covariance is singular and the
// Ledoit–Wolf estimate says not to shrink (δ = 0): the least δ used.
const minShrinkage = 1e-6

// FitGaussian fits the Ledoit–Wolf Gaussian of the rows x (m × d, row-major, the
// standardised columns), which it centres in place by their own means: x is the
// caller's no more. It returns ErrGaussian where every column is constant over the rows
// (no spread to measure distances by).
func FitGaussian(x []float64, m, d int) (*Gaussian, error) {
	if m < 2 || d < 1 || len(x) != m*d {
		return nil, fmt.Errorf("%w: %d values for %d × %d rows", ErrGaussian, len(x), m, d)
	}
	c := make([]float64, d)
	for i := 0; i < m; i++ {
		for j, v := range x[i*d : (i+1)*d] {
			c[j] += v
		}
	}
	center := make([]float32, d)
	for j := range c {
		center[j] = float32(c[j] / float64(m))
		c[j] = float64(center[j]) // the saved centre, so that the fit's rows are scored as new ones are
	}
	a := mat.NewDense(m, d, x) // centred in place: a wide sample is not copied
	var tr, beta float64       // tr(S)·m, and Σ_i ‖a_i‖⁴ (the sum of X²ᵀX²'s entries)
	for i := 0; i < m; i++ {
		row := a.RawRowView(i)
		var norm2 float64
		for j := range row {
			row[j] -= c[j]
			norm2 += row[j] * row[j]
		}
		tr += norm2
		beta += norm2 * norm2
	}
	fm, fd := float64(m), float64(d)
	mu := tr / fm / fd
	if !(mu > 0) {
		return nil, fmt.Errorf("%w: every column is constant over the %d rows", ErrGaussian, m)
	}
	// The smaller of AAᵀ (m × m) and AᵀA (d × d): their squared entries sum alike, to
	// m²·‖S‖²_F.
	small, err := gram(a, m < d)
	if err != nil {
		return nil, err
	}
	n := small.SymmetricDim()
	raw := small.RawSymmetric() // the upper triangle
	var frob float64
	for i := 0; i < n; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+n]
		frob += row[i] * row[i]
		for _, v := range row[i+1:] {
			frob += 2 * v * v
		}
	}
	frob /= fm * fm // ‖S‖²_F
	shrinkage := lwShrinkage(beta, frob, mu, fm, fd)
	g := &Gaussian{D: d, Shrinkage: shrinkage, Center: center}
	iso := shrinkage * mu // δμ
	if shrinkage >= 1 {
		g.Iso, g.Coef = 1/iso, 0
		return g, g.Validate()
	}
	if m >= d {
		// Σ = (1 − δ)·AᵀA/m + δμ·I.
		for i := 0; i < d; i++ {
			for j := i; j < d; j++ {
				v := (1 - shrinkage) * small.At(i, j) / fm
				if i == j {
					v += iso
				}
				small.SetSym(i, j, v)
			}
		}
		l, ok := choleskyLower(small)
		if !ok {
			return nil, fmt.Errorf("%w: the shrunk covariance is not positive definite", ErrGaussian)
		}
		linv := inverseLower(l) // L⁻¹, d × d row-major
		g.R, g.Iso, g.Coef = d, 0, 1
		g.B = make(Floats, d*d)
		for i, v := range linv {
			g.B[i] = float32(v)
		}
		return g, g.Validate()
	}
	// κI + AAᵀ, κ = m·δμ/(1 − δ) (Woodbury).
	kappa := fm * iso / (1 - shrinkage)
	for i := 0; i < m; i++ {
		small.SetSym(i, i, small.At(i, i)+kappa)
	}
	l, ok := choleskyLower(small)
	if !ok {
		return nil, fmt.Errorf("%w: the rows' Gram matrix is not positive definite", ErrGaussian)
	}
	b := solveLower(l, a) // L⁻¹A, m × d row-major
	g.R, g.Iso, g.Coef = m, 1/iso, -1/iso
	g.B = make(Floats, m*d)
	for i, v := range b {
		g.B[i] = float32(v)
	}
	return g, g.Validate()
}

// choleskyLower is the lower triangular L of s = L·Lᵀ, false where s is not positive
// definite: LAPACK's Potrf of s's upper triangle, in place (s is not read after), as
// gonum's mat.Cholesky factors it (the same bits), without the condition number that
// Cholesky.Factorize estimates and this package never reads (0.02 s of CPU on
// InternetAds' 1,555 columns).
func choleskyLower(s *mat.SymDense) (*mat.TriDense, bool) {
	raw := s.RawSymmetric()
	raw.Uplo = blas.Upper // the triangle s keeps
	u, ok := lapack64.Potrf(raw)
	if !ok {
		return nil, false
	}
	n := u.N
	l := mat.NewTriDense(n, mat.Lower, nil)
	lr := l.RawTriangular()
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			lr.Data[j*lr.Stride+i] = u.Data[i*u.Stride+j]
		}
	}
	return l, true
}

// solveBlock is the number of columns of one triangular solve of inverseLower and
// solveLower.
const solveBlock = 128

// byColumnBlocks runs f(j0, j1) for every block [j0, j1) of solveBlock of c columns, on
// the fit's threads (parallel.For). A triangular solve's columns are independent:
// gonum's Dtrsm computes each the same way whatever the columns beside it, so the
// results are the same bits at any thread count and any block.
func byColumnBlocks(c int, f func(j0, j1 int)) {
	parallel.For((c+solveBlock-1)/solveBlock, torch.NumThreads(), func(b int) {
		f(b*solveBlock, min((b+1)*solveBlock, c))
	})
}

// solveTrailing solves L[r0:, r0:]·Y = y in place for the lower triangular l and the
// rows r0.. of a block of nc columns, y row-major with stride nc.
func solveTrailing(l *mat.TriDense, r0 int, y []float64, nc int) {
	raw := l.RawTriangular()
	sub := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: raw.N - r0, Stride: raw.Stride, Data: raw.Data[r0*raw.Stride+r0:]}
	blas64.Trsm(blas.Left, blas.NoTrans, 1, sub, blas64.General{Rows: raw.N - r0, Cols: nc, Stride: nc, Data: y})
}

// inverseLower is L⁻¹ of the d × d lower triangular l, row-major: column block [j0, j1)
// of L⁻¹ is zero above row j0 and solves the trailing part of L against the identity's
// columns. On InternetAds' 1,555 columns, 0.08–0.14 s on two threads against gonum's
// InverseTri's 0.24–0.32 s (on one), to 10⁻¹⁰ of it.
func inverseLower(l *mat.TriDense) []float64 {
	d, _ := l.Dims()
	x := make([]float64, d*d)
	byColumnBlocks(d, func(j0, j1 int) {
		nc := j1 - j0
		y := make([]float64, (d-j0)*nc)
		for c := 0; c < nc; c++ {
			y[c*nc+c] = 1
		}
		solveTrailing(l, j0, y, nc)
		for i := j0; i < d; i++ {
			copy(x[i*d+j0:i*d+j1], y[(i-j0)*nc:(i-j0+1)*nc])
		}
	})
	return x
}

// solveLower is L⁻¹A for the m × m lower triangular l and the m × d matrix a,
// row-major, by blocks of a's columns (byColumnBlocks).
func solveLower(l *mat.TriDense, a *mat.Dense) []float64 {
	m, d := a.Dims()
	x := make([]float64, m*d)
	byColumnBlocks(d, func(j0, j1 int) {
		nc := j1 - j0
		y := make([]float64, m*nc)
		for i := 0; i < m; i++ {
			copy(y[i*nc:(i+1)*nc], a.RawRowView(i)[j0:j1])
		}
		solveTrailing(l, 0, y, nc)
		for i := 0; i < m; i++ {
			copy(x[i*d+j0:i*d+j1], y[i*nc:(i+1)*nc])
		}
	})
	return x
}

// gram is AAᵀ (rows set) or AᵀA of the m × d matrix a, on the shim's products
// (torch.Gram) of a's values rounded to float32, summed in float64: symmetric, the
// upper triangle computed and mirrored. The shim's errors are not ErrGaussian (which
// says the rows cannot have a Gaussian): they are the fit's.
func gram(a *mat.Dense, rows bool) (*mat.SymDense, error) {
	m, d := a.Dims()
	r, c := m, d
	var x []float32
	if rows {
		x = float32s(a)
	} else {
		r, c = d, m
		x = make([]float32, m*d) // Aᵀ, written from A's rows
		for i := 0; i < m; i++ {
			for j, v := range a.RawRowView(i) {
				x[j*m+i] = float32(v)
			}
		}
	}
	g, err := torch.Gram(x, r, c)
	if err != nil {
		return nil, fmt.Errorf("project: Gaussian: %w", err)
	}
	return mat.NewSymDense(r, g), nil
}

// lwShrinkage is the Ledoit–Wolf shrinkage δ from the rows' Σ_i ‖a_i‖⁴ (beta), ‖S‖²_F
// (frob), μ = tr(S)/d, m rows and d columns (scikit-learn's ledoit_wolf_shrinkage:
// b̄² = (Σ_i‖a_i‖⁴/m − ‖S‖²_F)/(d·m), d² = (‖S‖²_F − d·μ²)/d, δ = min(b̄², d²)/d²),
// at least minShrinkage.
func lwShrinkage(beta, frob, mu, m, d float64) float64 {
	b2 := (beta/m - frob) / (d * m)
	d2 := (frob - d*mu*mu) / d
	if !(d2 > 0) { // S is already μ·I: nothing to shrink towards
		return 1
	}
	return min(1, max(minShrinkage, min(b2, d2)/d2))
}

// Validate checks the Gaussian's shape and values.
func (g *Gaussian) Validate() error {
	if g.D < 1 || g.R < 0 || len(g.Center) != g.D || g.R > len(g.B) || len(g.B) != g.R*g.D {
		return fmt.Errorf("%w: %d centre and %d matrix values for d %d and r %d", ErrGaussian, len(g.Center), len(g.B), g.D, g.R)
	}
	if !(g.Shrinkage >= 0 && g.Shrinkage <= 1) || math.IsNaN(g.Iso) || math.IsInf(g.Iso, 0) || math.IsNaN(g.Coef) || math.IsInf(g.Coef, 0) || g.Iso < 0 {
		return fmt.Errorf("%w: shrinkage %v, iso %v, coef %v", ErrGaussian, g.Shrinkage, g.Iso, g.Coef)
	}
	for i, v := range g.Center {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("%w: centre %d: %v", ErrGaussian, i, v)
		}
	}
	for i, v := range g.B {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("%w: matrix row %d, column %d: %v", ErrGaussian, i/g.D, i%g.D, v)
		}
		// The Cholesky form (Iso 0) is B = L⁻¹, lower triangular, as Score reads it.
		if g.Iso == 0 && i%g.D > i/g.D && v != 0 {
			return fmt.Errorf("%w: the Cholesky form's matrix has %v above its diagonal (row %d, column %d)", ErrGaussian, v, i/g.D, i%g.D)
		}
	}
	if g.Iso == 0 && g.R != g.D {
		return fmt.Errorf("%w: the Cholesky form's matrix has %d rows for %d columns", ErrGaussian, g.R, g.D)
	}
	return nil
}

// gaussBlock is the most rows scored through one product with B.
const gaussBlock = 256

// Score writes the squared Mahalanobis distance of each of the n standardised rows x
// (n × D) into out (n values), in blocks of gaussBlock rows; a row's distance is a
// function of the row and the Gaussian alone (torch.RowsProduct). It is safe for
// concurrent use.
func (g *Gaussian) Score(out []float64, x []float32, n int) error {
	d := g.D
	y := make([]float32, min(n, gaussBlock)*d)
	for lo := 0; lo < n; lo += gaussBlock {
		hi := min(lo+gaussBlock, n)
		if err := g.scoreBlock(out[lo:hi], x[lo*d:hi*d], y[:(hi-lo)*d]); err != nil {
			return err
		}
	}
	return nil
}

// scoreBlock is Score of the rows x (len(out) of them), y their centred values' room.
func (g *Gaussian) scoreBlock(out []float64, x []float32, y []float32) error {
	d := g.D
	for r := range out {
		var norm2 float64
		for j, v := range x[r*d : (r+1)*d] {
			e := float64(v) - float64(g.Center[j])
			y[r*d+j] = float32(e)
			norm2 += e * e
		}
		out[r] = g.Iso * norm2
	}
	if g.R == 0 {
		return nil
	}
	z, err := torch.RowsProduct(y, len(out), d, g.B, g.R, true) // B·y of each row
	if err != nil {
		return fmt.Errorf("project: Gaussian: %w", err)
	}
	for r := range out {
		var q float64
		for _, v := range z[r*g.R : (r+1)*g.R] {
			q += float64(v) * float64(v)
		}
		out[r] += g.Coef * q
	}
	return nil
}

// precision is v·P for the n rows of v (each a D-vector), P = Σ⁻¹ = Iso·I + Coef·BᵀB:
// two products with B, n × D.
func (g *Gaussian) precision(v []float64, n int) ([]float64, error) {
	d := g.D
	out := make([]float64, n*d)
	for i, x := range v {
		out[i] = g.Iso * x
	}
	if g.R == 0 {
		return out, nil
	}
	v32 := make([]float32, len(v))
	for i, x := range v {
		v32[i] = float32(x)
	}
	t, err := torch.RowsProduct(v32, n, d, g.B, g.R, true) // B·v
	if err == nil {
		t, err = torch.RowsProduct(t, n, g.R, g.B, d, false) // Bᵀ·(B·v)
	}
	if err != nil {
		return nil, fmt.Errorf("project: Gaussian: %w", err)
	}
	for i, x := range t {
		out[i] += g.Coef * float64(x)
	}
	return out, nil
}

// Shapley writes into out (n × D) each column's exact Shapley value for the squared
// Mahalanobis distance G of each of the n standardised rows x (n × D), a column outside a
// coalition taking base's value. With Δ = x − base, g = P(base − c) and P = Σ⁻¹,
//
//	G(base + Δ_S) = G(base) + Σ_{j∈S} 2·Δ_j·g_j + Σ_{j,k∈S} Δ_j·P_jk·Δ_k,
//
// a linear term per column and one per pair: a column's own terms are its own, a pair's
// are shared by its two columns in halves, so
//
//	φ_j = Δ_j · (2·g_j + (P·Δ)_j),
//
// which sum to G(x) − G(base) (efficiency); P·Δ of a block of rows is two products with
// B (precision). Occluding one column at a time misleads under this distance: a column far from its
// median but in keeping with the columns it correlates with raises the distance when it
// alone is moved back.
func (g *Gaussian) Shapley(out []float64, x []float32, n int, base []float32) error {
	d := g.D
	from := make([]float64, d) // base − c
	for j := range from {
		from[j] = float64(base[j]) - float64(g.Center[j])
	}
	pg, err := g.precision(from, 1)
	if err != nil {
		return err
	}
	delta := make([]float64, min(n, gaussBlock)*d)
	for lo := 0; lo < n; lo += gaussBlock {
		hi := min(lo+gaussBlock, n)
		db := delta[:(hi-lo)*d]
		for r := lo; r < hi; r++ {
			for j, v := range x[r*d : (r+1)*d] {
				db[(r-lo)*d+j] = float64(v) - float64(base[j])
			}
		}
		pd, err := g.precision(db, hi-lo)
		if err != nil {
			return err
		}
		for r := lo; r < hi; r++ {
			o := out[r*d : (r+1)*d]
			for j, v := range db[(r-lo)*d : (r-lo+1)*d] {
				o[j] = v * (2*pg[j] + pd[(r-lo)*d+j])
			}
		}
	}
	return nil
}

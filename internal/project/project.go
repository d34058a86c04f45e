// Package project reduces a wide table to its leading principal components, the input
// the ensemble's networks read in place of a table's columns with Ensemble.Components
// (`udocc fit --components`; bench/notes/cost.md, "Wide tables on principal components"): a
// first layer 32 wide instead of one per column cuts a wide table's fit by two to five.
package project

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/udocc/udocc/internal/torch"
)

// ErrProjection reports a projection that does not hold together.
var ErrProjection = errors.New("project: bad projection")

// Projection maps a standardised row x (D values) to K components: z_i = Σ_j C[i·D+j]·x_j.
// The components are orthonormal rows, each signed so that its entry of largest
// magnitude is positive.
type Projection struct {
	K          int       `json:"k"`
	D          int       `json:"d"`
	Components []float32 `json:"components"`
}

// Fit returns the K leading principal directions of the rows x (m × d, row-major,
// standardised, so their means are near 0; the rows are centred here by their own
// means first) by randomised subspace iteration (Halko, Martinsson & Tropp, SIAM Review
// 53(2), 2011, Algorithm 4.4): a Gaussian start of K+10 columns drawn from seed, two
// power iterations, each re-orthonormalised, then the exact SVD of the small projected
// matrix. K is capped at min(m, d).
//
// The iteration's products with the rows (A·Ω, QᵀA) run on the shim's
// single-precision products (torch.RowsProduct, blocks of fixed shape on the fit's
// threads: the same bits at any thread count), the centred rows and the small factors
// rounded to float32 once; the orthonormalisation and the SVD stay in float64. The
// components are saved as float32, and the products' rounding is below theirs
// (InternetAds' components agree with the float64 iteration's to a cosine of 1 − 3·10⁻⁸).
// On a 1,966 × 1,555 sample the fit takes 60–74 ms on two threads, against 209–210 ms
// with gonum's float64 Dgemm (BenchmarkProjectionFit; bench/notes/cost.md).
func Fit(x []float64, m, d, k int, seed uint64) (*Projection, error) {
	if m < 1 || d < 1 || len(x) != m*d || k < 1 {
		return nil, fmt.Errorf("%w: %d values for %d × %d rows, %d components", ErrProjection, len(x), m, d, k)
	}
	k = min(k, m, d)
	mean := make([]float64, d)
	for i := 0; i < m; i++ {
		for j, v := range x[i*d : (i+1)*d] {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(m)
	}
	a := make([]float32, m*d) // the centred rows A, m × d
	for i := 0; i < m; i++ {
		for j, v := range x[i*d : (i+1)*d] {
			a[i*d+j] = float32(v - mean[j])
		}
	}
	l := min(k+10, m, d)
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	omega := make([]float32, d*l) // d × l
	for i := range omega {
		omega[i] = float32(rng.NormFloat64())
	}
	// product is r·b for the rows r (n × c) and b (c × q), as a float64 matrix.
	product := func(r []float32, n, c int, b []float32, q int) (*mat.Dense, error) {
		p, err := torch.RowsProduct(r, n, c, b, q, false)
		if err != nil {
			return nil, fmt.Errorf("project: principal components: %w", err)
		}
		out := mat.NewDense(n, q, nil)
		raw := out.RawMatrix().Data
		for i, v := range p {
			raw[i] = float64(v)
		}
		return out, nil
	}
	// qta is QᵀA (l × d) for the orthonormal Q (m × l): Qᵀ's rows times A, so that A
	// need not be held transposed as well.
	qta := func(q *mat.Dense) (*mat.Dense, error) {
		return product(float32s(q.T()), l, m, a, d)
	}
	y, err := product(a, m, d, omega, l) // A·Ω, m × l
	if err != nil {
		return nil, err
	}
	q := orthonormal(y)
	for it := 0; it < 2; it++ {
		z, err := qta(q) // (Aᵀ·Q)ᵀ, l × d
		if err != nil {
			return nil, err
		}
		if y, err = product(a, m, d, float32s(orthonormal(z.T())), l); err != nil {
			return nil, err
		}
		q = orthonormal(y)
	}
	b, err := qta(q) // QᵀA, l × d
	if err != nil {
		return nil, err
	}
	var svd mat.SVD
	if !svd.Factorize(b, mat.SVDThin) {
		return nil, fmt.Errorf("%w: the SVD did not converge", ErrProjection)
	}
	var v mat.Dense // d × l, the right singular vectors, by descending value
	svd.VTo(&v)
	p := &Projection{K: k, D: d, Components: make([]float32, k*d)}
	for i := 0; i < k; i++ {
		big, sign := 0.0, 1.0
		for j := 0; j < d; j++ {
			if c := v.At(j, i); math.Abs(c) > big {
				big = math.Abs(c)
				sign = math.Copysign(1, c)
			}
		}
		for j := 0; j < d; j++ {
			p.Components[i*d+j] = float32(sign * v.At(j, i))
		}
	}
	return p, p.Validate()
}

// float32s is the values of the matrix a, row-major, rounded to float32 (a dense one
// read row by row, any other through At).
func float32s(a mat.Matrix) []float32 {
	r, c := a.Dims()
	out := make([]float32, r*c)
	if dense, ok := a.(*mat.Dense); ok {
		for i := 0; i < r; i++ {
			for j, v := range dense.RawRowView(i) {
				out[i*c+j] = float32(v)
			}
		}
		return out
	}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			out[i*c+j] = float32(a.At(i, j))
		}
	}
	return out
}

// orthonormal is an orthonormal basis of a's columns: modified Gram–Schmidt, twice
// (a column nearly dependent on the ones before it keeps its direction's digits), in
// O(rows · columns²); a column that vanishes is left zero.
func orthonormal(a mat.Matrix) *mat.Dense {
	r, c := a.Dims()
	cols := make([][]float64, c)
	for j := range cols {
		cols[j] = mat.Col(nil, j, a)
	}
	for j, v := range cols {
		for pass := 0; pass < 2; pass++ {
			for _, u := range cols[:j] {
				var dot float64
				for i := range v {
					dot += u[i] * v[i]
				}
				for i := range v {
					v[i] -= dot * u[i]
				}
			}
		}
		var norm float64
		for _, x := range v {
			norm += x * x
		}
		if norm = math.Sqrt(norm); norm > 0 {
			for i := range v {
				v[i] /= norm
			}
		}
	}
	q := mat.NewDense(r, c, nil)
	for j, v := range cols {
		q.SetCol(j, v)
	}
	return q
}

// Validate checks the projection's shape and values.
func (p *Projection) Validate() error {
	// K and D are bounded by the values held before their product is taken (a file may
	// claim any K and D).
	if p.K < 1 || p.D < 1 || p.K > len(p.Components) || p.D > len(p.Components) || len(p.Components) != p.K*p.D {
		return fmt.Errorf("%w: %d components of %d values for k %d and d %d", ErrProjection, len(p.Components), p.D, p.K, p.D)
	}
	for i, c := range p.Components {
		if math.IsNaN(float64(c)) || math.IsInf(float64(c), 0) || math.Abs(float64(c)) > 1+1e-3 {
			return fmt.Errorf("%w: component %d, value %d: %v", ErrProjection, i/p.D, i%p.D, c)
		}
	}
	return nil
}

// Apply writes the K components of each of the n standardised rows x (n × D) into out
// (n × K), each a sum over the columns in float64, in the columns' order, rounded once.
// Four components are summed side by side, each in its own order: the same bits as one
// at a time, without waiting on one chain of additions (InternetAds' 1,555 columns: a
// third of the time).
func (p *Projection) Apply(out, x []float32, n int) {
	d := p.D
	for r := 0; r < n; r++ {
		row := x[r*d : (r+1)*d]
		o := out[r*p.K : (r+1)*p.K]
		i := 0
		for ; i+4 <= p.K; i += 4 {
			c0, c1 := p.Components[i*d:(i+1)*d], p.Components[(i+1)*d:(i+2)*d]
			c2, c3 := p.Components[(i+2)*d:(i+3)*d], p.Components[(i+3)*d:(i+4)*d]
			var s0, s1, s2, s3 float64
			for j, v := range row {
				w := float64(v)
				s0 += float64(c0[j]) * w
				s1 += float64(c1[j]) * w
				s2 += float64(c2[j]) * w
				s3 += float64(c3[j]) * w
			}
			o[i], o[i+1], o[i+2], o[i+3] = float32(s0), float32(s1), float32(s2), float32(s3)
		}
		for ; i < p.K; i++ {
			c := p.Components[i*d : (i+1)*d]
			var s float64
			for j, v := range row {
				s += float64(c[j]) * float64(v)
			}
			o[i] = float32(s)
		}
	}
}

// Column is column j of the components (K values): how a change of 1 in standardised
// column j moves each component.
func (p *Projection) Column(j int, out []float32) {
	for i := 0; i < p.K; i++ {
		out[i] = p.Components[i*p.D+j]
	}
}

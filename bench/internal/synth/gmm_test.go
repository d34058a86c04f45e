package synth

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// denseOf wraps row-major values as an n×d matrix.
func denseOf(x []float64, d int) *mat.Dense { return mat.NewDense(len(x)/d, d, slices.Clone(x)) }

var testEM = emConfig{maxIter: 100, tol: 1e-3, reg: 1e-6}

// TestEMRecoversMixture fits K = 2 to a sample of a known two-component
// mixture and checks the means, weights and covariances it recovers.
func TestEMRecoversMixture(t *testing.T) {
	const n = 3000
	rng := rand.New(rand.NewPCG(5, 0))
	// Component A: weight 0.3, mean (−4, 1), covariance LLᵀ with
	// L = [[1, 0], [0.8, 0.6]] (unit variances, correlation 0.8);
	// component B: weight 0.7, mean (3, 3), covariance diag(0.25, 4).
	x := append(gaussianRows(rng, 900, []float64{-4, 1}, []float64{1, 0, 0.8, 0.6}),
		gaussianRows(rng, 2100, []float64{3, 3}, []float64{0.5, 0, 0, 2})...)
	m, _, err := fitMixture(denseOf(x, 2), 2, rand.New(rand.NewPCG(1, 1)), testEM)
	if err != nil {
		t.Fatal(err)
	}
	a, b := 0, 1
	if m.means.At(0, 0) > m.means.At(1, 0) {
		a, b = 1, 0
	}
	for _, c := range []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"weight A", m.weights[a], 0.3, 0.02},
		{"weight B", m.weights[b], 0.7, 0.02},
		{"mean A1", m.means.At(a, 0), -4, 0.1},
		{"mean A2", m.means.At(a, 1), 1, 0.1},
		{"mean B1", m.means.At(b, 0), 3, 0.1},
		{"mean B2", m.means.At(b, 1), 3, 0.15},
		{"var A1", covOf(m, a).At(0, 0), 1, 0.15},
		{"cov A12", covOf(m, a).At(0, 1), 0.8, 0.15},
		{"var B1", covOf(m, b).At(0, 0), 0.25, 0.05},
		{"var B2", covOf(m, b).At(1, 1), 4, 0.5},
	} {
		if math.Abs(c.got-c.want) > c.tol {
			t.Errorf("%s = %.3f, want %.3f ± %.2f", c.name, c.got, c.want, c.tol)
		}
	}
}

// covOf returns Σ_k = U_kᵀU_k.
func covOf(m *mixture, k int) *mat.Dense {
	var c mat.Dense
	c.Mul(m.chols[k].T(), m.chols[k])
	return &c
}

// TestBICPicksComponents checks the number of components BIC chooses
// through the whole Generator path (standardisation included).
func TestBICPicksComponents(t *testing.T) {
	for _, c := range []struct {
		name    string
		normals []float64
		d, want int
	}{
		{"two clusters → 2", twoClusters(7, 1000), 3, 2},
		{"one correlated Gaussian → 1", correlated(1000), 2, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := NewGenerator(c.normals, len(c.normals)/c.d, c.d, 1, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if k, err := g.Components(); err != nil || k != c.want {
				t.Errorf("K = %d (%v), want %d", k, err, c.want)
			}
		})
	}
}

// TestLogProbSlow checks the whitened log-density against the textbook
// formula with an explicit inverse and determinant, on random mixtures.
func TestLogProbSlow(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 0))
	for trial := 0; trial < 20; trial++ {
		d, k, n := 1+rng.IntN(6), 1+rng.IntN(4), 1+rng.IntN(30)
		m := &mixture{means: mat.NewDense(k, d, nil)}
		var covs []*mat.SymDense
		for c := 0; c < k; c++ {
			m.weights = append(m.weights, 1/float64(k))
			for j := 0; j < d; j++ {
				m.means.Set(c, j, 3*rng.NormFloat64())
			}
			a := mat.NewDense(d+2, d, nil)
			a.Apply(func(int, int, float64) float64 { return rng.NormFloat64() }, a)
			cov := mat.NewSymDense(d, nil)
			cov.SymOuterK(1, a.T())
			u, logdet, err := factor(cov, 0.1)
			if err != nil {
				t.Fatal(err)
			}
			m.chols, m.logdets = append(m.chols, u), append(m.logdets, logdet)
			covs = append(covs, cov) // factor added the ridge in place
		}
		x := mat.NewDense(n, d, nil)
		x.Apply(func(int, int, float64) float64 { return 4 * rng.NormFloat64() }, x)
		s := &emScratch{resp: mat.NewDense(n, k, nil), work: mat.NewDense(n, d, nil), white: mat.NewDense(n, d, nil)}
		if err := m.logProb(x, s); err != nil {
			t.Fatal(err)
		}
		for c := 0; c < k; c++ {
			var inv mat.Dense
			if err := inv.Inverse(covs[c]); err != nil {
				t.Fatal(err)
			}
			det := mat.Det(covs[c])
			for i := 0; i < n; i++ {
				diff := mat.NewVecDense(d, nil)
				diff.SubVec(x.RowView(i), m.means.RowView(c))
				maha := mat.Inner(diff, &inv, diff)
				want := math.Log(m.weights[c]) - 0.5*(float64(d)*math.Log(2*math.Pi)+math.Log(det)+maha)
				if got := s.resp.At(i, c); math.Abs(got-want) > 1e-8*max(1, math.Abs(want)) {
					t.Fatalf("trial %d, row %d, component %d: %v, want %v", trial, i, c, got, want)
				}
			}
		}
	}
}

// TestConstantColumns checks that constant columns and duplicated rows
// break no kind and that a constant column stays constant in the
// anomalies, so it never gives them away.
func TestConstantColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 0))
	withConst := make([]float64, 0, 200*3)
	for i := 0; i < 200; i++ {
		withConst = append(withConst, rng.NormFloat64(), 7.5, rng.NormFloat64()+float64(i%2)*5)
	}
	allSame := slices.Repeat([]float64{1, -2, 0}, 50)
	for _, c := range []struct {
		name    string
		normals []float64
	}{
		{"one constant column", withConst},
		{"all rows identical", allSame},
		{"a single row", []float64{1, 2, 3}},
	} {
		for _, kind := range Kinds() {
			t.Run(c.name+"/"+string(kind), func(t *testing.T) {
				n := len(c.normals) / 3
				an := anomaliesOf(t, c.normals, n, 3, kind, 0.2)
				for i := 0; i < len(an)/3; i++ {
					for j := 0; j < 3; j++ {
						lo, hi := minMax(column(c.normals, 3, j))
						if lo == hi && an[i*3+j] != lo {
							t.Fatalf("anomaly %d: constant column %d is %v, want %v", i, j, an[i*3+j], lo)
						}
					}
				}
			})
		}
	}
}

// TestFactorRaisesRidge checks that a singular covariance is regularised
// and an indefinite one reported.
func TestFactorRaisesRidge(t *testing.T) {
	singular := mat.NewSymDense(2, []float64{1, 1, 1, 1})
	if _, logdet, err := factor(singular, 1e-6); err != nil || math.IsInf(logdet, 0) {
		t.Errorf("singular: logdet %v, %v", logdet, err)
	}
	indefinite := mat.NewSymDense(2, []float64{1, 0, 0, -10})
	if _, _, err := factor(indefinite, 1e-6); err == nil {
		t.Error("indefinite: no error")
	}
}

package iforest

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/udocc/udocc/metrics"
)

// TestAveragePathLength checks c(n) against the values worked by hand and
// against the exact harmonic number.
func TestAveragePathLength(t *testing.T) {
	// c(256) = 2(ln 255 + 0.5772156649) − 2·255/256
	//        = 2(5.541263545 + 0.577215665) − 1.9921875 = 10.2447709;
	// the 2008 paper's normaliser for ψ = 256 is c(256) ≈ 10.24.
	if got := averagePathLength(256); math.Abs(got-10.2447709) > 1e-6 {
		t.Errorf("c(256) = %.7f, want 10.2447709", got)
	}
	// With the exact H(255) = Σ 1/i, c(256) is 10.2487; ln i + γ misses
	// H(i) by about 1/(2i), so the two differ by about 2/510.
	var h float64
	for i := 1; i <= 255; i++ {
		h += 1 / float64(i)
	}
	exact := 2*h - 2*255.0/256
	if d := exact - averagePathLength(256); d < 0 || d > 0.005 {
		t.Errorf("exact c(256) = %.5f is %.5f from the approximation, want within 0.005", exact, d)
	}
	for n, want := range map[int]float64{0: 0, 1: 0, 2: 1} {
		if got := averagePathLength(n); got != want {
			t.Errorf("c(%d) = %g, want %g", n, got, want)
		}
	}
}

// blob returns n rows of a 2-D standard normal followed by the given far
// points, row-major.
func blob(rng *rand.Rand, n int, far [][2]float64) []float64 {
	x := make([]float64, 0, 2*(n+len(far)))
	for range n {
		x = append(x, rng.NormFloat64(), rng.NormFloat64())
	}
	for _, p := range far {
		x = append(x, p[0], p[1])
	}
	return x
}

// TestScores checks the behaviour the papers report: scores in (0, 1), far
// points well above ½ (isolated in few splits), the dense core of a
// Gaussian below ½.
func TestScores(t *testing.T) {
	far := [][2]float64{{8, 8}, {-9, 7}, {10, -10}, {0, 12}, {-11, -3}}
	const n = 1000
	x := blob(rand.New(rand.NewPCG(7, 8)), n, far)
	f, err := Fit(x, n+len(far), 2, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	s := f.Score(x, n+len(far))
	for i, v := range s {
		if !(v > 0 && v < 1) {
			t.Fatalf("score[%d] = %g, outside (0, 1)", i, v)
		}
	}
	for k := range far {
		if v := s[n+k]; v <= 0.6 {
			t.Errorf("far point %v scores %.3f, want > 0.6", far[k], v)
		}
	}
	var core, sum float64
	for i := range n {
		if math.Hypot(x[2*i], x[2*i+1]) < 1 {
			core++
			if s[i] >= 0.5 {
				t.Errorf("core point (%.2f, %.2f) scores %.3f, want < 0.5", x[2*i], x[2*i+1], s[i])
			}
		}
		sum += s[i]
	}
	if mean := sum / n; mean >= 0.5 {
		t.Errorf("mean score of the cluster %.3f, want < 0.5", mean)
	}
	if core < 300 {
		t.Fatalf("only %g core points; the test data is not what it claims", core)
	}
}

// TestDeterministic checks that a seed fixes the forest and that another
// seed grows another one.
func TestDeterministic(t *testing.T) {
	x := blob(rand.New(rand.NewPCG(9, 10)), 500, [][2]float64{{6, 6}})
	score := func(seed uint64) []float64 {
		f, err := Fit(x, 501, 2, Options{Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return f.Score(x, 501)
	}
	a, b, c := score(3), score(3), score(4)
	if !slices.Equal(a, b) {
		t.Error("same seed, different scores")
	}
	if slices.Equal(a, c) {
		t.Error("seeds 3 and 4 give identical scores")
	}
}

// TestROCAUC checks the detector on obvious global outliers: 1000 rows of a
// 5-D standard normal and 50 rows uniform in [−8, 8]⁵ with a norm above 5.
func TestROCAUC(t *testing.T) {
	const d, normal, anomalies = 5, 1000, 50
	rng := rand.New(rand.NewPCG(11, 12))
	x := make([]float64, 0, (normal+anomalies)*d)
	labels := make([]int, 0, normal+anomalies)
	for range normal {
		for range d {
			x = append(x, rng.NormFloat64())
		}
		labels = append(labels, 0)
	}
	for len(labels) < normal+anomalies {
		row := make([]float64, d)
		var r2 float64
		for j := range row {
			row[j] = 16*rng.Float64() - 8
			r2 += row[j] * row[j]
		}
		if r2 > 25 {
			x = append(x, row...)
			labels = append(labels, 1)
		}
	}
	f, err := Fit(x, len(labels), d, Options{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	auc, err := metrics.ROCAUC(labels, f.Score(x, len(labels)))
	if err != nil {
		t.Fatal(err)
	}
	if auc < 0.9 {
		t.Errorf("ROCAUC %.3f, want ≥ 0.9", auc)
	}
	t.Logf("ROCAUC %.4f", auc)
}

// TestSmallAndConstant checks ψ = n below 256, the smallest valid input
// and constant data, where every row scores exactly ½ (h = c(ψ) at the
// root, up to the rounding of the mean over trees).
func TestSmallAndConstant(t *testing.T) {
	cases := []struct {
		name string
		x    []float64
		n, d int
	}{
		{"two rows", []float64{0, 1}, 2, 1},
		{"ten rows", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 100}, 10, 1},
		{"constant", []float64{3, 3, 3, 3, 3, 3}, 3, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := Fit(c.x, c.n, c.d, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if f.psi != c.n {
				t.Errorf("ψ = %d, want n = %d", f.psi, c.n)
			}
			for i, v := range f.Score(c.x, c.n) {
				if !(v > 0 && v < 1) {
					t.Errorf("score[%d] = %g, outside (0, 1)", i, v)
				}
				if c.name == "constant" && math.Abs(v-0.5) > 1e-12 {
					t.Errorf("constant data: score[%d] = %g, want 0.5", i, v)
				}
			}
		})
	}
}

func TestErrors(t *testing.T) {
	cases := []struct {
		name string
		x    []float64
		n, d int
		o    Options
		want error
	}{
		{"one row", []float64{1, 2}, 1, 2, Options{}, ErrShape},
		{"length is not n·d", []float64{1, 2, 3}, 2, 2, Options{}, ErrShape},
		{"no columns", nil, 2, 0, Options{}, ErrShape},
		{"NaN", []float64{1, math.NaN(), 3, 4}, 2, 2, Options{}, ErrNonFinite},
		{"infinity", []float64{1, 2, math.Inf(-1), 4}, 2, 2, Options{}, ErrNonFinite},
		{"negative trees", []float64{1, 2}, 2, 1, Options{Trees: -1}, ErrOptions},
		{"negative subsample", []float64{1, 2}, 2, 1, Options{Subsample: -1}, ErrOptions},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Fit(c.x, c.n, c.d, c.o); !errors.Is(err, c.want) {
				t.Errorf("error %v, want %v", err, c.want)
			}
		})
	}
}

// BenchmarkForest fits and scores 10 000 rows of 10 columns.
func BenchmarkForest(b *testing.B) {
	const n, d = 10000, 10
	rng := rand.New(rand.NewPCG(1, 1))
	x := make([]float64, n*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	b.Run("fit", func(b *testing.B) {
		for b.Loop() {
			if _, err := Fit(x, n, d, DefaultOptions()); err != nil {
				b.Fatal(err)
			}
		}
	})
	f, err := Fit(x, n, d, DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	b.Run("score", func(b *testing.B) {
		for b.Loop() {
			f.Score(x, n)
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}

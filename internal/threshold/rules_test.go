package threshold

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// ten is the hand-worked case of most rules: nine ordinary scores and one
// far anomaly. Its statistics, worked by hand:
//
//	median = (5+6)/2 = 5.5; |x − 5.5| sorted = .5 .5 1.5 1.5 2.5 2.5 3.5 3.5 4.5 94.5, MAD = 2.5
//	Q1 = x[2] + .25·(x[3]−x[2]) = 3.25, Q3 = x[6] + .75·(x[7]−x[6]) = 7.75 (type 7, h = p·9)
//	mean = 145/10 = 14.5; Σx² = 285 + 10000 = 10285
//	population variance = 1028.5 − 14.5² = 818.25; sample variance = 8182.5/9
//	optimal 2-means: {1..9} | {100}, n₀n₁(μ₀−μ₁)² = 9·1·95² = 81225 beats
//	{1..8} | {9,100} at 8·2·50² = 40000 and every lower split; means 5 and 100
var ten = []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 100}

// twoClusters is the hand-worked case of the mixtures: two tight clusters.
// EM starts at the means 1.25 and 10.75 (the 25% and 75% quantiles) and
// settles on the clusters {0,1,2} and {10,11,12}: weights ½, means 1 and
// 11, variances 2/3. The top component's posterior at 2 is about
// exp(−(9² − 1²)/(2·2/3)) = e⁻⁶⁰ ≤ ½ and at 10 about 1 − e⁻⁶⁰, so the cut
// is 2. On the log scale (ε = (6 − 0)/10 = 0.6, y = ln(x + 0.6)) the
// clusters stay apart (y ≤ 0.96 against y ≥ 2.36) and the cut is 2 again.
// For BIC: one Gaussian (variance 77/3) has ln L = −3·ln(2π·77/3) − 3 ≈
// −18.25, BIC ≈ 36.5 + 2·ln 6 ≈ 40.1; the two clusters have ln L =
// −3·ln(2π·2/3) − 3 − 6·ln 2 ≈ −11.46, BIC ≈ 22.9 + 5·ln 6 ≈ 31.9; three
// components, e.g. {0,1,2},{10,11},{12} at the variance floor, have
// ln L ≈ −9.1 and BIC ≈ 18.2 + 8·ln 6 ≈ 32.5. So K = 2 and the cut is 2.
var twoClusters = []float64{0, 1, 2, 10, 11, 12}

func TestHandWorked(t *testing.T) {
	cases := []struct {
		name   string
		rule   Rule
		scores []float64
		want   float64
	}{
		{"mad is median + 3·1.4826·MAD", MAD{}, ten, 5.5 + 3*1.4826*2.5},
		{"mad K scales the MAD", MAD{K: 2}, ten, 5.5 + 2*1.4826*2.5},
		{"iqr is Q3 + 1.5·(Q3−Q1)", IQR{}, ten, 7.75 + 1.5*4.5},
		{"modz is median + 3.5·MAD/0.6745", ModZ{}, ten, 5.5 + 3.5*2.5/0.6745},
		{"zscore is mean + 3σ with ddof 0", ZScore{}, ten, 14.5 + 3*math.Sqrt(818.25)},
		// Φ⁻¹(1 − 1/(4·10)) = Φ⁻¹(0.975) = 1.959963984540054.
		{"chauvenet is mean + s·Φ⁻¹(1−1/4n) with ddof 1", Chauvenet{}, ten, 14.5 + 1.959963984540054*math.Sqrt(8182.5/9)},
		// i = 1: R₁ = (100 − 14.5)/√(8182.5/9) ≈ 2.84 > λ₁ = 9·t/√((8+t²)·10)
		// ≈ 2.18 with t = t_{0.995, 8} ≈ 3.355. i = 2: over 1..9, R₂ =
		// (9 − 5)/√7.5 ≈ 1.46 < λ₂ ≈ 2.1 (t_{1−.05/9, 7} ≈ 3.4), and 3..5 are
		// no better on evenly spaced scores. One outlier: the cut is 9.
		{"gesd flags the one far score", GESD{}, ten, 9},
		{"kmeans is the midpoint of the 2-means means", KMeans{}, ten, (5 + 100) / 2.0},
		{"otsu is the top of the lower class", Otsu{}, ten, 9},
		{"gmm cuts between the clusters", GMM{}, twoClusters, 2},
		{"gmm-log cuts between the clusters", GMM{Log: true}, twoClusters, 2},
		{"gmm-bic picks two components", GMMBIC{}, twoClusters, 2},
		// Members' thresholds on ten: otsu 9, iqr 14.5, mad 16.62, kmeans
		// 52.5, zscore 100.3; three of five is the median, 16.62.
		{"comb of five is the median threshold", Comb{Rules: []Rule{MAD{}, IQR{}, ZScore{}, KMeans{}, Otsu{}}}, ten, 5.5 + 3*1.4826*2.5},
		// Of four (9, 14.5, 16.62, 52.5) a strict majority is three: the
		// third smallest.
		{"comb of four needs three votes", Comb{Rules: []Rule{MAD{}, IQR{}, KMeans{}, Otsu{}}}, ten, 5.5 + 3*1.4826*2.5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.rule.Threshold(c.scores)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-c.want) > 1e-9*math.Max(1, math.Abs(c.want)) {
				t.Errorf("%s = %.12g, want %.12g", c.rule.Name(), got, c.want)
			}
		})
	}
}

// TestESDCriticalNIST checks λᵢ against the two-sided table of the NIST/
// SEMATECH e-Handbook §1.3.5.17 (Rosner's 54 values, α = 0.05, r = 10),
// printed to three decimals.
func TestESDCriticalNIST(t *testing.T) {
	want := []float64{3.159, 3.151, 3.144, 3.136, 3.128, 3.120, 3.112, 3.103, 3.094, 3.085}
	for i, w := range want {
		if got := esdCritical(54, i+1, 0.05, 2); math.Abs(got-w) > 1.5e-3 {
			t.Errorf("λ_%d = %.4f, want %.3f", i+1, got, w)
		}
	}
}

// slowGESD recomputes each step's mean and deviation from scratch.
func slowGESD(x []float64, frac, alpha float64) float64 {
	s, _ := sorted(x)
	n := len(s)
	k := 0
	for i := 1; i <= min(int(frac*float64(n)), n-2); i++ {
		m, sd := meanStd(s[:n-i+1], 1)
		if sd == 0 {
			break
		}
		if (s[n-i]-m)/sd > esdCritical(n, i, alpha, 1) {
			k = i
		}
	}
	return s[n-k-1]
}

func TestGESDAgainstSlow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		x := sample(rng, trial%len(generators), 5+rng.IntN(60))
		got, err := GESD{}.Threshold(x)
		if err != nil {
			t.Fatal(err)
		}
		if want := slowGESD(x, 0.5, 0.05); got != want {
			t.Fatalf("trial %d: gesd = %g, slow = %g on %v", trial, got, want, x)
		}
	}
}

// slowSplit tries every split of ascending x and returns the least
// within-class sum of squares.
func slowSplit(x []float64) float64 {
	best := math.Inf(1)
	for i := 1; i < len(x); i++ {
		var sse float64
		for _, part := range [][]float64{x[:i], x[i:]} {
			_, sd := meanStd(part, 0)
			sse += sd * sd * float64(len(part))
		}
		best = math.Min(best, sse)
	}
	return best
}

// TestSplitIsOptimal checks that the O(n) scan reaches the O(n²) optimum of
// the within-class sum of squares, and that kmeans and otsu flag the same
// rows.
func TestSplitIsOptimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		x := sample(rng, trial%len(generators), 2+rng.IntN(50))
		s, _ := sorted(x)
		i, _, _ := bestSplit(s)
		if i == 0 {
			t.Fatalf("trial %d: no split of %v", trial, s)
		}
		_, sd0 := meanStd(s[:i], 0)
		_, sd1 := meanStd(s[i:], 0)
		sse := sd0*sd0*float64(i) + sd1*sd1*float64(len(s)-i)
		if want := slowSplit(s); sse > want*(1+1e-9)+1e-12 {
			t.Fatalf("trial %d: split SSE %g, optimum %g", trial, sse, want)
		}
		tk, _ := KMeans{}.Threshold(x)
		to, _ := Otsu{}.Threshold(x)
		if Ratio(x, tk) != Ratio(x, to) {
			t.Fatalf("trial %d: kmeans flags %g, otsu %g", trial, Ratio(x, tk), Ratio(x, to))
		}
	}
}

// generators draw score vectors of the shapes anomaly detectors produce.
var generators = []func(*rand.Rand) float64{
	func(r *rand.Rand) float64 { return r.NormFloat64() },
	func(r *rand.Rand) float64 { return r.ExpFloat64() },
	func(r *rand.Rand) float64 { return math.Exp(r.NormFloat64()) },
	func(r *rand.Rand) float64 {
		if r.IntN(10) == 0 {
			return 8 + r.NormFloat64()
		}
		return r.NormFloat64()
	},
}

func sample(rng *rand.Rand, g, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = generators[g](rng)
	}
	return x
}

// TestInvariance checks that every rule flags the same rows of a·x + b as
// of x (a > 0), and that its threshold moves with them, a·t + b.
func TestInvariance(t *testing.T) {
	transforms := []struct{ a, b float64 }{{1, 5}, {3, 0}, {0.01, -7}, {250, 1e3}}
	for _, r := range All() {
		t.Run(r.Name(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, 6))
			for trial := range 40 {
				x := sample(rng, trial%len(generators), 30+rng.IntN(300))
				thr, err := r.Threshold(x)
				if err != nil {
					t.Fatal(err)
				}
				want := Labels(x, thr)
				for _, tr := range transforms {
					y := make([]float64, len(x))
					for i, v := range x {
						y[i] = tr.a*v + tr.b
					}
					got, err := r.Threshold(y)
					if err != nil {
						t.Fatal(err)
					}
					if d := math.Abs(got - (tr.a*thr + tr.b)); d > 1e-6*(math.Abs(got)+tr.a*(1+math.Abs(thr))) {
						t.Errorf("trial %d, %g·x%+g: threshold %g, want %g", trial, tr.a, tr.b, got, tr.a*thr+tr.b)
					}
					diff := 0
					for i, l := range Labels(y, got) {
						if l != want[i] {
							diff++
						}
					}
					if diff > 0 {
						t.Errorf("trial %d, %g·x%+g: %d of %d labels change", trial, tr.a, tr.b, diff, len(x))
					}
				}
			}
		})
	}
}

// TestDegenerate checks every rule on inputs that break naive formulas:
// one or two rows and constant scores give a finite threshold without a
// panic, constant scores flag nothing, and empty or non-finite input is an
// error.
func TestDegenerate(t *testing.T) {
	for _, r := range All() {
		t.Run(r.Name(), func(t *testing.T) {
			for _, x := range [][]float64{{3}, {1, 2}, {2, 1}, {4, 4}, {7, 7, 7, 7, 7}, {0, 0, 0, 0, 1}, {1, 1, 1, 1e-300}} {
				thr, err := r.Threshold(x)
				if err != nil || math.IsNaN(thr) || math.IsInf(thr, 0) {
					t.Errorf("%v: threshold %g, %v", x, thr, err)
				}
				if x[0] == x[len(x)-1] && x[0] == x[len(x)/2] && Ratio(x, thr) != 0 {
					t.Errorf("%v: constant scores flag %g", x, Ratio(x, thr))
				}
			}
			bad := []struct {
				x    []float64
				want error
			}{
				{nil, ErrEmpty},
				{[]float64{}, ErrEmpty},
				{[]float64{1, math.NaN(), 2}, ErrNonFinite},
				{[]float64{1, math.Inf(1)}, ErrNonFinite},
				{[]float64{math.Inf(-1), 0}, ErrNonFinite},
			}
			for _, b := range bad {
				if _, err := r.Threshold(b.x); !errors.Is(err, b.want) {
					t.Errorf("%v: error %v, want %v", b.x, err, b.want)
				}
			}
		})
	}
}

func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range All() {
		if seen[r.Name()] {
			t.Errorf("name %q twice", r.Name())
		}
		seen[r.Name()] = true
		got, err := ByName(r.Name())
		if err != nil || got.Name() != r.Name() {
			t.Errorf("ByName(%q) = %v, %v", r.Name(), got, err)
		}
	}
	if _, err := ByName("nope"); !errors.Is(err, ErrUnknownRule) {
		t.Errorf("ByName(nope): %v, want ErrUnknownRule", err)
	}
}

func TestLabelsRatio(t *testing.T) {
	x := []float64{1, 2, 2, 3}
	got := Labels(x, 2)
	want := []bool{false, false, false, true}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Labels(%v, 2) = %v, want %v (strictly greater)", x, got, want)
		}
	}
	if r := Ratio(x, 1); r != 0.75 {
		t.Errorf("Ratio(x, 1) = %g, want 0.75", r)
	}
	if r := Ratio(nil, 0); r != 0 {
		t.Errorf("Ratio(nil) = %g, want 0", r)
	}
}

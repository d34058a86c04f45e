package synth

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// anomaliesOf generates one table over normals and returns its anomalies.
func anomaliesOf(t *testing.T, normals []float64, n, d int, kind Kind, ratio float64) []float64 {
	t.Helper()
	x, y, err := Generate(normals, n, d, Spec{Kind: kind, Ratio: ratio, Seed: 11}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rowsWith(x, y, d, 1)
}

// correlated returns n rows of d = 2 features with correlation ≈ 0.99 and
// means (3, −1), standard deviations (2, 2).
func correlated(n int) []float64 {
	rng := rand.New(rand.NewPCG(21, 0))
	return gaussianRows(rng, n, []float64{3, -1}, []float64{2, 0, 1.98, 0.28})
}

// TestGlobal checks that global anomalies lie in the normals' box widened
// by 10 % of each range on each side, and mostly outside the box itself.
func TestGlobal(t *testing.T) {
	const n, d = 500, 8
	rng := rand.New(rand.NewPCG(1, 0))
	l := make([]float64, d*d)
	for j := 0; j < d; j++ {
		l[j*d+j] = float64(j + 1)
	}
	normals := gaussianRows(rng, n, make([]float64, d), l)
	an := anomaliesOf(t, normals, n, d, Global, 0.35)
	outside := 0
	for i := 0; i < len(an)/d; i++ {
		out := false
		for j := 0; j < d; j++ {
			lo, hi := minMax(column(normals, d, j))
			w := 0.1 * (hi - lo)
			v := an[i*d+j]
			if v < lo-w || v > hi+w {
				t.Fatalf("anomaly %d, feature %d: %v outside [%v, %v]", i, j, v, lo-w, hi+w)
			}
			out = out || v < lo || v > hi
		}
		if out {
			outside++
		}
	}
	// Each feature falls outside the box with probability 0.2/1.2, so a row
	// does with probability 1 − (1/1.2)^8 ≈ 0.77.
	if frac := float64(outside) / float64(len(an)/d); frac < 0.6 {
		t.Errorf("%.2f of the anomalies outside the normals' box, want about 0.77", frac)
	}
}

// TestDependency checks that dependency anomalies keep each feature's
// marginal (mean and standard deviation) while the 0.99 correlation of the
// normals drops to about 0.
func TestDependency(t *testing.T) {
	const n, d = 2000, 2
	normals := correlated(n)
	an := anomaliesOf(t, normals, n, d, Dependency, 0.35) // 1077 anomalies
	for j := 0; j < d; j++ {
		nm, ns := stat.MeanStdDev(column(normals, d, j), nil)
		am, as := stat.MeanStdDev(column(an, d, j), nil)
		// Standard error of the mean ≈ 2/√1077 ≈ 0.06; the KDE widens the
		// standard deviation by √(1 + n^(−2/5)) ≈ 1.024.
		if math.Abs(am-nm) > 0.25 || math.Abs(as/ns-1.024) > 0.08 {
			t.Errorf("feature %d: anomalies mean %.3f sd %.3f, normals %.3f, %.3f", j, am, as, nm, ns)
		}
	}
	rn := stat.Correlation(column(normals, d, 0), column(normals, d, 1), nil)
	ra := stat.Correlation(column(an, d, 0), column(an, d, 1), nil)
	if rn < 0.98 || math.Abs(ra) > 0.1 {
		t.Errorf("correlation of normals %.3f, of anomalies %.3f; want ≈0.99 and ≈0", rn, ra)
	}
}

// TestLocal checks that local anomalies of a single Gaussian share its
// mean and spread α = 5 times its variance (the fitted mixture has K = 1).
func TestLocal(t *testing.T) {
	const n, d = 2000, 2
	normals := correlated(n)
	an := anomaliesOf(t, normals, n, d, Local, 0.35)
	ratio := totalVariance(an, d) / totalVariance(normals, d)
	if ratio < 4 || ratio > 6 {
		t.Errorf("anomalies' total variance is %.2f times the normals', want 5", ratio)
	}
	for j := 0; j < d; j++ {
		nm, ns := stat.MeanStdDev(column(normals, d, j), nil)
		if am := stat.Mean(column(an, d, j), nil); math.Abs(am-nm) > 0.3*ns {
			t.Errorf("feature %d: anomalies' mean %.3f, normals' %.3f", j, am, nm)
		}
	}
	// The covariance is scaled, not replaced: the correlation stays.
	if r := stat.Correlation(column(an, d, 0), column(an, d, 1), nil); r < 0.95 {
		t.Errorf("anomalies' correlation %.3f, want ≈0.99", r)
	}
}

// TestClustered checks that clustered anomalies of a single Gaussian keep
// its covariance and have their mean moved to lo + 5·(μ − lo), lo the
// per-feature minimum, far outside the normals.
func TestClustered(t *testing.T) {
	const n, d = 2000, 2
	normals := correlated(n)
	an := anomaliesOf(t, normals, n, d, Clustered, 0.35)
	ratio := totalVariance(an, d) / totalVariance(normals, d)
	if ratio < 0.8 || ratio > 1.25 {
		t.Errorf("anomalies' total variance is %.2f times the normals', want 1", ratio)
	}
	for j := 0; j < d; j++ {
		c := column(normals, d, j)
		lo, hi := minMax(c)
		nm, ns := stat.MeanStdDev(c, nil)
		want := lo + 5*(nm-lo)
		am := stat.Mean(column(an, d, j), nil)
		if math.Abs(am-want) > 0.2*ns {
			t.Errorf("feature %d: anomalies' mean %.3f, want %.3f", j, am, want)
		}
		if am < hi {
			t.Errorf("feature %d: anomalies' mean %.3f inside the normals' range (max %.3f)", j, am, hi)
		}
	}
}

func minMax(c []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range c {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

// totalVariance returns the trace of the covariance of the rows of x.
func totalVariance(x []float64, d int) float64 {
	var s float64
	for j := 0; j < d; j++ {
		s += stat.Variance(column(x, d, j), nil)
	}
	return s
}

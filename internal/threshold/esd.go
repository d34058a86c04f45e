package threshold

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// GESD is Rosner's generalized extreme Studentized deviate test (Rosner
// 1983, Technometrics 25(2); NIST/SEMATECH e-Handbook §1.3.5.17) applied to
// the upper tail, since only high scores are anomalous. For i = 1..r it
// removes the largest remaining score and computes
//
//	Rᵢ = (x_max − x̄)/s        over the n − i + 1 scores left before removal,
//	λᵢ = (n−i)·t / √((n−i−1+t²)(n−i+1)),  t = t_{p, n−i−1},  p = 1 − α/(n−i+1),
//
// with s the sample standard deviation and t_{p,ν} the p-quantile of
// Student's t with ν degrees of freedom (the two-sided test has
// p = 1 − α/(2(n−i+1))). The number of outliers k is the largest i with
// Rᵢ > λᵢ, and the threshold is the (k+1)-th largest score, so the k
// largest are flagged (fewer when that score ties with a removed one).
// It is equivariant under shift and positive scaling.
type GESD struct {
	// MaxFraction bounds the number of outliers tested, r = ⌊MaxFraction·n⌋
	// (at most n − 2, which keeps one degree of freedom); 0 means 0.5.
	MaxFraction float64
	// Alpha is the significance level; 0 means 0.05.
	Alpha float64
}

// Name returns "gesd".
func (GESD) Name() string { return "gesd" }

// Threshold returns the (k+1)-th largest score, k the number of outliers.
func (r GESD) Threshold(scores []float64) (float64, error) {
	x, err := sorted(scores)
	if err != nil {
		return 0, err
	}
	n := len(x)
	frac, alpha := r.MaxFraction, r.Alpha
	if frac == 0 {
		frac = 0.5
	}
	if alpha == 0 {
		alpha = 0.05
	}
	maxOut := min(int(frac*float64(n)), n-2)
	// Running sums of the scores centred on their mean, so the variance of
	// what is left does not lose digits to cancellation.
	c, _ := meanStd(x, 0)
	var sum, sumSq float64
	for _, v := range x {
		sum += v - c
		sumSq += (v - c) * (v - c)
	}
	k := 0
	for i := 1; i <= maxOut; i++ {
		m := float64(n - i + 1)
		mean := sum / m
		v := (sumSq - m*mean*mean) / (m - 1)
		if v <= 0 {
			break
		}
		top := x[n-i] - c
		if (top-mean)/math.Sqrt(v) > esdCritical(n, i, alpha, 1) {
			k = i
		}
		sum -= top
		sumSq -= top * top
	}
	return x[n-k-1], nil
}

// esdCritical returns Rosner's λᵢ for n scores, significance alpha and one
// or two tails.
func esdCritical(n, i int, alpha float64, tails int) float64 {
	df := float64(n - i - 1)
	p := 1 - alpha/(float64(tails)*float64(n-i+1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(p)
	return float64(n-i) * t / math.Sqrt((df+t*t)*float64(n-i+1))
}

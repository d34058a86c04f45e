package threshold

import (
	"math"

	"github.com/udocc/udocc/internal/stats"
)

// GMM fits a one-dimensional Gaussian mixture to the scores by EM and flags
// the rows whose posterior probability of the highest-mean component
// exceeds 1/2 (PyThresh's GMM, with a fixed number of components). EM
// starts from the component means at the quantiles (j + ½)/K, equal
// weights and variance σ²/K, so the fit is deterministic; it stops when the
// log-likelihood gains less than 1e-7 per score (a change that does not
// depend on the scale of the scores), or after 1000 iterations.
// Each variance is floored at 1e-4·σ² so no component collapses onto one
// score.
//
// The posterior of the top component need not be monotone in the score (a
// narrow top component loses the far tail to a wide one), so the threshold
// is the largest score at or below the top component's mean whose posterior
// is ≤ 1/2: every score above it is flagged (every score above the minimum
// when the top component claims them all). Fitting is equivariant under a
// shift and positive scaling, and so is the threshold (up to EM's
// tolerance).
//
// With Log set the mixture is fitted to y = ln(x − min(x) + ε), with
// ε = (median(x) − min(x))/10 (or range/10 if the median is the minimum).
// Anomaly scores such as squared distances are positive and right-skewed,
// which a Gaussian mixture on the raw scale fits with an extra wide
// component; on the log scale the bulk is closer to normal. ε is tied to
// the spread so the transform keeps the rule shift and scale invariant and
// the minimum does not become a far outlier of the log scale.
type GMM struct {
	// Components is the number of mixture components; 0 means 2.
	Components int
	// Log fits the mixture to log-scores, as described above.
	Log bool
}

// Name returns "gmm", or "gmm-log" with Log set.
func (r GMM) Name() string {
	if r.Log {
		return "gmm-log"
	}
	return "gmm"
}

// Threshold returns the score above which the top component's posterior
// exceeds 1/2.
func (r GMM) Threshold(scores []float64) (float64, error) {
	x, err := sorted(scores)
	if err != nil {
		return 0, err
	}
	if x[0] == x[len(x)-1] {
		return x[0], nil
	}
	k := r.Components
	if k == 0 {
		k = 2
	}
	y := x
	if r.Log {
		y = logScores(x)
	}
	m, _ := fitEM(y, k)
	return x[m.cut(y)], nil
}

// GMMBIC fits Gaussian mixtures of 1 to MaxComponents components to the
// raw scores, as GMM does, and keeps the one of least Bayesian information
// criterion BIC = −2·ln L + (3K − 1)·ln n (Schwarz 1978; 3K − 1 free
// weights, means and variances), ties going to fewer components. One
// component means the scores show no separate anomalous mode, and nothing is
// flagged; otherwise the cut is GMM's for the chosen mixture.
type GMMBIC struct {
	// MaxComponents is the largest mixture tried; 0 means 3.
	MaxComponents int
}

// Name returns "gmm-bic".
func (GMMBIC) Name() string { return "gmm-bic" }

// Threshold returns the GMM cut of the mixture of least BIC.
func (r GMMBIC) Threshold(scores []float64) (float64, error) {
	x, err := sorted(scores)
	if err != nil {
		return 0, err
	}
	n := len(x)
	if x[0] == x[n-1] {
		return x[0], nil
	}
	kmax := r.MaxComponents
	if kmax == 0 {
		kmax = 3
	}
	best, bestBIC := mixture{}, math.Inf(1)
	for k := 1; k <= kmax; k++ {
		m, ll := fitEM(x, k)
		bic := -2*ll + float64(3*k-1)*math.Log(float64(n))
		if bic < bestBIC {
			best, bestBIC = m, bic
		}
	}
	if len(best.w) == 1 {
		return x[n-1], nil
	}
	return x[best.cut(x)], nil
}

// logScores returns ln(x − x[0] + ε) for ascending, non-constant x, with ε
// as documented on GMM.
func logScores(x []float64) []float64 {
	eps := (stats.Quantile(x, 0.5) - x[0]) / 10
	if eps == 0 {
		eps = (x[len(x)-1] - x[0]) / 10
	}
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = math.Log(v - x[0] + eps)
	}
	return y
}

// mixture is a one-dimensional Gaussian mixture: weights, means, variances,
// and per component the constants of its log-density, set by prep.
type mixture struct{ w, mu, v, c, inv []float64 }

func newMixture(k int) mixture {
	return mixture{w: make([]float64, k), mu: make([]float64, k), v: make([]float64, k),
		c: make([]float64, k), inv: make([]float64, k)}
}

// prep sets cⱼ = ln wⱼ − ½·ln(2π·vⱼ) and invⱼ = 1/(2vⱼ) after w or v change.
func (m mixture) prep() {
	for j := range m.w {
		m.c[j] = math.Log(m.w[j]) - 0.5*math.Log(2*math.Pi*m.v[j])
		m.inv[j] = 1 / (2 * m.v[j])
	}
}

// logComponents sets lp[j] = ln(wⱼ·N(y | μⱼ, vⱼ)) and returns their
// log-sum-exp, ln p(y).
func (m mixture) logComponents(y float64, lp []float64) float64 {
	hi := math.Inf(-1)
	for j := range m.w {
		d := y - m.mu[j]
		lp[j] = m.c[j] - d*d*m.inv[j]
		hi = max(hi, lp[j])
	}
	var s float64
	for _, l := range lp {
		s += math.Exp(l - hi)
	}
	return hi + math.Log(s)
}

// fitEM fits a k-component mixture to ascending, non-constant y by EM
// from the deterministic start documented on GMM, and returns it with its
// log-likelihood.
func fitEM(y []float64, k int) (mixture, float64) {
	n := float64(len(y))
	_, sd := meanStd(y, 0)
	floor := 1e-4 * sd * sd
	m := newMixture(k)
	for j := range k {
		m.w[j] = 1 / float64(k)
		m.mu[j] = stats.Quantile(y, (float64(j)+0.5)/float64(k))
		m.v[j] = max(sd*sd/float64(k), floor)
	}
	lp := make([]float64, k)
	resp := make([]float64, k*len(y))
	ll := math.Inf(-1)
	for range 1000 {
		m.prep()
		// E-step: responsibilities and the log-likelihood of the current fit.
		var cur float64
		for i, yi := range y {
			lse := m.logComponents(yi, lp)
			cur += lse
			for j := range k {
				resp[i*k+j] = math.Exp(lp[j] - lse)
			}
		}
		if cur-ll <= 1e-7*n {
			ll = max(ll, cur)
			break
		}
		ll = cur
		// M-step: weighted means and variances of each component.
		for j := range k {
			var nj, s float64
			for i, yi := range y {
				nj += resp[i*k+j]
				s += resp[i*k+j] * yi
			}
			if nj == 0 {
				continue // an empty component keeps its parameters
			}
			mu := s / nj
			var ss float64
			for i, yi := range y {
				ss += resp[i*k+j] * (yi - mu) * (yi - mu)
			}
			m.w[j], m.mu[j], m.v[j] = nj/n, mu, max(ss/nj, floor)
		}
	}
	m.prep()
	return m, ll
}

// cut returns the index into ascending y of the largest score at or below
// the top component's mean whose posterior of that component is ≤ 1/2, or
// 0 (the minimum) when the top component claims every score.
func (m mixture) cut(y []float64) int {
	top := 0
	for j := range m.mu {
		if m.mu[j] > m.mu[top] {
			top = j
		}
	}
	lp := make([]float64, len(m.w))
	for i := len(y) - 1; i >= 0; i-- {
		if y[i] > m.mu[top] {
			continue
		}
		if lse := m.logComponents(y[i], lp); lp[top]-lse <= math.Log(0.5) {
			return i
		}
	}
	return 0
}

package threshold

import (
	"math"
	"slices"
)

// diagMixture is a Gaussian mixture with diagonal covariances over M dimensions.
type diagMixture struct {
	w      []float64   // weights
	mu, vr [][]float64 // [k][m]
	nk     []float64   // expected rows of each component in the fit
}

// bestMixture fits mixtures of 1 … kmax components and returns the one of the lowest
// BIC.
func bestMixture(x [][]float64, kmax int) diagMixture {
	n := len(x[0])
	var best diagMixture
	bestBIC := math.Inf(1)
	for k := 1; k <= min(kmax, n/2); k++ {
		mix, ll := fitDiag(x, k)
		params := float64(k-1) + float64(2*k*len(x))
		bic := -2*ll + params*math.Log(float64(n))
		if bic < bestBIC {
			best, bestBIC = mix, bic
		}
	}
	return best
}

// fitDiag fits a k-component diagonal mixture to x by EM from a deterministic start: the
// rows sorted by their mean over dimensions, cut into k blocks of equal size, each block
// giving a component's mean and variance. It stops when the log-likelihood gains less
// than 1e-4 a row, or after 150 iterations, and returns the mixture and its
// log-likelihood.
func fitDiag(x [][]float64, k int) (diagMixture, float64) {
	n := len(x[0])
	mix := diagStart(x, k)
	resp := make([]float64, n*k)
	lp := make([]float64, k)
	prev := math.Inf(-1)
	ll := 0.0
	for it := 0; it < 150; it++ {
		ll = mix.expect(x, resp, lp)
		if ll-prev < 1e-4*float64(n) {
			break
		}
		prev = ll
		mix.maximise(x, resp)
	}
	for j := 0; j < k; j++ {
		nk := 0.0
		for i := 0; i < n; i++ {
			nk += resp[i*k+j]
		}
		mix.nk[j] = nk
	}
	return mix, ll
}

// diagFloor is the variance floor of a diagonal mixture, in standardised units.
const diagFloor = 1e-3

// diagStart is fitDiag's start: the rows of x sorted by their mean over dimensions (stably),
// cut into k blocks of equal size, each block giving a component's weight, mean and
// variance.
func diagStart(x [][]float64, k int) diagMixture {
	M, n := len(x), len(x[0])
	order := make([]int, n)
	avg := make([]float64, n)
	for i := range order {
		order[i] = i
		for m := range x {
			avg[i] += x[m][i] / float64(M)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case avg[a] < avg[b]:
			return -1
		case avg[a] > avg[b]:
			return 1
		}
		return 0
	})
	mix := diagMixture{w: make([]float64, k), mu: make([][]float64, k), vr: make([][]float64, k), nk: make([]float64, k)}
	for j := 0; j < k; j++ {
		lo, hi := j*n/k, (j+1)*n/k
		mix.w[j] = float64(hi-lo) / float64(n)
		mix.mu[j], mix.vr[j] = make([]float64, M), make([]float64, M)
		for m := range x {
			var s, ss float64
			for _, i := range order[lo:hi] {
				s += x[m][i]
			}
			mu := s / float64(hi-lo)
			for _, i := range order[lo:hi] {
				ss += (x[m][i] - mu) * (x[m][i] - mu)
			}
			mix.mu[j][m], mix.vr[j][m] = mu, max(ss/float64(hi-lo), diagFloor)
		}
	}
	return mix
}

// expect is EM's E step: it sets resp[i·k+j], the responsibility of component j for row
// i, and returns the log-likelihood of x; lp is scratch of k values.
func (mix diagMixture) expect(x [][]float64, resp, lp []float64) float64 {
	M, n, k := len(x), len(x[0]), len(mix.w)
	ll := 0.0
	logNorm := make([]float64, k)
	prec := make([][]float64, k)
	for j := 0; j < k; j++ {
		logNorm[j] = math.Log(mix.w[j])
		prec[j] = make([]float64, M)
		for m := 0; m < M; m++ {
			logNorm[j] -= 0.5 * math.Log(2*math.Pi*mix.vr[j][m])
			prec[j][m] = 0.5 / mix.vr[j][m]
		}
	}
	for i := 0; i < n; i++ {
		top := math.Inf(-1)
		for j := 0; j < k; j++ {
			l := logNorm[j]
			mu, pr := mix.mu[j], prec[j]
			for m := 0; m < M; m++ {
				d := x[m][i] - mu[m]
				l -= d * d * pr[m]
			}
			lp[j] = l
			top = max(top, l)
		}
		sum := 0.0
		for j := range lp {
			lp[j] = math.Exp(lp[j] - top)
			sum += lp[j]
		}
		for j := range lp {
			resp[i*k+j] = lp[j] / sum
		}
		ll += top + math.Log(sum)
	}
	return ll
}

// maximise is EM's M step from the responsibilities resp: each component's expected
// rows, weight, means and variances (floored at diagFloor). A component with no rows
// keeps its means and variances and gets a weight of 1e-300.
func (mix diagMixture) maximise(x [][]float64, resp []float64) {
	M, n, k := len(x), len(x[0]), len(mix.w)
	for j := 0; j < k; j++ {
		nk := 0.0
		for i := 0; i < n; i++ {
			nk += resp[i*k+j]
		}
		mix.nk[j] = nk
		if nk < 1e-9 {
			mix.w[j] = 1e-300
			continue
		}
		mix.w[j] = nk / float64(n)
		for m := 0; m < M; m++ {
			var s float64
			for i := 0; i < n; i++ {
				s += resp[i*k+j] * x[m][i]
			}
			mu := s / nk
			var ss float64
			for i := 0; i < n; i++ {
				d := x[m][i] - mu
				ss += resp[i*k+j] * d * d
			}
			mix.mu[j][m], mix.vr[j][m] = mu, max(ss/nk, diagFloor)
		}
	}
}

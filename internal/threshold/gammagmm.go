package threshold

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mathext"
)

// GammaGMM estimates the posterior distribution of the contamination factor γ (the
// share of anomalies) from several detectors' scores of the same rows, in the manner of
// γGMM (Perini, Bürkner and Klami, "Estimating the Contamination Factor's Distribution
// in Unsupervised Anomaly Detection", ICML 2023). As in the paper:
//
//   - each detector's scores are mapped to ln(s − min(s) + ε) and standardised, so that
//     the detectors are comparable and their right tails are not extreme;
//   - a Gaussian mixture is fitted to the rows in the space of the M detectors;
//   - the components are ordered by how anomalous they look to every detector at once,
//     the mean over detectors of μ_m / (1 + σ_m) (the paper's "top-right first");
//   - the first component is anomalous with probability 1 − P0 and every further one,
//     given the ones before it are, with probability sigmoid(−τ − δ·order value): the
//     probability that exactly the first k components are the anomalies is
//     Π_{j≤k} p_j · (1 − p_{k+1});
//   - δ and τ are set so that no component is anomalous with probability P0 and
//     γ > HighGamma with probability PHigh (the paper's p0 = phigh = 0.01, 0.15);
//   - γ given k is the sum of the first k mixture weights, whose Dirichlet posterior
//     makes it Beta(a_k, A − a_k), a_k the first k components' concentrations and A
//     their total; the posterior of γ is the mixture of these over k, with mass P0 at 0,
//     restricted to γ < Limit (the paper's 0.25).
//
// It simplifies the paper where that changes the method's nature little and its cost
// much: the mixture is fitted by EM with diagonal covariances and its number of
// components chosen by BIC up to Components, where the paper fits a variational
// Dirichlet-process mixture of full covariances with up to 100 components; the
// concentrations are the prior's 0.01 plus each component's expected row count; and the
// order values, the weights over k and the posterior's mean and quantiles are computed
// from the fitted parameters exactly (a mixture of Beta distributions), where the paper
// draws samples from the parameters' posteriors. Components of fewer than two expected
// rows are dropped and their weight spread over the others, as in the paper.
type GammaGMM struct {
	// Components is the most mixture components tried; 0 means 8.
	Components int
	// P0 is the prior probability that no component is anomalous; 0 means 0.01.
	P0 float64
	// HighGamma and PHigh: the prior probability of γ > HighGamma is PHigh; 0 means
	// 0.15 and 0.01.
	HighGamma, PHigh float64
	// Limit truncates the posterior to γ < Limit; 0 means 0.25.
	Limit float64
	// MaxRows is the most rows the mixture is fitted on (evenly spaced rows of a larger
	// input; the concentrations are scaled back to every row); 0 means 10,000.
	MaxRows int
}

// Posterior is γ's posterior distribution: a point mass Zero at γ = 0 and the mixture
// over k ≥ 1 of Beta(A[k], B[k]) with weights W[k], restricted to γ < Limit.
type Posterior struct {
	Zero    float64
	W, A, B []float64
	Limit   float64
	// Mean is the posterior mean, the paper's estimate of γ.
	Mean float64
}

func (g GammaGMM) defaults() GammaGMM {
	if g.Components == 0 {
		g.Components = 8
	}
	if g.P0 == 0 {
		g.P0 = 0.01
	}
	if g.HighGamma == 0 {
		g.HighGamma = 0.15
	}
	if g.PHigh == 0 {
		g.PHigh = 0.01
	}
	if g.Limit == 0 {
		g.Limit = 0.25
	}
	if g.MaxRows == 0 {
		g.MaxRows = 10000
	}
	return g
}

// ErrGammaGMM reports detector scores that γGMM cannot use: fewer than two rows, columns
// of different lengths, or no columns.
var ErrGammaGMM = errors.New("threshold: gamma-gmm: unusable detector scores")

// Estimate returns γ's posterior from cols[m], detector m's scores of the rows (higher
// is more anomalous). A detector with constant scores is left out; with none left the
// posterior is γ = 0.
func (g GammaGMM) Estimate(cols [][]float64) (Posterior, error) {
	g = g.defaults()
	if len(cols) == 0 {
		return Posterior{}, fmt.Errorf("%w: no detectors", ErrGammaGMM)
	}
	n := len(cols[0])
	for m, c := range cols {
		if len(c) != n {
			return Posterior{}, fmt.Errorf("%w: detector %d has %d rows, detector 0 %d", ErrGammaGMM, m, len(c), n)
		}
		for i, v := range c {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return Posterior{}, fmt.Errorf("threshold: gamma-gmm: detector %d row %d = %v: %w", m, i+1, v, ErrNonFinite)
			}
		}
	}
	if n < 2 {
		return Posterior{}, fmt.Errorf("%w: %d rows", ErrGammaGMM, n)
	}
	rows := evenRows(n, g.MaxRows)
	var x [][]float64 // x[m] over the sampled rows
	for _, c := range cols {
		if v, ok := logStandard(c, rows); ok {
			x = append(x, v)
		}
	}
	if len(x) == 0 {
		return Posterior{Zero: 1, Limit: g.Limit}, nil
	}
	mix := bestMixture(x, g.Components)
	scale := float64(n) / float64(len(rows))
	return g.posterior(mix, scale), nil
}

// evenRows are max evenly spaced row indices of n rows (all of them when n ≤ max).
func evenRows(n, max int) []int {
	k := min(n, max)
	out := make([]int, k)
	for i := range out {
		out[i] = int(int64(i) * int64(n) / int64(k))
	}
	return out
}

// logStandard maps detector scores c at rows to ln(s − min + ε), ε a tenth of the
// scores' standard deviation (the paper's 0.01 in the units of its detectors; tied to
// the spread here so that the map does not depend on the scores' units), standardised
// to mean 0 and deviation 1; false for constant scores.
func logStandard(c []float64, rows []int) ([]float64, bool) {
	v := make([]float64, len(rows))
	for i, r := range rows {
		v[i] = c[r]
	}
	lo := slices.Min(v)
	_, sd := meanStd(v, 0)
	if !(sd > 0) {
		return nil, false
	}
	for i := range v {
		v[i] = math.Log(v[i] - lo + 0.1*sd)
	}
	m, s := meanStd(v, 0)
	if !(s > 0) {
		return nil, false
	}
	for i := range v {
		v[i] = (v[i] - m) / s
	}
	return v, true
}

// gammaPrior is the paper's weight concentration prior of a component.
const gammaPrior = 0.01

// posterior is γ's posterior from the fitted mixture; scale turns the fit's expected
// rows into the table's.
func (g GammaGMM) posterior(mix diagMixture, scale float64) Posterior {
	post := Posterior{Limit: g.Limit}
	alphas, orders := keptComponents(mix, scale)
	if len(alphas) < 2 {
		// One component: nothing stands apart from the rest.
		post.Zero = 1
		return post
	}
	K := len(alphas)
	A := 0.0
	for _, a := range alphas {
		A += a
	}
	// a_k, b_k of γ | k for k = 1 … K−1 (all K anomalous would make γ = 1).
	ak, bk := make([]float64, K-1), make([]float64, K-1)
	cum := 0.0
	for k := 0; k < K-1; k++ {
		cum += alphas[k]
		ak[k], bk[k] = cum, A-cum
	}
	// tail[k] = P(Beta(a_k, b_k) > HighGamma).
	tail := make([]float64, K-1)
	for k := range tail {
		tail[k] = 1 - mathext.RegIncBeta(ak[k], bk[k], g.HighGamma)
	}
	joint := g.joint(orders)
	delta := searchDelta(func(delta float64) float64 {
		s := 0.0
		for k, w := range joint(delta) {
			s += w * tail[k]
		}
		return s - g.PHigh
	})
	w := joint(delta)
	post.Zero = g.P0
	post.W, post.A, post.B = w, ak, bk
	post.Mean = post.mean()
	return post
}

// keptComponents returns the Dirichlet weights α and the anomaly orders of the
// components whose α (gammaPrior plus the table's expected rows) is at least 2, most
// anomalous first (the mean over dimensions of μ/(1 + σ)), with the α of the components
// left out shared equally among them; none when fewer than two are kept.
func keptComponents(mix diagMixture, scale float64) (alphas, orders []float64) {
	type comp struct{ alpha, order float64 }
	var kept []comp
	total, keptTotal := 0.0, 0.0
	for j := range mix.w {
		a := gammaPrior + mix.nk[j]*scale
		total += a
		if a < 2 {
			continue
		}
		o := 0.0
		for m := range mix.mu[j] {
			o += mix.mu[j][m] / (1 + math.Sqrt(mix.vr[j][m]))
		}
		kept = append(kept, comp{a, o / float64(len(mix.mu[j]))})
		keptTotal += a
	}
	if len(kept) < 2 {
		return nil, nil
	}
	slices.SortStableFunc(kept, func(a, b comp) int {
		switch {
		case a.order > b.order:
			return -1
		case a.order < b.order:
			return 1
		}
		return 0
	})
	K := len(kept)
	alphas, orders = make([]float64, K), make([]float64, K)
	for j, c := range kept {
		alphas[j] = c.alpha + (total-keptTotal)/float64(K)
		orders[j] = c.order
	}
	return alphas, orders
}

// joint returns, for a slope δ, the probabilities that exactly the first k+1 components
// (in anomaly order) are anomalous, k = 0 … K−2, each component j being anomalous with
// probability 1/(1 + exp(τ + δ·orders[j])), τ = logit(P0) − δ·orders[0].
func (g GammaGMM) joint(orders []float64) func(delta float64) []float64 {
	K := len(orders)
	logitP0 := math.Log(g.P0 / (1 - g.P0))
	return func(delta float64) []float64 {
		tau := logitP0 - delta*orders[0]
		p := make([]float64, K)
		for j := range p {
			p[j] = 1 / (1 + math.Exp(tau+delta*orders[j]))
		}
		out := make([]float64, K-1)
		c := 1.0
		for k := 0; k < K-1; k++ {
			c *= p[k]
			out[k] = c * (1 - p[k+1])
		}
		return out
	}
}

// searchDelta returns δ in the paper's bounds [−50, −1]: the root of high, or the bound
// nearest to it. A more negative δ makes later components less likely anomalous, so
// high falls as δ falls; bisection where it changes sign, else the better end.
func searchDelta(high func(delta float64) float64) float64 {
	lo, hi := -50.0, -1.0
	flo, fhi := high(lo), high(hi)
	delta := lo
	switch {
	case flo <= 0 && fhi >= 0:
		for it := 0; it < 100; it++ {
			mid := (lo + hi) / 2
			if high(mid) < 0 {
				lo = mid
			} else {
				hi = mid
			}
		}
		delta = (lo + hi) / 2
	case math.Abs(fhi) < math.Abs(flo):
		delta = hi
	}
	return delta
}

// mass is the untruncated posterior probability of γ ≤ x.
func (p Posterior) mass(x float64) float64 {
	s := p.Zero
	if x <= 0 {
		return s
	}
	for k, w := range p.W {
		s += w * mathext.RegIncBeta(p.A[k], p.B[k], min(x, 1))
	}
	return s
}

// mean is the mean of the posterior restricted to γ < Limit.
func (p Posterior) mean() float64 {
	z := p.mass(p.Limit)
	if !(z > 0) {
		return 0
	}
	s := 0.0
	for k, w := range p.W {
		a, b := p.A[k], p.B[k]
		s += w * a / (a + b) * mathext.RegIncBeta(a+1, b, p.Limit)
	}
	return s / z
}

// Quantile is the q-quantile of γ's posterior restricted to γ < Limit, 0 < q < 1.
func (p Posterior) Quantile(q float64) float64 {
	z := p.mass(p.Limit)
	if !(z > 0) || p.Zero >= q*z {
		return 0
	}
	lo, hi := 0.0, p.Limit
	for it := 0; it < 60; it++ {
		mid := (lo + hi) / 2
		if p.mass(mid) < q*z {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

package synth

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// mixture is a Gaussian mixture with full covariances, as scikit-learn's
// GaussianMixture(covariance_type="full") that ADBench fits.
type mixture struct {
	weights []float64       // K mixing weights, summing to 1
	means   *mat.Dense      // K×d component means, one per row
	chols   []*mat.TriDense // upper Cholesky factors U_k, Σ_k = U_kᵀU_k
	logdets []float64       // log det Σ_k
}

// emConfig bounds the EM algorithm.
type emConfig struct {
	maxIter int     // EM iterations after the k-means start
	tol     float64 // stop when the mean log-likelihood changes less
	reg     float64 // ridge added to every covariance diagonal
}

const (
	log2Pi      = 1.8378770664093453         // ln 2π
	minWeight   = 10 * 2.220446049250313e-16 // responsibility an empty component keeps (scikit-learn's 10·eps)
	ridgeTrials = 6                          // times the ridge is multiplied by 10 when Σ is not PD
)

// components returns K.
func (m *mixture) components() int { return len(m.weights) }

// params returns the free parameters of a K-component full-covariance
// mixture in d dimensions: K·d means, K·d(d+1)/2 covariances, K−1 weights.
func params(k, d int) int { return k*d + k*d*(d+1)/2 + k - 1 }

// bic returns the Bayesian information criterion −2·ln L + p·ln n of a
// fit whose mean log-likelihood over n rows is meanLL (scikit-learn's
// GaussianMixture.bic).
func bic(meanLL float64, n, k, d int) float64 {
	return -2*meanLL*float64(n) + float64(params(k, d))*math.Log(float64(n))
}

// selectMixture fits mixtures of 1…kmax components to the rows of x and
// returns the one of lowest BIC (ties go to fewer components). Each K has
// its own random stream, so a fit does not depend on which others ran.
func selectMixture(x *mat.Dense, kmax int, seed uint64, cfg emConfig) (*mixture, error) {
	n, d := x.Dims()
	var best *mixture
	bestBIC := math.Inf(1)
	for k := 1; k <= min(kmax, n); k++ {
		rng := rand.New(rand.NewPCG(seed, streamMixture+uint64(k)))
		m, ll, err := fitMixture(x, k, rng, cfg)
		if err != nil {
			return nil, err
		}
		if b := bic(ll, n, k, d); b < bestBIC {
			best, bestBIC = m, b
		}
	}
	return best, nil
}

// fitMixture fits a K-component mixture to the rows of x by EM started from
// k-means++ and Lloyd's k-means (scikit-learn's init_params="kmeans") and
// returns it with its mean log-likelihood per row.
func fitMixture(x *mat.Dense, k int, rng *rand.Rand, cfg emConfig) (*mixture, float64, error) {
	n, d := x.Dims()
	s := &emScratch{
		resp:  mat.NewDense(n, k, nil),
		work:  mat.NewDense(n, d, nil),
		white: mat.NewDense(n, d, nil),
		cov:   mat.NewDense(d, d, nil),
	}
	for i, c := range kmeans(x, k, rng) {
		s.resp.Set(i, c, 1)
	}
	m, err := mStep(x, s, cfg.reg)
	if err != nil {
		return nil, 0, err
	}
	ll, err := eStep(x, m, s)
	if err != nil {
		return nil, 0, err
	}
	for it := 0; it < cfg.maxIter; it++ {
		next, err := mStep(x, s, cfg.reg)
		if err != nil {
			return nil, 0, err
		}
		nextLL, err := eStep(x, next, s)
		if err != nil {
			return nil, 0, err
		}
		converged := math.Abs(nextLL-ll) < cfg.tol
		m, ll = next, nextLL
		if converged {
			break
		}
	}
	return m, ll, nil
}

// emScratch holds the matrices of one EM run.
type emScratch struct {
	resp        *mat.Dense // n×K responsibilities
	work, white *mat.Dense // n×d centred and whitened rows
	cov         *mat.Dense // d×d
}

// logProb writes log w_k + log N(x_i | μ_k, Σ_k) into s.resp (n×K). The Mahalanobis term is ‖(x−μ)ᵀU⁻¹‖²,
// since Σ⁻¹ = U⁻¹U⁻ᵀ; multiplying by U⁻¹ (a matrix product) is faster in
// gonum than a triangular solve.
func (m *mixture) logProb(x *mat.Dense, s *emScratch) error {
	n, d := x.Dims()
	var inv mat.TriDense
	for k := range m.weights {
		if err := inv.InverseTri(m.chols[k]); err != nil {
			return fmt.Errorf("component %d: %w: %w", k+1, ErrFit, err)
		}
		mu := m.means.RawRowView(k)
		for i := 0; i < n; i++ {
			floats.SubTo(s.work.RawRowView(i), x.RawRowView(i), mu)
		}
		s.white.Mul(s.work, mat.DenseCopyOf(&inv)) // Dense, not TriDense: Dgemm, not the slower Dtrmm
		c := math.Log(m.weights[k]) - 0.5*(float64(d)*log2Pi+m.logdets[k])
		for i := 0; i < n; i++ {
			w := s.white.RawRowView(i)
			s.resp.Set(i, k, c-0.5*floats.Dot(w, w))
		}
	}
	return nil
}

// eStep overwrites s.resp with the responsibilities of m for the rows of
// x and returns the mean log-likelihood per row.
func eStep(x *mat.Dense, m *mixture, s *emScratch) (float64, error) {
	n, _ := x.Dims()
	if err := m.logProb(x, s); err != nil {
		return 0, err
	}
	var sum float64
	for i := 0; i < n; i++ {
		r := s.resp.RawRowView(i)
		lse := floats.LogSumExp(r)
		for k := range r {
			r[k] = math.Exp(r[k] - lse)
		}
		sum += lse
	}
	return sum / float64(n), nil
}

// mStep returns the mixture whose weights, means and covariances are the
// responsibility-weighted ones of the rows of x, with reg added to every
// covariance diagonal (scikit-learn's reg_covar). A component with no
// responsibility keeps a tiny weight, as in scikit-learn.
func mStep(x *mat.Dense, s *emScratch, reg float64) (*mixture, error) {
	n, d := x.Dims()
	_, kk := s.resp.Dims()
	m := &mixture{
		weights: make([]float64, kk),
		means:   mat.NewDense(kk, d, nil),
		chols:   make([]*mat.TriDense, kk),
		logdets: make([]float64, kk),
	}
	m.means.Mul(s.resp.T(), x)
	for k := 0; k < kk; k++ {
		var nk float64
		for i := 0; i < n; i++ {
			nk += s.resp.At(i, k)
		}
		nk += minWeight
		m.weights[k] = nk / float64(n)
		mu := m.means.RawRowView(k)
		floats.Scale(1/nk, mu)
		for i := 0; i < n; i++ {
			w := s.work.RawRowView(i)
			floats.SubTo(w, x.RawRowView(i), mu)
			floats.Scale(math.Sqrt(s.resp.At(i, k)), w)
		}
		// A general product (blocked, parallel in gonum) is faster than
		// the rank-k update it computes twice over.
		s.cov.Mul(s.work.T(), s.work)
		s.cov.Scale(1/nk, s.cov)
		cov := mat.NewSymDense(d, append([]float64(nil), s.cov.RawMatrix().Data...))
		u, logdet, err := factor(cov, reg)
		if err != nil {
			return nil, fmt.Errorf("component %d of %d: %w", k+1, kk, err)
		}
		m.chols[k], m.logdets[k] = u, logdet
	}
	return m, nil
}

// factor adds reg to the diagonal of cov and returns its upper Cholesky
// factor and log-determinant. Should rounding leave the matrix not positive
// definite, the ridge is raised tenfold, up to ridgeTrials times.
func factor(cov *mat.SymDense, reg float64) (*mat.TriDense, float64, error) {
	d := cov.SymmetricDim()
	var ch mat.Cholesky
	added := 0.0
	for t := 0; t <= ridgeTrials; t++ {
		for j := 0; j < d; j++ {
			cov.SetSym(j, j, cov.At(j, j)+reg-added)
		}
		added = reg
		if ch.Factorize(cov) {
			var u mat.TriDense
			ch.UTo(&u)
			return &u, ch.LogDet(), nil
		}
		reg *= 10
	}
	return nil, 0, fmt.Errorf("synth: covariance not positive definite with a ridge of %g: %w", reg/10, ErrFit)
}

// sample draws one point of the mixture into dst, with every covariance
// scaled by covScale and the means taken from means (K×d, m.means or a
// shifted copy): μ_k + √covScale·U_kᵀz with z ~ N(0, I).
func (m *mixture) sample(dst []float64, means *mat.Dense, covScale float64, rng *rand.Rand, z []float64) {
	k := categorical(m.weights, rng)
	for j := range z {
		z[j] = rng.NormFloat64()
	}
	u := m.chols[k].RawTriangular()
	s := math.Sqrt(covScale)
	mu := means.RawRowView(k)
	for j := range dst {
		var v float64
		for i := 0; i <= j; i++ {
			v += z[i] * u.Data[i*u.Stride+j]
		}
		dst[j] = mu[j] + s*v
	}
}

// categorical draws an index with probability w[i] (w sums to 1).
func categorical(w []float64, rng *rand.Rand) int {
	u := rng.Float64()
	for i, v := range w {
		if u -= v; u < 0 {
			return i
		}
	}
	return len(w) - 1
}

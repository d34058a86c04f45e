package synth

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// fromMixture returns a anomalies (row-major a×d) sampled from the
// normals' mixture in standardised units and mapped back. Local: every
// covariance scaled by Alpha. Clustered: every mean μ_k moved to
// lo + Beta·(μ_k − lo), where lo is the normals' per-feature minimum.
func (g *Generator) fromMixture(m *mixture, kind Kind, a int, rng *rand.Rand) []float64 {
	d := g.d
	means, covScale := m.means, 1.0
	switch kind {
	case Local:
		covScale = g.opts.Alpha
	case Clustered:
		means = mat.DenseCopyOf(m.means)
		for k := 0; k < m.components(); k++ {
			mu := means.RawRowView(k)
			for j := range mu {
				lo := g.standardise(j, g.lo[j])
				mu[j] = lo + g.opts.Beta*(mu[j]-lo)
			}
		}
	}
	out := make([]float64, a*d)
	z := make([]float64, d)
	for i := 0; i < a; i++ {
		row := out[i*d : (i+1)*d]
		m.sample(row, means, covScale, rng, z)
		for j := range row {
			row[j] = g.mean[j] + g.scale[j]*row[j] // scale 0: a constant column stays constant
		}
	}
	return out
}

// global returns a anomalies, every feature uniform over
// [min − Widen·range, max + Widen·range] of the normals.
func (g *Generator) global(a int, rng *rand.Rand) []float64 {
	d := g.d
	out := make([]float64, a*d)
	for i := 0; i < a; i++ {
		for j := 0; j < d; j++ {
			w := g.opts.Widen * (g.hi[j] - g.lo[j])
			low, high := g.lo[j]-w, g.hi[j]+w
			out[i*d+j] = low + (high-low)*rng.Float64()
		}
	}
	return out
}

// dependency returns a anomalies, every feature drawn independently from a
// univariate Gaussian KDE of that feature's normal values: a normal value
// picked uniformly plus N(0, h_j²) noise with Scott's bandwidth h_j.
func (g *Generator) dependency(a int, rng *rand.Rand) []float64 {
	d := g.d
	out := make([]float64, a*d)
	for i := 0; i < a; i++ {
		for j := 0; j < d; j++ {
			v := g.x[rng.IntN(g.n)*d+j]
			out[i*d+j] = v + g.bandwidth[j]*rng.NormFloat64()
		}
	}
	return out
}

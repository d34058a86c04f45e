package synth

import (
	"math/rand/v2"
	"slices"

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

// shifted returns a anomalies, each a normal row picked uniformly with one to three
// (uniformly, at most the non-constant features) of its non-constant features, picked
// uniformly, moved by ±Shift standard deviations (the sign uniform), and each anomaly's
// moved features in increasing order. Without a non-constant feature the rows are copies
// of normal rows with no cause.
func (g *Generator) shifted(a int, rng *rand.Rand) ([]float64, [][]int) {
	d := g.d
	var free []int
	for j := 0; j < d; j++ {
		if g.scale[j] > 0 {
			free = append(free, j)
		}
	}
	out := make([]float64, a*d)
	causes := make([][]int, a)
	for i := 0; i < a; i++ {
		row := out[i*d : (i+1)*d]
		copy(row, g.x[rng.IntN(g.n)*d:][:d])
		if len(free) == 0 {
			causes[i] = []int{}
			continue
		}
		k := 1 + rng.IntN(min(3, len(free)))
		pick := rng.Perm(len(free))[:k]
		js := make([]int, k)
		for c, p := range pick {
			j := free[p]
			js[c] = j
			sign := 1.0
			if rng.IntN(2) == 0 {
				sign = -1
			}
			row[j] += sign * g.opts.Shift * g.scale[j]
		}
		slices.Sort(js)
		causes[i] = js
	}
	return out, causes
}

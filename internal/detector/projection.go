package detector

import (
	"context"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/method"
)

// projects says whether a fit with the resolved options o reads a table of d columns
// through its leading components (Ensemble.Components): the ensemble's, in one process,
// above method.EnsembleProjectAbove columns.
func (o settings) projects(d int) bool {
	return o.Method == ensembleName && o.Dist == nil && o.Components > 0 && d > method.EnsembleProjectAbove
}

// gaussianMaxValues is method.GaussianMaxValues, a variable for the tests.
var gaussianMaxValues = method.GaussianMaxValues

// Components are the principal components the networks read, 0 when they read the
// columns.
func (m *Model) Components() int {
	if m.meta.Projection == nil {
		return 0
	}
	return m.meta.Projection.Map.K
}

// GaussianWeight is the weight of the Gaussian of the model's columns in its score, 0
// when it has none.
func (m *Model) GaussianWeight() float64 {
	if m.meta.Projection == nil || m.meta.Projection.Gaussian == nil || m.meta.Ensemble == nil {
		return 0
	}
	return m.meta.Ensemble.GaussianWeight
}

// networkRows is ds (the model's columns, in order) as the networks read it: ds itself,
// or its rows mapped to the model's components, with gauss their Gaussian's distances
// where the model has one (method.ProjectRows).
func (m *Model) networkRows(ds *data.Dataset, gauss bool) (*data.Dataset, []float64, error) {
	if m.meta.Projection == nil {
		return ds, nil, nil
	}
	return method.ProjectRows(m.meta.Projection, ds, gauss)
}

// networkScores are the networks' combined scores of ds's rows (the model's columns,
// matched and imputed), without the Gaussian a wide table's model mixes into its score.
func (m *Model) networkScores(ctx context.Context, ds *data.Dataset) ([]float64, error) {
	nds, _, err := m.networkRows(ds, false)
	if err != nil {
		return nil, err
	}
	s, _, err := m.fit.Score(ctx, nds, nil)
	return s, err
}

// gaussianShapley adds to each of out's Features the Gaussian's part of its score: the
// exact Shapley values of its squared Mahalanobis distance (project.Gaussian.Shapley),
// each row of sub against the baseline median, on the score's scale (the weight over
// the distances' robust spread).
func (m *Model) gaussianShapley(out []Attribution, sub *data.Dataset, median []float32) error {
	p, e := m.meta.Projection, m.meta.Ensemble
	d := sub.D
	base := make([]float32, d)
	p.Columns.Standardise(base, median)
	scale := e.GaussianWeight / e.GaussianScale.Spread
	const block = 256 // rows at once: the buffers stay a block's, whatever the rows explained
	std := make([]float32, min(len(out), block)*d)
	phi := make([]float64, min(len(out), block)*d)
	for lo := 0; lo < len(out); lo += block {
		hi := min(lo+block, len(out))
		p.Columns.Standardise(std[:(hi-lo)*d], sub.X[lo*d:hi*d])
		if err := p.Gaussian.Shapley(phi, std[:(hi-lo)*d], hi-lo, base); err != nil {
			return err
		}
		for r := lo; r < hi; r++ {
			for j, v := range phi[(r-lo)*d : (r-lo+1)*d] {
				out[r].Features[j] += scale * v
			}
		}
	}
	return nil
}

// occludeProjected sets out's Features by occlusion for a model that reads components:
// feature j's part is the row's score less the score of the row with feature j set to
// the normal rows' median. A column's change moves the components along column j of the
// map, so the occluded rows are made in component space, d of them a row, and scored in
// blocks of explainBudget values.
//
// Where the model mixes in the Gaussian of its columns (Ensemble.GaussianWeight g), a
// column's part is the networks' by occlusion and the Gaussian's exact Shapley value
// (gaussianShapley), each on its scale in the score:
//
//	part_j = (1 − g)·(N(x) − N(x with j at the median))/s_N + g·φ_j/s_G
//
// Occlusion alone misleads under the Gaussian's distance (docs/explain.md).
func (m *Model) occludeProjected(ctx context.Context, out []Attribution, sub *data.Dataset, median []float32) error {
	p := m.meta.Projection
	d, k := sub.D, p.Map.K
	base := make([]float32, d)
	p.Columns.Standardise(base, median)
	cols := make([]float32, d*k) // column j of the map at cols[j*k:]
	for j := 0; j < d; j++ {
		p.Map.Column(j, cols[j*k:(j+1)*k])
	}
	// The networks' part: a part is the row's score less the occluded row's, or with a
	// Gaussian the same of the networks' own scores, scaled as the score scales them; the
	// row's own networks' score is then scored first (lead).
	g := m.GaussianWeight()
	scale, lead := 1.0, 0
	if g > 0 {
		scale, lead = (1-g)/m.meta.Ensemble.NetworksScale.Spread, 1
	}
	// Only a column whose value is not the median's moves the components: the occluded
	// row of any other is the row itself, and its part 0, which it keeps unscored (a
	// sparse table's row, InternetAds', has a few dozen such columns of 1,555).
	row := make([]float32, d)
	z := make([]float32, k) // the row's components
	per := max(1, explainBudget/((d+lead)*k))
	x := make([]float32, 0, min(len(out), per)*(d+lead)*k)
	var moved []int // the moved columns of the block's rows, row after row
	first := make([]int, per+1)
	err := inBlocks(ctx, len(out), per, func(lo, hi int) error {
		x, moved = x[:0], moved[:0]
		for r := lo; r < hi; r++ {
			first[r-lo] = len(moved)
			p.Columns.Standardise(row, sub.X[r*d:(r+1)*d])
			p.Map.Apply(z, row, 1)
			if lead > 0 {
				x = append(x, z...)
			}
			for j := 0; j < d; j++ {
				delta := float64(base[j]) - float64(row[j])
				if delta == 0 {
					continue
				}
				moved = append(moved, j)
				for i, c := range cols[j*k : (j+1)*k] {
					x = append(x, float32(float64(z[i])+delta*float64(c)))
				}
			}
		}
		first[hi-lo] = len(moved)
		if len(x) == 0 {
			return nil // no row of the block moves a column: every part is 0
		}
		s, _, err := m.fit.Score(ctx, &data.Dataset{Name: sub.Name, N: len(x) / k, D: k, X: x}, nil)
		if err != nil {
			return err
		}
		at := 0
		for r := lo; r < hi; r++ {
			f := out[r].Features
			self := out[r].Score
			if lead > 0 {
				self, at = s[at], at+1
			}
			for _, j := range moved[first[r-lo]:first[r-lo+1]] {
				f[j] = scale * (self - s[at])
				at++
			}
		}
		return nil
	})
	if err == nil && g > 0 {
		err = m.gaussianShapley(out, sub, median)
	}
	return err
}

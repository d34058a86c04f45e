package method

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/parallel"
	"github.com/udocc/udocc/internal/project"
	"github.com/udocc/udocc/internal/scale"
	"github.com/udocc/udocc/internal/torch"
)

// A table of more than EnsembleProjectAbove columns reaches the ensemble's networks as
// its leading principal components (Ensemble.Components), with a Ledoit–Wolf Gaussian
// of its columns beside them (Ensemble.Gaussian).

// projectionRows is the most rows the principal components are fitted on: the size of
// the ensemble's training sample.
const projectionRows = EnsembleTrainRows

// GaussianMaxValues bounds the Gaussian's matrix (min(rows, columns) × columns values,
// kept in model.json): 2^24 float32 values are 85 MB of base64, well inside the 256 MB a
// model.json may hold (models.ReadMeta), and its fit's copy of the sample 128 MB. A wider
// table (more than 8,192 columns on a 2,048-row sample) is scored by its networks alone.
// The corpus's widest, InternetAds, needs 2.4 million.
const GaussianMaxValues = 1 << 24

// FitProjection fits the map of ds's columns, standardised by cols, to its k leading
// principal components on at most projectionRows of its rows (drawn from seed), and
// with gauss the Ledoit–Wolf Gaussian of the same standardised rows (Ensemble.Gaussian);
// it returns them with ds's rows mapped (a table of k columns) and, with gauss, every
// row's squared Mahalanobis distance. A Gaussian that cannot be fitted (every column
// constant over the sample), or of more than maxGaussian values (GaussianMaxValues), is
// left out, and the networks score alone.
func FitProjection(ds *data.Dataset, cols *scale.Scaler, k int, gauss bool, seed uint64, maxGaussian int) (*models.Projection, *data.Dataset, []float64, error) {
	rows := make([]int, ds.N)
	for i := range rows {
		rows[i] = i
	}
	if ds.N > projectionRows {
		rng := rand.New(rand.NewPCG(seed, 0x5bd1e995))
		rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		rows = rows[:projectionRows]
	}
	x := make([]float64, len(rows)*ds.D)
	std := make([]float32, ds.D)
	for r, i := range rows {
		cols.Standardise(std, ds.Row(i))
		for j, v := range std {
			x[r*ds.D+j] = float64(v)
		}
	}
	p, err := project.Fit(x, len(rows), ds.D, k, seed)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("udocc: %s: principal components: %w", ds.Name, err)
	}
	proj := &models.Projection{Columns: *cols, Map: *p}
	if gauss && min(len(rows), ds.D)*ds.D <= maxGaussian {
		g, err := project.FitGaussian(x, len(rows), ds.D) // x is centred in place: not read after
		switch {
		case errors.Is(err, project.ErrGaussian) && len(rows) >= 2:
			// No spread to measure distances by: the networks alone.
		case err != nil:
			return nil, nil, nil, fmt.Errorf("udocc: %s: Gaussian: %w", ds.Name, err)
		default:
			proj.Gaussian = g
		}
	}
	pds, gd, err := ProjectRows(proj, ds, true)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("udocc: %s: Gaussian: %w", ds.Name, err)
	}
	return proj, pds, gd, nil
}

// ProjectRows is ds's rows mapped to the components of proj (a new table), and where
// proj has a Gaussian and gauss is set, each row's squared Mahalanobis distance under it
// (else nil).
func ProjectRows(proj *models.Projection, ds *data.Dataset, gauss bool) (*data.Dataset, []float64, error) {
	k := proj.Map.K
	out := &data.Dataset{Name: ds.Name, N: ds.N, D: k, X: make([]float32, ds.N*k)}
	var gd []float64
	if proj.Gaussian != nil && gauss {
		gd = make([]float64, ds.N)
	}
	const block = 256
	std := make([]float32, block*ds.D)
	for lo := 0; lo < ds.N; lo += block {
		hi := min(lo+block, ds.N)
		s := std[:(hi-lo)*ds.D]
		proj.Columns.Standardise(s, ds.X[lo*ds.D:hi*ds.D])
		// Each row's components are its own sums (the same bits on any thread).
		parallel.For(hi-lo, torch.NumThreads(), func(r int) {
			proj.Map.Apply(out.X[(lo+r)*k:(lo+r+1)*k], s[r*ds.D:(r+1)*ds.D], 1)
		})
		if gd != nil {
			if err := proj.Gaussian.Score(gd[lo:hi], s, hi-lo); err != nil {
				return nil, nil, err
			}
		}
	}
	return out, gd, nil
}

package training

import (
	"fmt"
	"math"
	"slices"

	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/parallel"
	"github.com/udocc/udocc/internal/torch"
)

// outputScaleRows is the most training rows whose encoder outputs learn the outputs'
// center and scales (Config.StandardiseOutput): a median and a median absolute deviation
// from 10^5 values are as good as from all of them, and the outputs of a 10^7-row table
// would cost K·rep·4 bytes a row. A variable only so that a test can lower it.
var outputScaleRows = 100_000

// outputScaleChunk is the most rows embedded (or rebuilt, for their residuals) at once;
// perMember takes fewer where K x rows x width would pass outputScaleChunkValues (a
// variable only so that a test can lower it).
const outputScaleChunk = 1024

var outputScaleChunkValues = 1 << 22

// outputScaleFloor bounds how much a coordinate may be magnified: its scale is at least
// this share of the member's largest. A coordinate on which nearly every training row
// agrees would otherwise outweigh all others. In the study no coordinate comes near it
// (the smallest share is 0.08).
const outputScaleFloor = 1e-3

// standardiseOutput puts each coordinate of every member's representation on a robust
// scale about a robust center, both learnt on the fit's training rows t
// (Config.StandardiseOutput), at most outputScaleRows of them at an even stride: m_kj is
// the median and s_kj the median absolute deviation of φ_kj(x) over those rows
// (models.FitScale, with its fallbacks; s at least outputScaleFloor times the member's
// largest), and the member's distance becomes
//
//	Σ_j ((φ_j(x) − m_j) / s_j)²,
//
// Eq. (3)'s distance with the center at the training rows' median and a diagonal metric:
// the sum of each coordinate's squared robust z-score. A coordinate in which the normal
// rows vary little counts as much as one in which they vary widely, so a row that departs
// along it stands out (bench/notes/threshold.md A.3). Both are folded into the last encoder layer
// and the center (torch.Group.StandardiseOutput), so scoring, saving and loading are as
// before. A data-parallel rank embeds its part of the rows and every rank learns the same
// center and scales from all of them.
func standardiseOutput(run *Run, t table, cfg Config) error {
	g := run.group
	sizes := g.Sizes()
	rep, k, d := sizes[len(sizes)-1], g.K(), t.d
	emb, m, err := perMember(sampleRows(t, cfg, outputScaleRows), d, k, rep, cfg, g.EmbeddingsOf)
	if err != nil {
		return fmt.Errorf("training: output scales: %w", err)
	}
	if m == 0 {
		return fmt.Errorf("training: output scales: no training rows")
	}
	center, spread := columnStats(emb, k, m, rep, func(col []float64) (float64, float64) {
		sc := models.FitScale(col)
		return sc.Median, sc.Spread
	})
	s := make([]float32, k*rep)
	for kk := 0; kk < k; kk++ {
		dev := spread[kk*rep : (kk+1)*rep]
		floor := outputScaleFloor * slices.Max(dev)
		for j, v := range dev {
			s[kk*rep+j] = scaleOrOne(max(v, floor))
		}
	}
	if err := g.StandardiseOutput(center, s); err != nil {
		return fmt.Errorf("training: output scales: %w", err)
	}
	return nil
}

// sampleRows is at most limit of the training rows t (limit over all the ranks of a
// data-parallel fit, each taking its share from its own rows) at an even stride, as the
// networks read them (standardised by cfg.Scaler, if the fit has one): the rows from
// which the final fit's output and reconstruction scales are learnt.
func sampleRows(t table, cfg Config, limit int) []float32 {
	if cfg.Dist != nil && cfg.Dist.World() > 1 {
		limit = max(1, limit/cfg.Dist.World())
	}
	step := max(1, (t.n+limit-1)/limit)
	x := make([]float32, 0, min(t.n, limit)*t.d)
	t.each(func(i int, row []float32) bool {
		if i%step == 0 {
			x = append(x, row...)
		}
		return true
	})
	if cfg.Scaler != nil {
		cfg.Scaler.Standardise(x, x)
	}
	return x
}

// perMember applies f, a group's function of c rows that gives K x c x width values
// (member after member: torch.Group.EmbeddingsOf, ResidualsOf), to the rows x of d
// columns, in chunks of at most outputScaleChunk rows and outputScaleChunkValues values
// (the libtorch pass holds several K x rows x width buffers at once: 16 MB each, however
// wide the table), and returns its values member after member (K x m x width) with their
// row count m. In a data-parallel fit each member's values are every rank's, gathered
// rank after rank (shard.gather), and m counts them all.
func perMember(x []float32, d, k, width int, cfg Config, f func(x []float32, c, d int) ([]float32, error)) ([]float32, int, error) {
	m := len(x) / d
	out := make([]float32, k*m*width)
	chunk := max(1, min(outputScaleChunk, outputScaleChunkValues/(k*max(width, d))))
	for lo := 0; lo < m; lo += chunk {
		c := min(chunk, m-lo)
		part, err := f(x[lo*d:(lo+c)*d], c, d)
		if err != nil {
			return nil, 0, err
		}
		for kk := 0; kk < k; kk++ {
			copy(out[(kk*m+lo)*width:(kk*m+lo+c)*width], part[kk*c*width:(kk+1)*c*width])
		}
	}
	if cfg.Dist == nil || cfg.Dist.World() <= 1 {
		return out, m, nil
	}
	sh, err := newShard(cfg.Dist, m*width)
	if err != nil {
		return nil, 0, err
	}
	if out, err = sh.gather(out, k); err != nil {
		return nil, 0, err
	}
	return out, sh.n / width, nil
}

// columnStats applies stat to every column of every member's block of vals (k blocks of
// m rows × w columns, as perMember returns them) and returns the centers and spreads,
// member kk's column j at kk*w+j. The scales of the output and of the reconstruction
// errors are learnt from them.
//
// The columns are independent: each of the fit's threads takes every T-th column, with a
// buffer of its own, and each column's statistics are the same whichever thread computes
// them.
func columnStats(vals []float32, k, m, w int, stat func(col []float64) (center, spread float64)) ([]float32, []float64) {
	center, spread := make([]float32, k*w), make([]float64, k*w)
	threads := min(torch.NumThreads(), k*w)
	parallel.For(threads, threads, func(part int) {
		col := make([]float64, m)
		for c := part; c < k*w; c += threads {
			kk, j := c/w, c%w
			e := vals[kk*m*w : (kk+1)*m*w]
			for i := range col {
				col[i] = float64(e[i*w+j])
			}
			ct, s := stat(col)
			center[c], spread[c] = float32(ct), s
		}
	})
	return center, spread
}

// scaleOrOne is v as a float32 scale, or 1 where that is not positive and finite.
func scaleOrOne(v float64) float32 {
	s := float32(v)
	if !(s > 0) || math.IsInf(float64(s), 0) {
		return 1
	}
	return s
}

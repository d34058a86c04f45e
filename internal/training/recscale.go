package training

import (
	"fmt"
	"slices"

	"github.com/udocc/udocc/internal/stats"
)

// ReconstructionWidth is c of the robust reconstruction error
// (Config.RobustReconstruction): a residual counts as its square up to about c median
// absolute deviations from the training rows' median and logarithmically beyond. The
// study's rule chose it with the distance weight (bench/notes/threshold.md A.3).
const ReconstructionWidth = 7

// reconScaleValues is the most residuals per member whose medians and deviations learn the
// reconstruction scales: 2^21 (8 MB a member), at most outputScaleRows rows, and as many
// rows as that allows for a wide table. A variable only so that a test can lower it.
var reconScaleValues = 1 << 21

// reconScaleFloor bounds how much a feature's residual may be magnified: its deviation
// is at least this share of the median deviation over the features. A feature the
// autoencoder rebuilds exactly for every training row (a constant one) would otherwise
// make any change in it count without bound.
const reconScaleFloor = 0.1

// robustReconstruction makes every member's reconstruction error robust to the features
// that its autoencoder rebuilds worst (Config.RobustReconstruction). Over the fit's
// training rows t (at most reconScaleValues residuals a member, at an even stride) it
// learns, for each feature j of each autoencoder, the median m_j and the median absolute
// deviation s_j of the residual e_j = x_j − x̂_j (the mean absolute deviation where the
// MAD is 0; at least reconScaleFloor times the median of the s_j over the features, or 1
// where that median is 0, as for a table whose rows are all equal), and
// the reconstruction error becomes
//
//	r(x) = (1/d) Σ_j log(1 + ((e_j − m_j) / (c·s_j))²),   c = ReconstructionWidth,
//
// instead of ‖e‖²/d (torch.Group.SetReconstructionScale; a saved autoencoder keeps it).
// Each feature's residual is a robust z-score, and a feature counts as its square near
// the normal rows' residuals and only logarithmically far from them: a row that leaves
// the normal rows' range in many features (a feature constant among the normal rows, a
// broken dependency) stands out, where the squared error is decided by the few features
// in which some normal rows have extreme values (bench/notes/threshold.md A.3). A data-parallel
// rank computes the residuals of its part of the rows and every rank learns the same
// scales from all of them.
func robustReconstruction(run *Run, t table, cfg Config) error {
	g := run.pre
	k, d := g.K(), t.d
	x := sampleRows(t, cfg, max(1, min(outputScaleRows, reconScaleValues/d)))
	res, m, err := perMember(x, d, k, d, cfg, g.ResidualsOf)
	if err != nil {
		return fmt.Errorf("training: reconstruction scales: %w", err)
	}
	if m == 0 {
		return fmt.Errorf("training: reconstruction scales: no training rows")
	}
	center, spread := columnStats(res, k, m, d, stats.MedianDeviation)
	scale := make([]float32, k*d)
	for kk := 0; kk < k; kk++ {
		dev := spread[kk*d : (kk+1)*d]
		floor := reconScaleFloor * stats.Median(slices.Clone(dev))
		if !(floor > 0) {
			floor = 1
		}
		for j, v := range dev {
			scale[kk*d+j] = scaleOrOne(ReconstructionWidth * max(v, floor))
		}
	}
	if err := g.SetReconstructionScale(center, scale); err != nil {
		return fmt.Errorf("training: reconstruction scales: %w", err)
	}
	return nil
}

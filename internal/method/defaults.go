package method

import (
	"github.com/udocc/udocc/internal/training"
)

// The ensemble's defaults, those of `udocc fit`, chosen by the threshold and score study (`udocc-bench
// --study`, docs/threshold.md) on the semi-synthetic benchmark and the ten paper sets
// together, and the count on 26 real tables (`udocc-bench --study --real`). The paper's
// literal settings stay DefaultConfig (`--preset paper`).
const (
	// EnsembleSize is the number of seeds trained in lockstep by default: seed s means
	// members s, s+1, …, s+EnsembleSize−1.
	EnsembleSize = 5
	// DistanceWeight is the default w of models.Ensemble: how much of the score comes from
	// the encoders' distances (standardised per coordinate: Config.StandardiseOutput), the
	// rest from the autoencoders' robust reconstruction errors
	// (Config.RobustReconstruction). The study's rule (bench.bestWeight: the highest mean
	// of (ROCAUC + PRAUC)/2 over the paper sets and the synthetic tables, each group
	// counted once) chose it among bench.Weights (bench/notes/threshold.md A.3).
	DistanceWeight = 0.45
	// ScreenWeight is the distance weight of the screening fit's scores, which choose the
	// rows the final fit leaves out and give the threshold its count (ScreenScore).
	ScreenWeight = 0.5
	// EnsembleTrainRows is the most rows the default ensemble trains on: a larger table
	// trains on a seeded sample of this many rows and every row is scored (the
	// Ensemble.TrainRows of `udocc fit`; bench/notes/cost.md says how it was chosen).
	EnsembleTrainRows = 2048
	// EnsembleProjectAbove: a table of more than EnsembleProjectAbove columns reaches the
	// ensemble's networks as its K leading principal components, K = Ensemble.Components
	// (`udocc fit --components K`), EnsembleComponents by default. bench/notes/cost.md, "Wide
	// tables on principal components", says how the bound and K were chosen.
	EnsembleProjectAbove = 300
	EnsembleComponents   = 32
	// EnsembleGaussianWeight is the weight of a Ledoit–Wolf Gaussian of a projected
	// table's columns in its score, beside the networks' (Ensemble.Gaussian, `udocc fit
	// --gaussian`): chosen leave-one-group-out on the four sources of wide tables
	// (bench/notes/cost.md, "A Gaussian beside the networks on wide tables").
	EnsembleGaussianWeight = 0.9
)

// EnsembleConfig returns the default training settings of `udocc fit`. The
// architecture and batch size are the paper's. A screening fit (50 autoencoder epochs,
// then fine-tuning) sees every row. The final fit (60 autoencoder epochs, then
// fine-tuning) sees the 90 % of rows the screening scored lowest (training.FitScreened).
// Its distances are standardised over those rows (StandardiseOutput) and its
// reconstruction errors made robust there (RobustReconstruction). Pretraining runs at lr
// 3e-3; fine-tuning is short, 10 epochs at lr 1e-4. At the paper's 1e-3 every
// fine-tuning epoch after the first lowers OC's ROCAUC, while a short tuning keeps what
// pretraining found (bench/notes/reproduction.md). The study of
// bench/notes/threshold.md A.2–A.5 chose the rest.
func EnsembleConfig() training.Config {
	c := training.DefaultConfig()
	c.PretrainEpochs = 60
	c.PretrainLR = 3e-3
	c.LR = 1e-4
	c.Epochs = 10
	c.ScreenEpochs = 50
	c.Trim = 0.1
	c.ScreenScore = ScreenScore
	c.StandardiseOutput = true
	c.RobustReconstruction = true
	return c
}

// EnsembleSeeds lists the members' seeds of the default ensemble of seed s.
func EnsembleSeeds(s uint64, size int) []uint64 {
	out := make([]uint64, size)
	for i := range out {
		out[i] = s + uint64(i)
	}
	return out
}

// EnsembleMethod is the name of the default method of `udocc fit`: a seed ensemble of
// one-class Deep SVDD members (EnsembleConfig), scored by Ensemble and thresholded by a
// label-free rule on the combined scores (DefaultThresholdRule), or by a given
// contamination.
const EnsembleMethod = "ensemble"

// DefaultThresholdRule is the kmeans count (`--threshold kmeans`): the exact two-means
// split of package threshold, applied to the screening fit's combined scores and to the
// final ones, the larger of its two shares flagged. The learned count (package
// internal/count) is the default; bench/notes/threshold.md A.0 compares them.
const DefaultThresholdRule = "kmeans"

// DefaultInterval are the bounds of the 80 % interval of the default count's share:
// [share·e^Low, share·e^High], the 10th and 90th percentiles of ln(true share / selected
// share) of the kmeans count over the study's real group (bench/notes/threshold.md A.0b).
var DefaultInterval = struct{ Low, High float64 }{Low: -2.1027, High: 1.8330}

// ScreenScore is the screening fit's score of every row: the ensemble's combination of
// its members' distances and reconstruction errors at distance weight ScreenWeight,
// with scales fitted on these rows (fitCombinationTaking).
func ScreenScore(dist, rec [][]float32) ([]float64, error) {
	_, s, err := fitCombinationTaking(dist, rec, ScreenWeight)
	return s, err
}

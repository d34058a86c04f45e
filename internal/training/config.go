package training

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/udocc/udocc/internal/dynamics"
	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/scale"
	"github.com/udocc/udocc/internal/torch"
)

// ScoreSource says which anomaly scores the selectors rank each epoch.
type ScoreSource string

const (
	// EvalScores are distances from an eval-mode pass over all rows after the epoch
	// (BatchNorm with running statistics).
	EvalScores ScoreSource = "eval"
	// TrainScores are the train-mode distances of the epoch itself, the default (see
	// docs/threshold.md: eval-mode ranks freeze at the extremes, train-mode batch noise
	// keeps every boundary measurable): each trained row's
	// distance in its own minibatch before the step; every row left out of training rides
	// in a training minibatch as a passenger, normalised with that minibatch's BatchNorm
	// statistics but not counted in them, nor in the loss.
	TrainScores ScoreSource = "train"
)

// Config is a training run's settings. The zero value is not usable; start from
// DefaultConfig, which holds the paper's settings (Section V-A).
type Config struct {
	Hidden         []int       // layer widths after the input, e.g. 32,16,8
	PretrainEpochs int         // autoencoder epochs (100); 0 skips pretraining
	Epochs         int         // fine-tuning epochs E (50)
	BatchSize      int         // minibatch rows (128)
	LR             float64     // Adam learning rate of fine-tuning, and of pretraining unless PretrainLR is set (1e-3)
	PretrainLR     float64     // Adam learning rate of pretraining; 0 means LR
	WeightDecay    float64     // Adam's L2 weight decay (1e-6)
	WarmUp         int         // SB: epochs before R is updated (10, as Ruff's code)
	CenterEps      float64     // components of c with 0 < |c_j| < CenterEps become ±CenterEps (0.1)
	Device         string      // "cpu", "cuda", "cuda:N"
	Scores         ScoreSource // which scores the selectors rank (train)
	// ScreenEpochs, when > 0, makes FitScreened fit the members first with this many
	// pretraining epochs on every row, and then with PretrainEpochs on the rows left
	// after leaving out the share Trim that scored highest by ScreenScore (the default
	// ensemble; 0: one fit on every row).
	ScreenEpochs int
	Trim         float64
	// ScreenScore combines the screening fit's members' distances and reconstruction
	// errors of every row, member by member, into one score a row; the caller's method
	// owns the formula (package method: the ensemble's combination).
	ScreenScore func(dist, rec [][]float32) ([]float64, error)
	// StandardiseOutput, in FitScreened's final fit, moves every member's center to the
	// median of its outputs over the fit's training rows and divides each coordinate by
	// its median absolute deviation there, so that the distances are
	// Σ_j ((φ_j(x) − m_j) / s_j)² (the default ensemble; see standardiseOutput).
	StandardiseOutput bool
	// RobustReconstruction, in FitScreened's final fit, makes every member's
	// reconstruction error (1/d) Σ_j log(1 + ((e_j − m_j) / (c·s_j))²) of its residuals
	// e = x − x̂, with m_j and s_j their median and median absolute deviation over the
	// fit's training rows and c = ReconstructionWidth, instead of ‖e‖²/d (the default
	// ensemble; see robustReconstruction).
	RobustReconstruction bool
	// Dist, when not nil and of more than one rank, makes the fit one rank of a
	// data-parallel run on c10d (docs/distributed.md): see FitGroup. nil is one process.
	Dist *torch.Dist
	// Scaler, when not nil, standardises the rows FitGroup is given as the shim reads
	// them (torch.Group.BorrowData): on the CPU from the caller's raw table in place, on
	// CUDA as they are copied to the device, so that the caller's raw table is the only
	// copy of them in host memory; nil: the rows are standardised already.
	Scaler *scale.Scaler

	// rescored is set by FitScreened for its final fit, whose callers score every row
	// again with the fitted networks (udocc's model): members that neither
	// label rows nor move a radius (the ensemble's OC members) then get no per-row
	// Scores, and no member gets Reconstruction errors. Those would be K n-sized float64
	// slices of each kind that nothing reads, 16·K bytes a row at the fit's peak.
	rescored bool
	// narrow is set by FitScreened for its screening fit, which only combines its
	// members' scores: members that neither label rows nor move a radius get their
	// distances and reconstruction errors as the shim's float32 values (Result.dist32,
	// rec32) instead of widened float64 ones, half the memory at the end of the fit.
	narrow bool
	// levels are fine-tuning's starting levels, one a member (outputLevels), set by
	// FitGroup for finetune's divergence check.
	levels []float64
}

// DefaultConfig returns the paper's settings with the default architecture
// (models.DefaultHidden).
func DefaultConfig() Config {
	return Config{
		Hidden:         slices.Clone(models.DefaultHidden),
		PretrainEpochs: 100,
		Epochs:         50,
		BatchSize:      128,
		LR:             1e-3,
		WeightDecay:    1e-6,
		WarmUp:         10,
		CenterEps:      0.1,
		Device:         "cpu",
		Scores:         TrainScores,
	}
}

// MaxRate is the largest learning rate or weight decay training takes: float32's
// largest number, since the networks and Adam's state are float32 (a larger one, or
// +Inf, overflows at the first step). Rates below it can still diverge; training then
// stops with ErrDiverged.
const MaxRate = math.MaxFloat32

// CheckRate says why v cannot be a learning rate or weight decay: not a number in
// (0, MaxRate], or [0, MaxRate] where zero is allowed (zero then means the default).
func CheckRate(v float64, zero bool) error {
	switch {
	case zero && !(v >= 0 && v <= MaxRate):
		return fmt.Errorf("want a number in [0, %.4g]", float64(MaxRate))
	case !zero && !(v > 0 && v <= MaxRate):
		return fmt.Errorf("want a number in (0, %.4g]", float64(MaxRate))
	}
	return nil
}

// Validate reports the first setting that cannot be used.
func (c Config) Validate() error {
	switch {
	case len(c.Hidden) == 0:
		return errors.New("training: architecture has no layers")
	case c.PretrainEpochs < 0:
		return fmt.Errorf("training: pretrain epochs %d < 0", c.PretrainEpochs)
	case c.Epochs < 1:
		return fmt.Errorf("training: epochs %d < 1", c.Epochs)
	case c.BatchSize < 2:
		return fmt.Errorf("training: batch size %d < 2 (BatchNorm needs 2 rows)", c.BatchSize)
	case CheckRate(c.LR, false) != nil:
		return fmt.Errorf("training: learning rate %g: %w", c.LR, CheckRate(c.LR, false))
	case CheckRate(c.PretrainLR, true) != nil:
		return fmt.Errorf("training: pretraining learning rate %g: %w", c.PretrainLR, CheckRate(c.PretrainLR, true))
	case CheckRate(c.WeightDecay, true) != nil:
		return fmt.Errorf("training: weight decay %g: %w", c.WeightDecay, CheckRate(c.WeightDecay, true))
	case c.WarmUp < 0:
		return fmt.Errorf("training: warm-up %d < 0", c.WarmUp)
	case c.ScreenEpochs < 0:
		return fmt.Errorf("training: screening epochs %d < 0", c.ScreenEpochs)
	case c.ScreenEpochs > 0 && !(c.Trim > 0 && c.Trim < 0.5):
		return fmt.Errorf("training: trim %g is not in (0, 0.5)", c.Trim)
	case c.ScreenEpochs > 0 && c.ScreenScore == nil:
		return fmt.Errorf("training: a screening fit needs its ScreenScore")
	case c.Scores != EvalScores && c.Scores != TrainScores:
		return fmt.Errorf("training: score source %q is not eval or train", c.Scores)
	}
	for _, h := range c.Hidden {
		if h < 1 {
			return fmt.Errorf("training: layer width %d < 1", h)
		}
	}
	return nil
}

// Member is one network's training: its seed, its objective (one-class, or SB's soft
// boundary of ν = Nu, whose radius moves after the warm-up) and the selector that picks
// each epoch's training rows and labels rows at the end (nil: every row, and for the
// one-class objective no labels). Package method builds members from its methods.
type Member struct {
	Seed     uint64
	Soft     bool
	Nu       float64 // SB's ν in (0, 1]
	Selector dynamics.Selector
}

// labels says whether the member labels rows: a selector's or the soft boundary's.
func (m Member) labels() bool { return m.Selector != nil || m.Soft }

// updatesRadius says whether the member's radius R moves in fine-tuning epoch e
// (1-based): the soft boundary's, from the epoch after cfg.WarmUp on, as Ruff's code
// does (0-based epoch >= warm-up).
func (m Member) updatesRadius(e int, cfg Config) bool { return m.Soft && e > cfg.WarmUp }

// selector is the member's selector for n rows: its own, or for OC and SB, which train
// on every row, dynamics.All (OC: ranks without a threshold; SB: with the sphere's
// labels).
func (m Member) selector(n int) (dynamics.Selector, error) {
	if m.Selector != nil {
		return m.Selector, nil
	}
	all, err := dynamics.NewAll(n)
	if err != nil {
		return nil, err
	}
	if m.Soft {
		return softBoundary{All: all, nu: m.Nu}, nil
	}
	return all, nil
}

func (m Member) validate() error {
	switch {
	case m.Soft && m.Selector != nil:
		return fmt.Errorf("training: member of seed %d: a soft boundary takes no selector", m.Seed)
	case m.Soft && !(m.Nu > 0 && m.Nu <= 1):
		return fmt.Errorf("training: member of seed %d: the soft boundary needs ν in (0, 1], have %g", m.Seed, m.Nu)
	}
	return nil
}

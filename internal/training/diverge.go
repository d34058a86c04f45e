package training

import (
	"errors"
	"fmt"
	"math"

	"github.com/udocc/udocc/internal/torch"
)

// ErrPretrainDiverged is ErrDiverged in pretraining, the autoencoders' phase, whose
// learning rate is Config.PretrainLR (or LR where that is 0); errors.Is(err,
// ErrDiverged) holds for it too.
var ErrPretrainDiverged error = pretrainDiverged{}

type pretrainDiverged struct{}

func (pretrainDiverged) Error() string        { return ErrDiverged.Error() }
func (pretrainDiverged) Is(target error) bool { return target == ErrDiverged }

// growthLimit is how many times its phase's starting level a loss may reach before the
// phase counts as diverged. A loss that is minimised does not grow by four orders of
// magnitude; an Adam step as large as the weights (--lr 1e10) makes the first epoch's
// loss 10^20 times the level.
const growthLimit = 1e4

// levelRows is the most rows a starting level is measured on: an evenly spread sample,
// so that it costs no pass over a large table.
const levelRows = 1024

// lossDiverged is the error of member k (of seed) in epoch e of stage, whose what is
// loss, when the loss is not a finite number or is more than growthLimit times level,
// the stage's level before its first step; nil otherwise.
func lossDiverged(stage string, e, k int, seed uint64, what string, loss, level float64) error {
	var is string
	switch {
	case math.IsNaN(loss) || math.IsInf(loss, 0):
		is = fmt.Sprint(loss)
	case loss > growthLimit*level:
		is = fmt.Sprintf("%.3g, %.2g times its level before training (%.3g)", loss, loss/level, level)
	default:
		return nil
	}
	sentinel := ErrDiverged
	if stage == "pretraining" {
		sentinel = ErrPretrainDiverged
	}
	return fmt.Errorf("training: %s epoch %d, member %d (seed %d): %s is %s: %w", stage, e, k, seed, what, is, sentinel)
}

// sample is up to levelRows rows of t, evenly spread, standardised as training reads
// them (by cfg.Scaler, when the rows are not standardised already); m is their number.
func sample(t table, cfg Config) (x []float32, m int) {
	m = min(t.n, levelRows)
	raw := make([]float32, 0, m*t.d)
	for i := range m {
		r := int(int64(i) * int64(t.n) / int64(m))
		if t.rows != nil {
			r = int(t.rows[r])
		}
		raw = append(raw, t.x[r*t.d:(r+1)*t.d]...)
	}
	if cfg.Scaler == nil {
		return raw, m
	}
	x = make([]float32, len(raw))
	cfg.Scaler.Standardise(x, raw)
	return x, m
}

// inputLevel is pretraining's starting level: the mean square of the standardised
// values, the reconstruction error of an autoencoder that outputs zeros, and at least 1.
// Data-parallel ranks take the mean of their levels, so that all decide alike.
func inputLevel(t table, cfg Config, sh *shard) (float64, error) {
	x, _ := sample(t, cfg)
	var sum float64
	for _, v := range x {
		sum += float64(v) * float64(v)
	}
	level := []float64{sum / float64(max(len(x), 1))}
	if !(level[0] >= 1) {
		level[0] = 1
	}
	if sh != nil {
		if err := sh.mean(level); err != nil {
			return 0, err
		}
	}
	return level[0], nil
}

// outputLevels are fine-tuning's starting levels, one a member of g before its first
// step: the mean of its eval-mode distances on a sample of t to its center as pretraining
// leaves it (zero: the outputs' mean square, which bounds the distances to the center
// fine-tuning then sets, the outputs' mean), divided by ν for a soft-boundary member
// (whose loss weighs the distances by 1/ν), and at least 1. Data-parallel ranks take the
// mean of their levels.
func outputLevels(g *torch.Group, t table, cfg Config, members []Member, sh *shard) ([]float64, error) {
	x, m := sample(t, cfg)
	if m == 0 {
		return nil, errors.New("training: no rows")
	}
	d, err := g.DistancesOf(x, m, t.d)
	if err != nil {
		return nil, err
	}
	levels := make([]float64, len(members))
	for k, mem := range members {
		var sum float64
		for _, v := range d[k*m : (k+1)*m] {
			sum += float64(v)
		}
		levels[k] = sum / float64(m)
		if mem.Soft {
			levels[k] /= mem.Nu
		}
		if !(levels[k] >= 1) { // NaN included: the finite-loss check still applies
			levels[k] = 1
		}
	}
	if sh != nil {
		if err := sh.mean(levels); err != nil {
			return nil, err
		}
	}
	return levels, nil
}

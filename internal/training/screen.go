package training

import (
	"fmt"
	"runtime"
	"slices"
)

// The default ensemble is fitted twice (docs/threshold.md). A short
// screening fit of the members on every row scores the rows; the share Config.Trim that
// score highest are left out, and the members are fitted again, from scratch, on the
// rows that are left. An autoencoder that has seen the anomalies learns to rebuild them
// and a center computed over them moves towards them; fitted without the most anomalous
// rows, both describe the normal rows, and the anomalies stand out from them. The
// screening fit also gives the threshold its count of anomalies (the threshold rule is
// applied to its scores), because a rule applied to the final scores splits off only the
// few rows the final fit finds most extreme.

// Screening is the outcome of a screening fit over the whole table.
type Screening struct {
	// Scores are the combined scores (Config.ScreenScore) of every row of the table under the screening fit; higher is more anomalous.
	Scores []float64
	// Keep marks the rows the final fit trains on: those scoring at or below the
	// (1 − Trim) quantile of Scores.
	Keep []bool
}

// Kept is the number of rows the final fit trains on.
func (s *Screening) Kept() int {
	k := 0
	for _, v := range s.Keep {
		if v {
			k++
		}
	}
	return k
}

// FitScreened fits one-class members, one per seed, on x as the default
// ensemble does: with cfg.ScreenEpochs > 0, a screening fit (Screen) and the final fit
// on the rows it keeps (FitKept). The final fit's Results hold each member's history and
// pretraining loss but no per-row scores or reconstruction errors of an OC member
// (Config.rescored): score rows, all of them or new ones, with Run.Score. With
// cfg.ScreenEpochs = 0 it is FitGroup on every row and the Screening is nil. With
// cfg.StandardiseOutput the final fit's distances are standardised (standardiseOutput),
// with cfg.RobustReconstruction its reconstruction errors made robust
// (robustReconstruction).
//
// With cfg.Dist of more than one rank, x is this rank's block (see FitGroup); the
// Screening covers the whole table and every rank trains the final fit on the kept rows
// of its own block.
func FitScreened(x []float32, n, d int, cfg Config, seeds []uint64, hooks *Hooks) (*Run, *Screening, error) {
	if cfg.ScreenEpochs == 0 {
		total, _, members, err := screenedSetup(n, cfg, seeds)
		if err != nil {
			return nil, nil, err
		}
		ms, err := members(total)
		if err != nil {
			return nil, nil, err
		}
		if cfg.StandardiseOutput || cfg.RobustReconstruction {
			// Per-row scores from before the standardisation would not be the run's:
			// the caller scores rows with Run.Score, as after a screening
			// (Config.rescored).
			cfg.rescored = true
		}
		run, err := FitGroup(x, n, d, cfg, ms, hooks)
		if err != nil {
			return nil, nil, err
		}
		run, err = standardised(run, table{x: x, d: d, n: n}, cfg)
		return run, nil, err
	}
	sc, err := Screen(x, n, d, cfg, seeds, hooks)
	if err != nil {
		return nil, nil, err
	}
	run, err := FitKept(x, n, d, cfg, seeds, sc, hooks)
	if err != nil {
		return nil, nil, err
	}
	return run, sc, nil
}

// Screen is FitScreened's screening fit (cfg.ScreenEpochs > 0): cfg.ScreenEpochs
// pretraining epochs, then cfg's fine-tuning, on every row; the rows' combined scores
// (cfg.ScreenScore); and the rows to keep, those at or below the
// (1 − cfg.Trim) quantile. A caller that takes the two steps itself may let the
// Screening's Scores go before FitKept, which reads only Keep (a large table's fit then
// does not hold them through training).
func Screen(x []float32, n, d int, cfg Config, seeds []uint64, hooks *Hooks) (*Screening, error) {
	if cfg.ScreenEpochs == 0 {
		return nil, fmt.Errorf("training: a screening fit needs screening epochs, have 0")
	}
	total, _, members, err := screenedSetup(n, cfg, seeds)
	if err != nil {
		return nil, err
	}
	return screen(x, n, d, cfg, total, members, hooks)
}

// FitKept is FitScreened's final fit: the members, fitted again from scratch with cfg
// on the rows sc keeps (sc.Keep over the whole table; a data-parallel rank trains on the
// kept rows of its block). It reads the kept rows from x through a row list (4 bytes a
// row), not from a copy of them (4·d bytes a row).
func FitKept(x []float32, n, d int, cfg Config, seeds []uint64, sc *Screening, hooks *Hooks) (*Run, error) {
	total, sh, members, err := screenedSetup(n, cfg, seeds)
	if err != nil {
		return nil, err
	}
	if len(sc.Keep) != total {
		return nil, fmt.Errorf("training: a screening of %d rows for a table of %d", len(sc.Keep), total)
	}
	keep := sc.Keep
	if sh != nil {
		keep = sh.slice(sc.Keep)
	}
	rows := make([]int32, 0, count(keep, len(keep)))
	for i, ok := range keep {
		if ok {
			rows = append(rows, int32(i))
		}
	}
	ms, err := members(sc.Kept())
	if err != nil {
		return nil, err
	}
	runtime.GC() // the screening fit's results are dead: the final fit takes their memory (campaign: 278 MB peak with it, 297 MB without)

	cfg.rescored = true // the caller scores every row with Run.Score (Config.rescored)
	t := table{x: x, d: d, n: len(rows), rows: rows}
	run, err := fitRows(t, cfg, ms, hooks)
	if err != nil {
		return nil, err
	}
	return standardised(run, t, cfg)
}

// standardised is the final fit's run with its outputs standardised over its training
// rows t when cfg.StandardiseOutput is set (standardiseOutput) and its reconstruction
// errors made robust over them when cfg.RobustReconstruction is (robustReconstruction);
// a run it cannot standardise is closed.
func standardised(run *Run, t table, cfg Config) (*Run, error) {
	if cfg.StandardiseOutput {
		if err := standardiseOutput(run, t, cfg); err != nil {
			run.Close()
			return nil, err
		}
	}
	if cfg.RobustReconstruction {
		if err := robustReconstruction(run, t, cfg); err != nil {
			run.Close()
			return nil, err
		}
	}
	return run, nil
}

// screenedSetup is what both fits of FitScreened start from, once cfg is checked: the
// rows of the whole table (n, or the sum of every rank's block), the shard of a
// data-parallel fit (nil otherwise), and a maker of the members, one per seed, for a fit
// on a number of rows.
func screenedSetup(n int, cfg Config, seeds []uint64) (int, *shard, func(int) ([]Member, error), error) {
	if err := cfg.Validate(); err != nil {
		return 0, nil, nil, err
	}
	total := n
	var sh *shard
	if cfg.Dist != nil && cfg.Dist.World() > 1 {
		var err error
		if sh, err = newShard(cfg.Dist, n); err != nil {
			return 0, nil, nil, err
		}
		total = sh.n
	}
	members := func(int) ([]Member, error) {
		out := make([]Member, len(seeds))
		for i, s := range seeds {
			out[i] = Member{Seed: s} // one-class, every row
		}
		return out, nil
	}
	return total, sh, members, nil
}

// screen runs the screening fit and chooses the rows to keep.
func screen(x []float32, n, d int, cfg Config, total int, members func(int) ([]Member, error), hooks *Hooks) (*Screening, error) {
	sc := cfg
	sc.PretrainEpochs = cfg.ScreenEpochs
	sc.narrow = true // only the combination reads the results: float32 ones (Config.narrow)
	ms, err := members(total)
	if err != nil {
		return nil, err
	}
	run, err := FitGroup(x, n, d, sc, ms, hooks.screening(sc))
	if err != nil {
		return nil, err
	}
	run.Close()
	// Only the combined scores are wanted, from the members' float32 results
	// (Config.narrow); a member that labels rows or moves a radius has float64 ones,
	// float32 values widened, which are narrowed back, exactly. Either way the
	// combination gives the numbers of the widened values.
	dist := make([][]float32, len(run.Results))
	rec := make([][]float32, len(run.Results))
	for k := range run.Results {
		r := &run.Results[k]
		dist[k], rec[k] = r.dist32, r.rec32
		if dist[k] == nil {
			dist[k] = narrow(r.Scores)
		}
		if rec[k] == nil {
			rec[k] = narrow(r.Reconstruction)
		}
		r.Scores, r.Reconstruction, r.dist32, r.rec32 = nil, nil, nil, nil
	}
	scores, err := cfg.ScreenScore(dist, rec)
	if err != nil {
		return nil, fmt.Errorf("training: screening: %w", err)
	}
	return &Screening{Scores: scores, Keep: KeepBelow(scores, cfg.Trim)}, nil
}

// KeepBelow marks the rows whose score is at most the score of rank ⌈(1 − trim)·n⌉ in
// ascending order, so that the ⌊trim·n⌋ highest-scoring rows are left out (ties at the
// cut are kept, so fewer may be).
func KeepBelow(scores []float64, trim float64) []bool {
	n := len(scores)
	keep := make([]bool, n)
	drop := int(trim * float64(n))
	if drop >= n {
		drop = n - 1
	}
	sorted := slices.Clone(scores)
	slices.Sort(sorted)
	cut := sorted[n-1-drop]
	for i, s := range scores {
		keep[i] = s <= cut
	}
	return keep
}

// screening returns the hooks of a screening fit: its epochs are reported as stages
// "screen-pretrain" and "screen-finetune", each counted against its own total, its Epoch
// callback is ScreenEpoch, and it has no Network callback, which belongs to the final fit.
func (h *Hooks) screening(cfg Config) *Hooks {
	if h == nil {
		return nil
	}
	out := &Hooks{Stop: h.Stop, Network: h.ScreenNetwork}
	if h.ScreenEpoch != nil {
		out.Epoch = func(k, e int, scores []float64, _ []bool) { h.ScreenEpoch(k, e, scores) }
	}
	if h.Progress != nil {
		out.Progress = func(stage string, e, total int) {
			h.Progress("screen-"+stage, e, total)
		}
	}
	return out
}

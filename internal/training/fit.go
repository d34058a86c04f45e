package training

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/dynamics"
	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/torch"
)

// ErrDiverged reports training whose loss or scores stopped being finite numbers,
// usually from a learning rate too large for the data.
var ErrDiverged = errors.New("training diverged")

// diverged is the error of member k (of seed) whose what is v at epoch e of stage.
func diverged(stage string, e, k int, seed uint64, what string, v float64) error {
	return fmt.Errorf("training: %s epoch %d, member %d (seed %d): %s is %v: %w", stage, e, k, seed, what, v, ErrDiverged)
}

// firstNonFinite is the index of the first NaN or ±Inf of xs, or -1.
func firstNonFinite(xs []float32) int {
	for i, v := range xs {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return i
		}
	}
	return -1
}

// Epoch is one fine-tuning epoch of one member.
type Epoch struct {
	Epoch     int             // e, 1-based
	Loss      float64         // mean minibatch loss
	TrainSize int             // rows trained on in this epoch, |D_N^e|
	Radius    float64         // SB's R of the loss after the epoch, train mode (0 for other methods)
	Seconds   float64         // wall time of the group's epoch, training and scoring
	Record    dynamics.Record // the selector's record of this epoch
}

// Result is one member's outcome.
type Result struct {
	Member       Member
	Scores       []float64 // final eval-mode anomaly scores ||φ(x)−c||², Eq. (3)
	Labels       []bool    // true = anomaly; nil for OC, which has no threshold
	Threshold    float64   // in score units: a row is anomalous when its score is above it; +Inf for OC; R² for SB
	PretrainLoss []float64 // autoencoder loss per pretraining epoch of this member's seed
	// Reconstruction is the eval-mode reconstruction error ||x − dec(enc(x))||² / d of every
	// row under this member's seed's pretrained autoencoder.
	Reconstruction []float64
	History        []Epoch

	// dist32 and rec32 take the place of Scores and Reconstruction in a screening fit
	// (Config.narrow): the shim's float32 values, which screen combines as they are.
	dist32, rec32 []float32
}

// Hooks are optional callbacks of a fit; nil fields are skipped.
type Hooks struct {
	// Progress reports where a fit is: stage "pretrain" or "finetune", epoch of total.
	Progress func(stage string, epoch, total int)
	// Epoch sees member k's eval-mode scores after fine-tuning epoch e and the labels its
	// selector would give them now (nil for OC). The slices are the hook's to keep.
	Epoch func(k, e int, scores []float64, labels []bool)
	// Network sees the group in training after every epoch (stage "pretrain": the
	// autoencoders, one per seed; "finetune": the members' encoders), to read its
	// weights with Param, Center and Radius; it must not train or close it.
	Network func(stage string, epoch int, g *torch.Group)
	// Stop is asked after every epoch, pretraining and fine-tuning; a non-nil error ends
	// the fit, which frees its networks and returns that error unwrapped (a cancelled
	// context's ctx.Err, so that errors.Is(err, context.Canceled) holds).
	Stop func() error
}

// progress reports epoch e of stage and asks Stop whether to go on.
func (h *Hooks) progress(stage string, e, total int) error {
	if h == nil {
		return nil
	}
	if h.Progress != nil {
		h.Progress(stage, e, total)
	}
	if h.Stop != nil {
		return h.Stop()
	}
	return nil
}

// Run is a finished group fit: per-member results and the trained networks.
type Run struct {
	Results         []Result
	PretrainSeconds float64
	FinetuneSeconds float64
	group           *torch.Group
	pre             *torch.Group // the pretrained autoencoders, one per seed
	seedOf          []int        // member k's autoencoder in pre
	scaler          *data.Scaler // Config.Scaler of the fit, for Score
}

// Save writes member k's network (encoder, BatchNorm statistics, center, radius) to path.
func (r *Run) Save(k int, path string) error { return r.group.Save(k, path) }

// SaveAutoencoder writes member k's pretrained autoencoder (the encoder as pretraining
// left it and its decoder), which scores new rows by reconstruction error, to path.
func (r *Run) SaveAutoencoder(k int, path string) error {
	if r.pre == nil {
		return fmt.Errorf("training: the autoencoders are closed")
	}
	return r.pre.Save(r.seedOf[k], path)
}

// scoreChunk is the rows Run.Score standardises and scores at a time: a buffer of a few
// MB, whatever the table's size, instead of a standardised copy of it (as the udocc
// package's memberScores). A variable only so that a test can lower it.
var scoreChunk = 1 << 16

// Score returns, for the m x d row-major rows x (as FitGroup was given its rows:
// standardised here by the fit's Config.Scaler, if it had one), every member's
// eval-mode distance to its center (standardised with Config.StandardiseOutput) and its
// pretrained autoencoder's reconstruction errors, member after member.
func (r *Run) Score(x []float32, m, d int) (dist, rec [][]float64, err error) {
	if r.group == nil || r.pre == nil {
		return nil, nil, fmt.Errorf("training: the run is closed")
	}
	if m < 1 || d < 1 || len(x) != m*d {
		return nil, nil, fmt.Errorf("training: data of %d values is not %d x %d", len(x), m, d)
	}
	dist, rec = make([][]float64, len(r.seedOf)), make([][]float64, len(r.seedOf))
	for k := range dist {
		dist[k], rec[k] = make([]float64, m), make([]float64, m)
	}
	var buf []float32
	if r.scaler != nil {
		buf = make([]float32, min(m, scoreChunk)*d)
	}
	for lo := 0; lo < m; lo += scoreChunk {
		hi := min(lo+scoreChunk, m)
		c, xc := hi-lo, x[lo*d:hi*d]
		if r.scaler != nil {
			xc = buf[:c*d]
			r.scaler.Standardise(xc, x[lo*d:hi*d])
		}
		ds, err := r.group.DistancesOf(xc, c, d)
		if err != nil {
			return nil, nil, fmt.Errorf("training: rows %d to %d: %w", lo, hi-1, err)
		}
		rs, err := r.pre.ReconstructionOf(xc, c, d)
		if err != nil {
			return nil, nil, fmt.Errorf("training: rows %d to %d: %w", lo, hi-1, err)
		}
		for k, s := range r.seedOf {
			widenInto(dist[k][lo:hi], ds[k*c:(k+1)*c])
			widenInto(rec[k][lo:hi], rs[s*c:(s+1)*c])
		}
	}
	return dist, rec, nil
}

// Close frees the networks; it is safe to call more than once.
func (r *Run) Close() {
	if r.group != nil {
		r.group.Close()
	}
	if r.pre != nil {
		r.pre.Close()
	}
}

// Fit trains one model on the n x d row-major matrix x (standardised by the caller, or
// by cfg.Scaler).
func Fit(x []float32, n, d int, cfg Config, m Member, hooks *Hooks) (*Run, error) {
	return FitGroup(x, n, d, cfg, []Member{m}, hooks)
}

// FitGroup trains every member in lockstep on x. Members that share a seed share one
// pretrained autoencoder; a member's numbers depend only on its own seed, method and
// the data, not on the other members (up to float rounding of padded batched products).
//
// With cfg.Dist of more than one rank, x is this rank's block of n rows, the blocks of
// ranks 0, 1, ... lying one after the other in the table; every rank calls FitGroup with
// the same cfg and members (made for the whole table's rows) and gets the same Results,
// whose scores and reconstruction errors cover the whole table (docs/distributed.md).
func FitGroup(x []float32, n, d int, cfg Config, members []Member, hooks *Hooks) (*Run, error) {
	if n < 2 || d < 1 || len(x) != n*d {
		return nil, fmt.Errorf("training: data of %d values is not %d x %d with n >= 2", len(x), n, d)
	}
	return fitRows(table{x: x, d: d, n: n}, cfg, members, hooks)
}

// table is the data of a fit: the rows rows of the row-major matrix x of d columns (all
// of x's rows when rows is nil), n of them. The shim reads them from x in place
// (torch.Group.BorrowData), so a fit on some of a table's rows copies none of them.
type table struct {
	x    []float32
	d, n int
	rows []int32
}

// each calls f with the index (0 .. n-1) and the values of every row of t.
func (t table) each(f func(i int, row []float32) bool) {
	for i := 0; i < t.n; i++ {
		r := i
		if t.rows != nil {
			r = int(t.rows[i])
		}
		if !f(i, t.x[r*t.d:(r+1)*t.d]) {
			return
		}
	}
}

// fitRows is FitGroup on the rows of t.
func fitRows(t table, cfg Config, members []Member, hooks *Hooks) (*Run, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n, d := t.n, t.d
	if n < 2 {
		return nil, fmt.Errorf("training: data of %d rows, need n >= 2", n)
	}
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("training: %d rows; at most %d", n, math.MaxInt32) // the planner's int32 rows
	}
	if len(members) == 0 {
		return nil, fmt.Errorf("training: no members")
	}
	for _, m := range members {
		if err := m.validate(); err != nil {
			return nil, err
		}
	}
	var bad error
	t.each(func(i int, row []float32) bool {
		for j, v := range row {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				bad = fmt.Errorf("training: row %d, column %d is not a finite number", i, j)
				return false
			}
		}
		return true
	})
	if bad != nil {
		return nil, bad
	}
	if cfg.Scaler != nil && len(cfg.Scaler.Mean) != d {
		return nil, fmt.Errorf("training: a scaler of %d columns for data of %d", len(cfg.Scaler.Mean), d)
	}

	var sh *shard
	if cfg.Dist != nil && cfg.Dist.World() > 1 {
		var err error
		if sh, err = newShard(cfg.Dist, n); err != nil {
			return nil, err
		}
	}
	seeds, seedOf := uniqueSeeds(members)
	run := &Run{scaler: cfg.Scaler}
	t0 := time.Now()
	pre, preLoss, err := pretrain(t, cfg, seeds, hooks, sh)
	if err != nil {
		return nil, err
	}
	run.PretrainSeconds = time.Since(t0).Seconds()
	run.pre, run.seedOf = pre, seedOf
	ft, err := pre.Derive(seedOf)
	if err != nil {
		run.Close()
		return nil, err
	}
	run.group = ft
	if cfg.levels, err = outputLevels(ft, t, cfg, members, sh); err != nil {
		run.Close()
		return nil, err
	}
	t1 := time.Now()
	if err := finetune(ft, run, cfg, members, hooks, sh); err != nil {
		run.Close()
		return nil, err
	}
	run.FinetuneSeconds = time.Since(t1).Seconds()
	// The autoencoders' reconstruction errors (K x n) are taken now, not held through
	// fine-tuning, which leaves the autoencoders as pretraining did; their time counts as
	// pretraining's.
	t2 := time.Now()
	runtime.GC() // fine-tuning's eval distances are dead: the errors take their memory (see finetune)
	// On the CPU one seed's errors at a time, widened into its members' results: K x n
	// float32 of them at once would stand beside the results. Data-parallel ranks gather
	// every seed's at once, and on CUDA each call computes every member's anyway.
	var recon []float32
	if cfg.rescored {
		// No errors: the caller computes them again from the saved autoencoders.
	} else if sh == nil && cfg.Device == "cpu" {
		err = reconstructEach(pre, run.Results, seedOf, n, cfg.narrow)
	} else {
		recon, err = pre.Reconstruction()
		if err == nil && sh != nil {
			recon, err = sh.gather(recon, len(seeds))
		}
	}
	if err != nil {
		run.Close()
		return nil, err
	}
	if sh != nil {
		n = sh.n
	}
	run.PretrainSeconds += time.Since(t2).Seconds()
	// The networks are trained: the table, which both groups share (the caller's,
	// borrowed, on the CPU; a copy on CUDA), is let go, and the caller's table unpinned,
	// before the errors taken in one piece are widened, so that a copy and they do not add
	// up.
	for _, g := range []*torch.Group{ft, pre} {
		if err := g.DropData(); err != nil {
			run.Close()
			return nil, err
		}
	}
	for k := range run.Results {
		run.Results[k].PretrainLoss = preLoss[seedOf[k]]
		if recon != nil {
			s := seedOf[k]
			if cfg.narrow {
				run.Results[k].rec32 = recon[s*n : (s+1)*n]
			} else {
				run.Results[k].Reconstruction = widen(recon[s*n : (s+1)*n])
			}
		}
	}
	return run, nil
}

// reconstructEach sets every result's reconstruction errors from its seed's autoencoder
// in pre, one seed at a time through one n-sized buffer, widened; with narrow, each
// seed's float32 errors in a slice of their own (Result.rec32).
func reconstructEach(pre *torch.Group, results []Result, seedOf []int, n int, narrow bool) error {
	buf := make([]float32, n)
	for s := 0; s < pre.K(); s++ {
		if narrow && s > 0 {
			buf = make([]float32, n)
		}
		if err := pre.ReconstructionTo(s, buf); err != nil {
			return err
		}
		for k := range results {
			if seedOf[k] == s {
				if narrow {
					results[k].rec32 = buf
				} else {
					results[k].Reconstruction = widen(buf)
				}
			}
		}
	}
	return nil
}

// uniqueSeeds lists the members' seeds in order of first appearance and maps each member
// to its seed's position.
func uniqueSeeds(members []Member) ([]uint64, []int) {
	var seeds []uint64
	pos := map[uint64]int{}
	of := make([]int, len(members))
	for k, m := range members {
		i, ok := pos[m.Seed]
		if !ok {
			i = len(seeds)
			pos[m.Seed] = i
			seeds = append(seeds, m.Seed)
		}
		of[k] = i
	}
	return seeds, of
}

func fill(k int, v float64) []float64 {
	s := make([]float64, k)
	for i := range s {
		s[i] = v
	}
	return s
}

// pretrain fits one autoencoder per seed for cfg.PretrainEpochs epochs and returns the
// group (encoder weights and BatchNorm statistics are what fine-tuning starts from) and
// each seed's loss per epoch.
func pretrain(t table, cfg Config, seeds []uint64, hooks *Hooks, sh *shard) (*torch.Group, [][]float64, error) {
	k, n, d := len(seeds), t.n, t.d
	g, err := torch.NewGroup(models.Sizes(d, cfg.Hidden), k, true, cfg.Device, seeds)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*torch.Group, [][]float64, error) {
		g.Close()
		return nil, nil, err
	}
	steps := 0 // data-parallel: every rank's steps per epoch
	if sh != nil {
		if err := g.SetDist(sh.d); err != nil {
			return fail(err)
		}
		if steps, err = sh.steps(nil, cfg.BatchSize); err != nil {
			return fail(err)
		}
	}
	// On the CPU the shim reads the caller's rows in place, standardised by cfg.Scaler as
	// it reads them; on CUDA it keeps the one copy on the device. No other copy is made.
	var mean, scale []float64
	if cfg.Scaler != nil {
		mean, scale = cfg.Scaler.Mean, cfg.Scaler.Scale
	}
	if err := g.BorrowData(t.x, len(t.x)/d, d, t.rows, mean, scale); err != nil {
		return fail(err)
	}
	lr := cfg.PretrainLR
	if lr == 0 {
		lr = cfg.LR
	}
	if err := g.ResetAdam(torch.Autoencoder, fill(k, lr), fill(k, cfg.WeightDecay)); err != nil {
		return fail(err)
	}
	rngs := make([]*rand.Rand, k)
	for i, s := range seeds {
		rngs[i] = rand.New(rand.NewPCG(s, rankStream(pretrainStream, sh)))
	}
	level, err := inputLevel(t, cfg, sh)
	if err != nil {
		return fail(err)
	}
	losses := make([][]float64, k)
	pl := newPlanner(n, cfg.BatchSize, k)
	for e := 1; e <= cfg.PretrainEpochs; e++ {
		if sh == nil {
			pl.drawEach(rngs, nil, false)
		} else {
			for i := range rngs {
				pl.drawSteps(i, rngs[i], nil, steps, false)
			}
		}
		loss, err := g.PretrainEpoch(pl.layout())
		if err == nil && sh != nil {
			err = sh.mean(loss) // every rank reports the ranks' mean loss
		}
		if err != nil {
			return fail(fmt.Errorf("training: pretraining epoch %d: %w", e, err))
		}
		for i, l := range loss {
			if err := lossDiverged("pretraining", e, i, seeds[i], "the autoencoder loss", l, level); err != nil {
				return fail(err)
			}
			losses[i] = append(losses[i], l)
		}
		if hooks != nil && hooks.Network != nil {
			hooks.Network("pretrain", e, g)
		}
		if err := hooks.progress("pretrain", e, cfg.PretrainEpochs); err != nil {
			return fail(err)
		}
	}
	return g, losses, nil
}

// finetune runs Algorithm 1 for every member of g: train an epoch on each member's
// D_N^e, score all rows, let the member's selector pick D_N^{e+1}.
func finetune(g *torch.Group, run *Run, cfg Config, members []Member, hooks *Hooks, sh *shard) error {
	k, local := g.K(), g.N()
	n := local // rows the selectors rank: the whole table's
	if sh != nil {
		n = sh.n
	}
	if err := g.InitCenter(cfg.CenterEps); err != nil {
		return err
	}
	if err := g.ResetAdam(torch.Encoder, fill(k, cfg.LR), fill(k, cfg.WeightDecay)); err != nil {
		return err
	}
	sels := make([]dynamics.Selector, k)
	obj := torch.Objective{Soft: make([]uint8, k), Nu: make([]float64, k), UpdateR: make([]uint8, k)}
	rngs := make([]*rand.Rand, k)
	for i, m := range members {
		sel, err := m.selector(n)
		if err != nil {
			return err
		}
		sels[i] = sel
		if m.method().Soft {
			obj.Soft[i], obj.Nu[i] = 1, m.Nu
		}
		rngs[i] = rand.New(rand.NewPCG(m.Seed, rankStream(finetuneStream, sh)))
	}
	run.Results = make([]Result, k)
	for i, m := range members {
		run.Results[i].Member = m
	}
	// ranks says whether some member's selector ranks every row's scores after each
	// epoch. When every member trains on every row (dynamics.All: OC, the ensemble's
	// members) nothing does: the train-mode scores (a K n-sized buffer) are not taken and
	// no member's scores are widened for its selector; the eval pass still runs (below),
	// and an Epoch hook reads its scores. ranks is a function of the members alone, never
	// of the hooks, so that every rank of a data-parallel fit runs the same collectives
	// in the same order, whichever hooks each rank's caller set.
	ranks := false
	for _, s := range sels {
		if _, all := s.(*dynamics.All); !all {
			ranks = true
		}
	}
	masks := make([][]bool, k)         // nil: all rows (epochs 1 and 2 of Algorithm 1)
	var trainDist, localDist []float32 // localDist: this rank's rows of trainDist
	if cfg.Scores == TrainScores && ranks {
		trainDist = make([]float32, k*n)
		localDist = trainDist
		if sh != nil {
			localDist = make([]float32, k*local)
		}
	}
	var dist, localScores []float32 // localScores: this rank's rows of dist
	// ranked is a member's scores as its selector sees them: one buffer, which every
	// member uses in turn, every epoch (no selector keeps the slice). A buffer per member,
	// or a new slice per epoch, would hold K (or more) n-sized slices at 8 bytes a row.
	var ranked []float64
	pl := newPlanner(local, cfg.BatchSize, k) // this rank's rows (all of them in one process)
	for e := 1; e <= cfg.Epochs; e++ {
		start := time.Now()
		if sh == nil {
			pl.drawEach(rngs, masks, trainDist != nil)
		}
		for i := range rngs {
			if sh != nil {
				steps, err := sh.steps(masks[i], cfg.BatchSize)
				if err != nil {
					return fmt.Errorf("training: member %d epoch %d: %w", i, e, err)
				}
				pl.drawSteps(i, rngs[i], sh.slice(masks[i]), steps, trainDist != nil)
			}
			if members[i].method().UpdatesRadius(e, cfg) {
				obj.UpdateR[i] = 1
			}
		}
		loss, err := g.TrainEpoch(pl.layout(), obj, localDist)
		if err != nil {
			return fmt.Errorf("training: epoch %d: %w", e, err)
		}
		// The eval pass runs every epoch even where no selector ranks its scores: a
		// network diverging shows first there (+Inf distances in eval mode while the
		// train-mode loss is still finite: --lr 1e10 on a 60-row table).
		if localScores == nil {
			localScores = make([]float32, k*local) // reused every epoch
		}
		if err = g.DistancesTo(localScores); err != nil {
			return fmt.Errorf("training: epoch %d: %w", e, err)
		}
		dist = localScores
		if sh != nil {
			// Every rank ranks all n rows: the scores of every block, gathered.
			if err = sh.mean(loss); err == nil {
				dist, err = sh.gather(localScores, k)
			}
			if err == nil && trainDist != nil {
				trainDist, err = sh.gather(localDist, k)
			}
			if err != nil {
				return fmt.Errorf("training: epoch %d: %w", e, err)
			}
		}
		radius, err := g.Radius()
		if err != nil {
			return err
		}
		for i, m := range members {
			if err := lossDiverged("fine-tuning", e, i, m.Seed, "the loss", loss[i], cfg.levels[i]); err != nil {
				return err
			}
			for _, d := range [][]float32{dist, trainDist} {
				if d == nil {
					continue
				}
				if j := firstNonFinite(d[i*n : (i+1)*n]); j >= 0 {
					return diverged("fine-tuning", e, i, m.Seed, fmt.Sprintf("the score of row %d", j), float64(d[i*n+j]))
				}
			}
		}
		secs := time.Since(start).Seconds()
		for i := range members {
			var src []float32
			switch {
			case trainDist != nil:
				src = trainDist[i*n : (i+1)*n]
			case ranks:
				src = dist[i*n : (i+1)*n]
			}
			var scores []float64 // nil: the member's dynamics.All reads none
			if src != nil {
				ranked = widenInto(ranked, src)
				scores = ranked
			}
			mask, rec, err := sels[i].Next(e, scores)
			if err != nil {
				return fmt.Errorf("training: member %d epoch %d: %w", i, e, err)
			}
			c := count(mask, n)
			if c < 2 {
				return fmt.Errorf("training: member %d epoch %d: the next training set has %d rows, need 2", i, e, c)
			}
			run.Results[i].History = append(run.Results[i].History, Epoch{
				Epoch: e, Loss: loss[i], TrainSize: count(masks[i], n),
				Radius: float64(radius[i]), Seconds: secs, Record: rec,
			})
			if c == n {
				mask = nil // every row, as nil says without an n-sized slice held through the epoch
			}
			masks[i] = mask
			if hooks != nil && hooks.Epoch != nil {
				scores := widen(dist[i*n : (i+1)*n])
				labels, _, err := sels[i].Label(scores)
				if errors.Is(err, dynamics.ErrNotReady) || errors.Is(err, dynamics.ErrNoThreshold) {
					labels, err = nil, nil // no threshold before the first search
				}
				if err != nil {
					return fmt.Errorf("training: member %d epoch %d: labels: %w", i, e, err)
				}
				hooks.Epoch(i, e, scores, labels)
			}
		}
		if hooks != nil && hooks.Network != nil {
			hooks.Network("finetune", e, g)
		}
		if err := hooks.progress("finetune", e, cfg.Epochs); err != nil {
			return err
		}
	}
	radius, err := g.Radius()
	if err != nil {
		return err
	}
	// The epochs' buffers (the train distances, the plan, the masks: several n-sized
	// slices a member) are dead from here on. A collection now lets the members' final
	// scores, widened below, take their memory; left to the pacer, the collection runs
	// while those are allocated, and the two add up in the peak. A heap of a
	// few large slices without pointers is collected in about a millisecond.
	runtime.GC()
	for i := range members {
		r := &run.Results[i]
		if m := members[i].method(); (cfg.rescored || cfg.narrow) && !m.Labels && !m.Soft {
			r.Threshold = math.Inf(1) // as OC's Label says, without the scores
			if cfg.narrow {
				r.dist32 = dist[i*n : (i+1)*n] // the epochs' buffer, which no epoch writes again
			}
			continue
		}
		r.Scores = widenInto(ranked, dist[i*n:(i+1)*n]) // member 0's takes the epochs' buffer
		ranked = nil
		labels, thr, err := sels[i].Label(r.Scores)
		if errors.Is(err, dynamics.ErrNoThreshold) {
			labels, thr, err = nil, math.Inf(1), nil // OC and other rankers without a threshold
		}
		if err != nil {
			return fmt.Errorf("training: member %d: labels: %w", i, err)
		}
		r.Labels, r.Threshold = labels, thr
		if sb, ok := sels[i].(softBoundary); ok {
			// The model's radius is the sphere of its labels (softBoundary), which Save keeps.
			if radius[i], err = sb.radius(r.Scores); err != nil {
				return fmt.Errorf("training: member %d: radius: %w", i, err)
			}
		}
	}
	return g.SetRadius(radius)
}

// widenInto converts xs to float64 into dst's array when it is large enough.
func widenInto(dst []float64, xs []float32) []float64 {
	dst = grow(dst, len(xs))
	for i, v := range xs {
		dst[i] = float64(v)
	}
	return dst
}

func widen(xs []float32) []float64 { return widenInto(nil, xs) }

// narrow converts xs, float32 values widened, back to float32: exactly.
func narrow(xs []float64) []float32 {
	out := make([]float32, len(xs))
	for i, v := range xs {
		out[i] = float32(v)
	}
	return out
}

// count is the number of true entries of mask, or n for a nil mask.
func count(mask []bool, n int) int {
	if mask == nil {
		return n
	}
	c := 0
	for _, b := range mask {
		if b {
			c++
		}
	}
	return c
}

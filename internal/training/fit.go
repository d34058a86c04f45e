package training

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/udocc/udocc/internal/dynamics"
	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/scale"
	"github.com/udocc/udocc/internal/stats"
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
	Epoch           int     // e, 1-based
	Loss            float64 // mean minibatch loss
	TrainSize       int     // rows trained on in this epoch, |D_N^e|
	Radius          float64 // SB's R of the loss after the epoch, train mode (0 for other methods)
	Seconds         float64 // wall time of the group's epoch, training and scoring
	dynamics.Record         // the selector's record of this epoch (its Epoch is the one above)
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
	// ScreenEpoch, for a screened fit (FitScreened), sees member k's eval-mode scores of
	// every row after the screening fit's fine-tuning epoch e (the count study reads its
	// training dynamics from them). The slice is the hook's to keep.
	ScreenEpoch func(k, e int, scores []float64)
	// Network sees the group in training after every epoch (stage "pretrain": the
	// autoencoders, one per seed; "finetune": the members' encoders), to read its
	// weights with Param, Center and Radius; it must not train or close it.
	Network func(stage string, epoch int, g *torch.Group)
	// ScreenNetwork, for a screened fit, sees the screening fit's group as Network sees
	// the final fit's.
	ScreenNetwork func(stage string, epoch int, g *torch.Group)
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
	pre             *torch.Group  // the pretrained autoencoders, one per seed
	seedOf          []int         // member k's autoencoder in pre
	scaler          *scale.Scaler // Config.Scaler of the fit, for Score
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

// Network is a group of member k's network alone, as Save writes it and torch.Load
// reads it back, made without a file; the caller closes it.
func (r *Run) Network(k int) (*torch.Group, error) { return r.group.Extract(k) }

// Autoencoder is a group of member k's pretrained autoencoder alone, as SaveAutoencoder
// writes it; the caller closes it.
func (r *Run) Autoencoder(k int) (*torch.Group, error) {
	if r.pre == nil {
		return nil, fmt.Errorf("training: the autoencoders are closed")
	}
	return r.pre.Extract(r.seedOf[k])
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
	if err := checkFit(t, cfg, members); err != nil {
		return nil, err
	}
	n := t.n
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
	recon, err := reconstructions(pre, run.Results, cfg, sh, n, len(seeds), seedOf)
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
				run.Results[k].Reconstruction = stats.Widen(nil, recon[s*n:(s+1)*n])
			}
		}
	}
	return run, nil
}

// checkFit reports what a fit of t with cfg and members cannot train on.
func checkFit(t table, cfg Config, members []Member) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	switch {
	case t.n < 2:
		return fmt.Errorf("training: data of %d rows, need n >= 2", t.n)
	case t.n > math.MaxInt32:
		return fmt.Errorf("training: %d rows; at most %d", t.n, math.MaxInt32) // the planner's int32 rows
	case len(members) == 0:
		return fmt.Errorf("training: no members")
	}
	for _, m := range members {
		if err := m.validate(); err != nil {
			return err
		}
	}
	var bad error
	t.each(func(i int, row []float32) bool {
		for j, v := range row {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				bad = fmt.Errorf("training: row %d, column %d is not a finite number", i+1, j+1)
				return false
			}
		}
		return true
	})
	if bad != nil {
		return bad
	}
	if cfg.Scaler != nil && len(cfg.Scaler.Mean) != t.d {
		return fmt.Errorf("training: a scaler of %d columns for data of %d", len(cfg.Scaler.Mean), t.d)
	}
	return nil
}

// reconstructions takes the autoencoders' reconstruction errors of the n local rows.
// On the CPU in one process they go straight into the results, one seed's at a time,
// widened (reconstructEach: K x n float32 of them at once would stand beside the
// results), and nil is returned; data-parallel ranks gather every seed's at once, and on
// CUDA each call computes every member's anyway: those are returned, seed after seed.
// A rescored fit takes none: its caller computes them again from the autoencoders.
func reconstructions(pre *torch.Group, results []Result, cfg Config, sh *shard, n, seeds int, seedOf []int) ([]float32, error) {
	switch {
	case cfg.rescored:
		return nil, nil
	case sh == nil && cfg.Device == "cpu":
		return nil, reconstructEach(pre, results, seedOf, n, cfg.narrow)
	}
	recon, err := pre.Reconstruction()
	if err == nil && sh != nil {
		recon, err = sh.gather(recon, seeds)
	}
	return recon, err
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
					results[k].Reconstruction = stats.Widen(nil, buf)
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
	t, err := newTuning(g, cfg, members, sh)
	if err != nil {
		return err
	}
	run.Results = make([]Result, t.k)
	for i, m := range members {
		run.Results[i].Member = m
	}
	for e := 1; e <= cfg.Epochs; e++ {
		start := time.Now()
		if err := t.draw(e); err != nil {
			return err
		}
		loss, err := t.train(e)
		if err != nil {
			return err
		}
		radius, err := g.Radius()
		if err != nil {
			return err
		}
		if err := t.checkFinite(e, loss); err != nil {
			return err
		}
		if err := t.next(e, run, loss, radius, time.Since(start).Seconds(), hooks); err != nil {
			return err
		}
		if hooks != nil && hooks.Network != nil {
			hooks.Network("finetune", e, g)
		}
		if err := hooks.progress("finetune", e, cfg.Epochs); err != nil {
			return err
		}
	}
	// The epochs' buffers (the train distances, the plan, the masks: several n-sized
	// slices a member) are dead from here on. A collection now lets the members' final
	// scores, widened in finish, take their memory; left to the pacer, the collection runs
	// while those are allocated, and the two add up in the peak (campaign's fit: 278 MB
	// with it, 292 MB without). A heap of a few large slices without pointers is collected
	// in about a millisecond.
	t.pl, t.masks, t.trainDist, t.localDist = nil, nil, nil, nil
	runtime.GC()
	return t.finish(run)
}

// tuning is fine-tuning's state from epoch to epoch: each member's selector, random
// stream and training set (masks), the objective, the plan, and the buffers of the
// scores the selectors rank.
type tuning struct {
	g       *torch.Group
	cfg     Config
	members []Member
	sh      *shard // nil in one process
	k       int
	local   int // this rank's rows (all of them in one process)
	n       int // rows the selectors rank: the whole table's
	sels    []dynamics.Selector
	obj     torch.Objective
	rngs    []*rand.Rand
	// ranks says whether some member's selector ranks every row's scores after each
	// epoch. When every member trains on every row (dynamics.All: OC, the ensemble's
	// members) nothing does: the train-mode scores (a K n-sized buffer) are not taken and
	// no member's scores are widened for its selector; the eval pass still runs (train),
	// and an Epoch hook reads its scores. ranks is a function of the members alone, never
	// of the hooks, so that every rank of a data-parallel fit runs the same collectives
	// in the same order, whichever hooks each rank's caller set.
	ranks bool
	masks [][]bool // nil: all rows (epochs 1 and 2 of Algorithm 1)
	// trainDist are the train-mode distances of the epoch (nil unless some selector ranks
	// them), localDist this rank's rows of them; dist are the eval-mode distances,
	// localScores this rank's rows of them.
	trainDist, localDist []float32
	dist, localScores    []float32
	// ranked is a member's scores as its selector sees them: one buffer, which every
	// member uses in turn, every epoch (no selector keeps the slice). A buffer per member,
	// or a new slice per epoch, would hold K (or more) n-sized slices at 8 bytes a row.
	ranked []float64
	pl     *planner
}

// newTuning starts fine-tuning g: its centers, a fresh Adam, the members' selectors
// and random streams.
func newTuning(g *torch.Group, cfg Config, members []Member, sh *shard) (*tuning, error) {
	t := &tuning{g: g, cfg: cfg, members: members, sh: sh, k: g.K(), local: g.N()}
	t.n = t.local
	if sh != nil {
		t.n = sh.n
	}
	if err := g.InitCenter(cfg.CenterEps); err != nil {
		return nil, err
	}
	if err := g.ResetAdam(torch.Encoder, fill(t.k, cfg.LR), fill(t.k, cfg.WeightDecay)); err != nil {
		return nil, err
	}
	t.sels = make([]dynamics.Selector, t.k)
	t.obj = torch.Objective{Soft: make([]uint8, t.k), Nu: make([]float64, t.k), UpdateR: make([]uint8, t.k)}
	t.rngs = make([]*rand.Rand, t.k)
	for i, m := range members {
		sel, err := m.selector(t.n)
		if err != nil {
			return nil, err
		}
		t.sels[i] = sel
		if _, all := sel.(*dynamics.All); !all {
			t.ranks = true
		}
		if m.Soft {
			t.obj.Soft[i], t.obj.Nu[i] = 1, m.Nu
		}
		t.rngs[i] = rand.New(rand.NewPCG(m.Seed, rankStream(finetuneStream, sh)))
	}
	t.masks = make([][]bool, t.k)
	if cfg.Scores == TrainScores && t.ranks {
		t.trainDist = make([]float32, t.k*t.n)
		t.localDist = t.trainDist
		if sh != nil {
			t.localDist = make([]float32, t.k*t.local)
		}
	}
	t.localScores = make([]float32, t.k*t.local) // reused every epoch
	t.pl = newPlanner(t.local, cfg.BatchSize, t.k)
	return t, nil
}

// draw plans epoch e: every member's minibatches over its training set, and whether
// its radius moves.
func (t *tuning) draw(e int) error {
	if t.sh == nil {
		t.pl.drawEach(t.rngs, t.masks, t.trainDist != nil)
	}
	for i := range t.rngs {
		if t.sh != nil {
			steps, err := t.sh.steps(t.masks[i], t.cfg.BatchSize)
			if err != nil {
				return fmt.Errorf("training: member %d epoch %d: %w", i, e, err)
			}
			t.pl.drawSteps(i, t.rngs[i], t.sh.slice(t.masks[i]), steps, t.trainDist != nil)
		}
		if t.members[i].updatesRadius(e, t.cfg) {
			t.obj.UpdateR[i] = 1
		}
	}
	return nil
}

// train runs epoch e and its eval pass, and returns every member's mean loss; t.dist
// (and t.trainDist) then hold every row's distances, every rank's gathered.
func (t *tuning) train(e int) ([]float64, error) {
	loss, err := t.g.TrainEpoch(t.pl.layout(), t.obj, t.localDist)
	if err != nil {
		return nil, fmt.Errorf("training: epoch %d: %w", e, err)
	}
	// The eval pass runs every epoch even where no selector ranks its scores: a
	// network diverging shows first there (+Inf distances in eval mode while the
	// train-mode loss is still finite: --lr 1e10 on a 60-row table).
	if err = t.g.DistancesTo(t.localScores); err != nil {
		return nil, fmt.Errorf("training: epoch %d: %w", e, err)
	}
	t.dist = t.localScores
	if t.sh != nil {
		// Every rank ranks all n rows: the scores of every block, gathered.
		if err = t.sh.mean(loss); err == nil {
			t.dist, err = t.sh.gather(t.localScores, t.k)
		}
		if err == nil && t.trainDist != nil {
			t.trainDist, err = t.sh.gather(t.localDist, t.k)
		}
		if err != nil {
			return nil, fmt.Errorf("training: epoch %d: %w", e, err)
		}
	}
	return loss, nil
}

// checkFinite reports a member whose loss or scores of epoch e diverged.
func (t *tuning) checkFinite(e int, loss []float64) error {
	n := t.n
	for i, m := range t.members {
		if err := lossDiverged("fine-tuning", e, i, m.Seed, "the loss", loss[i], t.cfg.levels[i]); err != nil {
			return err
		}
		for _, d := range [][]float32{t.dist, t.trainDist} {
			if d == nil {
				continue
			}
			if j := firstNonFinite(d[i*n : (i+1)*n]); j >= 0 {
				return diverged("fine-tuning", e, i, m.Seed, fmt.Sprintf("the score of row %d", j+1), float64(d[i*n+j]))
			}
		}
	}
	return nil
}

// next has every member's selector choose its training set of the next epoch from
// epoch e's scores (Algorithm 1), records the epoch in the member's history, and shows
// the Epoch hook the member's scores and labels.
func (t *tuning) next(e int, run *Run, loss []float64, radius []float32, secs float64, hooks *Hooks) error {
	n := t.n
	for i := range t.members {
		var src []float32
		switch {
		case t.trainDist != nil:
			src = t.trainDist[i*n : (i+1)*n]
		case t.ranks:
			src = t.dist[i*n : (i+1)*n]
		}
		var scores []float64 // nil: the member's dynamics.All reads none
		if src != nil {
			t.ranked = stats.Widen(t.ranked, src)
			scores = t.ranked
		}
		mask, rec, err := t.sels[i].Next(e, scores)
		if err != nil {
			return fmt.Errorf("training: member %d epoch %d: %w", i, e, err)
		}
		c := count(mask, n)
		if c < 2 {
			return fmt.Errorf("training: member %d epoch %d: the next training set has %d rows, need 2", i, e, c)
		}
		run.Results[i].History = append(run.Results[i].History, Epoch{
			Epoch: e, Loss: loss[i], TrainSize: count(t.masks[i], n),
			Radius: float64(radius[i]), Seconds: secs, Record: rec,
		})
		if c == n {
			mask = nil // every row, as nil says without an n-sized slice held through the epoch
		}
		t.masks[i] = mask
		if hooks != nil && hooks.Epoch != nil {
			if err := t.showEpoch(i, e, hooks); err != nil {
				return err
			}
		}
	}
	return nil
}

// showEpoch calls the Epoch hook with member i's eval-mode scores of epoch e and the
// labels its selector would give them (none before its first threshold).
func (t *tuning) showEpoch(i, e int, hooks *Hooks) error {
	scores := stats.Widen(nil, t.dist[i*t.n:(i+1)*t.n])
	labels, _, err := t.sels[i].Label(scores)
	if errors.Is(err, dynamics.ErrNotReady) || errors.Is(err, dynamics.ErrNoThreshold) {
		labels, err = nil, nil // no threshold before the first search
	}
	if err != nil {
		return fmt.Errorf("training: member %d epoch %d: labels: %w", i, e, err)
	}
	hooks.Epoch(i, e, scores, labels)
	return nil
}

// finish gives every member its final scores, labels, threshold and radius from the
// last epoch's eval-mode distances.
func (t *tuning) finish(run *Run) error {
	radius, err := t.g.Radius()
	if err != nil {
		return err
	}
	n := t.n
	for i := range t.members {
		r := &run.Results[i]
		if m := t.members[i]; (t.cfg.rescored || t.cfg.narrow) && !m.labels() && !m.Soft {
			r.Threshold = math.Inf(1) // as OC's Label says, without the scores
			if t.cfg.narrow {
				r.dist32 = t.dist[i*n : (i+1)*n] // the epochs' buffer, which no epoch writes again
			}
			continue
		}
		r.Scores = stats.Widen(t.ranked, t.dist[i*n:(i+1)*n]) // member 0's takes the epochs' buffer
		t.ranked = nil
		labels, thr, err := t.sels[i].Label(r.Scores)
		if errors.Is(err, dynamics.ErrNoThreshold) {
			labels, thr, err = nil, math.Inf(1), nil // OC and other rankers without a threshold
		}
		if err != nil {
			return fmt.Errorf("training: member %d: labels: %w", i, err)
		}
		r.Labels, r.Threshold = labels, thr
		if sb, ok := t.sels[i].(softBoundary); ok {
			// The model's radius is the sphere of its labels (softBoundary), which Save keeps.
			if radius[i], err = sb.radius(r.Scores); err != nil {
				return fmt.Errorf("training: member %d: radius: %w", i, err)
			}
		}
	}
	return t.g.SetRadius(radius)
}

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

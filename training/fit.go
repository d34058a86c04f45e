package training

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/udocc/udocc/dynamics"
	"github.com/udocc/udocc/models"
	"github.com/udocc/udocc/torch"
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
	Radius    float64         // SB's R after the epoch (0 for other methods)
	Seconds   float64         // wall time of the group's epoch, training and scoring
	Record    dynamics.Record // the selector's record of this epoch
}

// Result is one member's outcome.
type Result struct {
	Member       Member
	Scores       []float64 // final eval-mode anomaly scores ||φ(x)−c||², Eq. (3)
	Labels       []bool    // true = anomaly; nil for OC, which has no threshold
	Threshold    float64   // in score units: a row is anomalous when its score is above it; +Inf for OC
	PretrainLoss []float64 // autoencoder loss per pretraining epoch of this member's seed
	// Reconstruction is the eval-mode reconstruction error ||x − dec(enc(x))||² / d of every
	// row under this member's seed's pretrained autoencoder.
	Reconstruction []float64
	History        []Epoch
}

// Hooks are optional callbacks of a fit; nil fields are skipped.
type Hooks struct {
	// Progress reports where a fit is: stage "pretrain" or "finetune", epoch of total.
	Progress func(stage string, epoch, total int)
	// Epoch sees member k's eval-mode scores after fine-tuning epoch e and the labels its
	// selector would give them now (nil for OC). The slices are the hook's to keep.
	Epoch func(k, e int, scores []float64, labels []bool)
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

// Close frees the networks; it is safe to call more than once.
func (r *Run) Close() {
	if r.group != nil {
		r.group.Close()
	}
	if r.pre != nil {
		r.pre.Close()
	}
}

// Fit trains one model on the n x d row-major matrix x (standardised by the caller).
func Fit(x []float64, n, d int, cfg Config, m Member, hooks *Hooks) (*Run, error) {
	return FitGroup(x, n, d, cfg, []Member{m}, hooks)
}

// FitGroup trains every member in lockstep on x. Members that share a seed share one
// pretrained autoencoder; a member's numbers depend only on its own seed, method and
// the data, not on the other members (up to float rounding of padded batched products).
func FitGroup(x []float64, n, d int, cfg Config, members []Member, hooks *Hooks) (*Run, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if n < 2 || d < 1 || len(x) != n*d {
		return nil, fmt.Errorf("training: data of %d values is not %d x %d with n >= 2", len(x), n, d)
	}
	if len(members) == 0 {
		return nil, fmt.Errorf("training: no members")
	}
	for _, m := range members {
		if err := m.validate(); err != nil {
			return nil, err
		}
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("training: row %d, column %d is not a finite number", i/d, i%d)
		}
	}

	seeds, seedOf := uniqueSeeds(members)
	run := &Run{}
	t0 := time.Now()
	pre, preLoss, err := pretrain(x, n, d, cfg, seeds, hooks)
	if err != nil {
		return nil, err
	}
	recon, err := pre.Reconstruction()
	if err != nil {
		pre.Close()
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
	t1 := time.Now()
	if err := finetune(ft, run, cfg, members, hooks); err != nil {
		run.Close()
		return nil, err
	}
	run.FinetuneSeconds = time.Since(t1).Seconds()
	for k := range run.Results {
		run.Results[k].PretrainLoss = preLoss[seedOf[k]]
		s := seedOf[k]
		run.Results[k].Reconstruction = widen(recon[s*n : (s+1)*n])
	}
	return run, nil
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
func pretrain(x []float64, n, d int, cfg Config, seeds []uint64, hooks *Hooks) (*torch.Group, [][]float64, error) {
	k := len(seeds)
	g, err := torch.NewGroup(models.Sizes(d, cfg.Hidden), k, true, cfg.Device, seeds)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*torch.Group, [][]float64, error) {
		g.Close()
		return nil, nil, err
	}
	// The shim keeps the one float32 copy of the table; no other is made here.
	if err := g.SetData64(x, n, d); err != nil {
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
		rngs[i] = rand.New(rand.NewPCG(s, pretrainStream))
	}
	losses := make([][]float64, k)
	pl := newPlanner(n, cfg.BatchSize, k)
	for e := 1; e <= cfg.PretrainEpochs; e++ {
		for i := range rngs {
			pl.draw(i, rngs[i], nil, false)
		}
		loss, err := g.PretrainEpoch(pl.layout())
		if err != nil {
			return fail(fmt.Errorf("training: pretraining epoch %d: %w", e, err))
		}
		for i, l := range loss {
			if math.IsNaN(l) || math.IsInf(l, 0) {
				return fail(diverged("pretraining", e, i, seeds[i], "the autoencoder loss", l))
			}
			losses[i] = append(losses[i], l)
		}
		if err := hooks.progress("pretrain", e, cfg.PretrainEpochs); err != nil {
			return fail(err)
		}
	}
	return g, losses, nil
}

// finetune runs Algorithm 1 for every member of g: train an epoch on each member's
// D_N^e, score all rows, let the member's selector pick D_N^{e+1}.
func finetune(g *torch.Group, run *Run, cfg Config, members []Member, hooks *Hooks) error {
	k, n := g.K(), g.N()
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
		sels[i] = m.Selector
		if m.Method == "oc" || m.Method == "sb" {
			all, err := dynamics.NewAll(n)
			if err != nil {
				return err
			}
			sels[i] = all // OC ranks but has no threshold
			if m.Method == "sb" {
				sels[i] = softBoundary{All: all, nu: m.Nu}
				obj.Soft[i], obj.Nu[i] = 1, m.Nu
			}
		}
		rngs[i] = rand.New(rand.NewPCG(m.Seed, finetuneStream))
	}
	run.Results = make([]Result, k)
	for i, m := range members {
		run.Results[i].Member = m
	}
	masks := make([][]bool, k) // nil: all rows (epochs 1 and 2 of Algorithm 1)
	var trainDist []float32
	if cfg.Scores == TrainScores {
		trainDist = make([]float32, k*n)
	}
	var dist []float32
	pl := newPlanner(n, cfg.BatchSize, k)
	for e := 1; e <= cfg.Epochs; e++ {
		start := time.Now()
		for i := range rngs {
			pl.draw(i, rngs[i], masks[i], trainDist != nil)
			// Ruff's code updates R from the epoch after the warm-up on (0-based epoch >= warm-up).
			if members[i].Method == "sb" && e > cfg.WarmUp {
				obj.UpdateR[i] = 1
			}
		}
		loss, err := g.TrainEpoch(pl.layout(), obj, trainDist)
		if err != nil {
			return fmt.Errorf("training: epoch %d: %w", e, err)
		}
		if dist == nil {
			dist = make([]float32, k*n)
		}
		if err = g.DistancesTo(dist); err != nil {
			return fmt.Errorf("training: epoch %d: %w", e, err)
		}
		radius, err := g.Radius()
		if err != nil {
			return err
		}
		for i, m := range members {
			if l := loss[i]; math.IsNaN(l) || math.IsInf(l, 0) {
				return diverged("fine-tuning", e, i, m.Seed, "the loss", l)
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
			src := dist[i*n : (i+1)*n]
			if trainDist != nil {
				src = trainDist[i*n : (i+1)*n]
			}
			mask, rec, err := sels[i].Next(e, widen(src))
			if err != nil {
				return fmt.Errorf("training: member %d epoch %d: %w", i, e, err)
			}
			if c := count(mask, n); c < 2 {
				return fmt.Errorf("training: member %d epoch %d: the next training set has %d rows, need 2", i, e, c)
			}
			run.Results[i].History = append(run.Results[i].History, Epoch{
				Epoch: e, Loss: loss[i], TrainSize: count(masks[i], n),
				Radius: float64(radius[i]), Seconds: secs, Record: rec,
			})
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
		if err := hooks.progress("finetune", e, cfg.Epochs); err != nil {
			return err
		}
	}
	for i := range members {
		r := &run.Results[i]
		r.Scores = widen(dist[i*n : (i+1)*n])
		labels, thr, err := sels[i].Label(r.Scores)
		if errors.Is(err, dynamics.ErrNoThreshold) {
			labels, thr, err = nil, math.Inf(1), nil // OC and other rankers without a threshold
		}
		if err != nil {
			return fmt.Errorf("training: member %d: labels: %w", i, err)
		}
		r.Labels, r.Threshold = labels, thr
	}
	return nil
}

func widen(xs []float32) []float64 {
	out := make([]float64, len(xs))
	for i, v := range xs {
		out[i] = float64(v)
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

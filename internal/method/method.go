package method

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/dynamics"
	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/scale"
	"github.com/udocc/udocc/internal/stats"
	"github.com/udocc/udocc/internal/threshold"
	"github.com/udocc/udocc/internal/torch"
	"github.com/udocc/udocc/internal/training"
)

// Config is a fit's settings, as package detector translates a method and its Options
// once, resolved and checked. Nothing here has a default left to fill.
type Config struct {
	// Method is the method fitted: Ensemble or one of the paper's.
	Method Method
	// Train is the training engine's configuration: widths, epochs, rates, device, the
	// data-parallel run (Train.Dist); its Scaler is set from Table.Scaler.
	Train training.Config
	// Seeds are the members' seeds, one member each.
	Seeds []uint64
	// Member are the members' method settings (SB's ν, TAR's ratio, the epochs whose
	// records carry proposed's Eq. (5) curve).
	Member MethodOptions
	// Delta names proposed's δ rule (dynamics.NewRule), Ties how it breaks ties; each
	// member gets a rule of its own (a rule may keep state). Empty for the other methods.
	Delta string
	Ties  dynamics.TieRule

	// The ensemble's settings (ensemble.go); the paper's methods ignore them.
	//
	// TrainRows is the most rows its networks train on (0: every row); a larger table
	// trains on a sample of them drawn from SampleSeed.
	TrainRows  int
	SampleSeed uint64
	// Contamination, when > 0, is the top share of rows flagged; else Count's rules (or
	// the learned count, Learned) choose it. KMeansInterval: the count is the kmeans rule
	// alone, which gives an interval around its share.
	Contamination  float64
	Count          threshold.Combination
	Learned        bool
	KMeansInterval bool
	// Rule spells the rule in model.json's threshold_rule.
	Rule string
	// GaussianWeight is the weight of Table.Gaussian in the score (models.Ensemble).
	GaussianWeight float64
	// Progress and Epoch are the caller's hooks (training.Hooks); Stop is the fit's ctx.
	Progress func(stage string, epoch, total int)
	Epoch    func(k, e int, scores []float64, labels []bool)
	// Trace asks for the costly parts of the Trace: the screening's scores and
	// per-epoch scores, the members' distances and reconstruction errors of every row.
	Trace bool
}

// Table are the rows of a fit: ds, imputed, the whole table or, in a data-parallel fit,
// this rank's block (Dist, Counts: every rank's rows, in rank order); Scaler is the
// training rows' standardisation, fitted over every block.
type Table struct {
	DS     *data.Dataset
	Scaler *scale.Scaler
	Dist   *torch.Dist
	Counts []int
	// Gaussian, for the ensemble on a wide table read through its components, is each
	// row's squared Mahalanobis distance under the Gaussian of its columns
	// (project.Gaussian), which the combination mixes in with Config.GaussianWeight.
	Gaussian []float64
}

// rows are the rows of the whole table.
func (t Table) rows() int {
	if t.Dist == nil {
		return t.DS.N
	}
	n := 0
	for _, c := range t.Counts {
		n += c
	}
	return n
}

// gather returns every rank's block of per-row values, in rank order: the whole
// table's (xs itself in one process).
func (t Table) gather(xs []float32) ([]float32, error) {
	if t.Dist == nil {
		return xs, nil
	}
	all, err := t.Dist.AllGather(xs, t.Counts)
	if err != nil {
		return nil, fmt.Errorf("udocc: %w", err)
	}
	return all, nil
}

// Fitted is a method's fitted state: its networks and what turns their outputs into a
// row's score and a label. A row's score depends on that row alone.
type Fitted interface {
	// Networks are the members' networks, which Save writes and Explain reads.
	Networks() *Networks
	// Score is the model's scores of ds's rows, already matched to the model's columns,
	// imputed and, for a wide table, projected; every member's distances are beside
	// them. gauss are the rows' Gaussian distances where the ensemble mixes a wide
	// table's Gaussian into its score (Table.Gaussian); nil scores the networks alone.
	// ctx is checked between blocks of rows. The caller sets the thread count.
	Score(ctx context.Context, ds *data.Dataset, gauss []float64) ([]float64, [][]float64, error)
	// Threshold is in score units (+Inf where the method has none: oc).
	Threshold() float64
	// Marshal writes the fitted state into the saved model's description: its members
	// (seeds, network files, thresholds, scales), the ensemble's combination, threshold
	// and count. Load reads it back.
	Marshal(meta *models.Meta)
	// Close frees the networks.
	Close()
}

// Trace is what a fit leaves beside its Fitted state: the training rows' scores and each
// member's record, and with Config.Trace the intermediate per-row scores the bench and
// the studies read.
type Trace struct {
	// Scores are the training rows' scores; Members every member's record, in seed
	// order.
	Scores  []float64
	Members []Member
	// Networks are the ensemble's networks' combined scores of every row where a wide
	// table's Gaussian was mixed into Scores (Table.Gaussian), nil where none was: the
	// scores the count reads.
	Networks []float64
	// Screen are the ensemble's screening fit's combined scores of every row (nil
	// without a screening fit, without Config.Trace, and where the networks trained on a
	// sample of the rows).
	Screen []float64
	// Dist and Rec are member k's distances and reconstruction errors of every row
	// under the final networks, as the model scores them (Config.Trace).
	Dist, Rec [][]float32
	// ScreenEpochs are member k's eval-mode distances of every row after each of the
	// screening fit's fine-tuning epochs, [k][epoch-1][row] (Config.Trace, as Screen):
	// the training dynamics the count study ranks.
	ScreenEpochs [][][]float32
	// ScreenPretrain are member k's eval-mode reconstruction errors of every row after
	// each of the screening fit's pretraining epochs, [k][epoch-1][row] (Config.Trace, as
	// Screen): the training dynamics from random weights, which the count study ranks too.
	ScreenPretrain [][][]float32
}

// Member is one member of a fit, trained from its own seed in lockstep with the others:
// its threshold on its own distances (+Inf for oc and the ensemble's members, which are
// thresholded together or not at all), the training rows' distances ||φ(x)−c||² (Eq.
// (3)) and the labels its threshold gives them (nil without one), the autoencoder's
// loss per pretraining epoch, and the record of every fine-tuning epoch. A loaded
// model's members hold their seed and threshold alone.
type Member struct {
	Seed         uint64
	Threshold    float64
	Scores       []float64
	Labels       []bool
	PretrainLoss []float64
	History      []training.Epoch
}

// Label labels dist by the member's own Threshold, true above it; nil where it has none.
func (mem Member) Label(dist []float64) []bool {
	if math.IsInf(mem.Threshold, 1) {
		return nil
	}
	return threshold.Labels(dist, mem.Threshold)
}

// Fit fits cfg.Method on t: it trains the networks (package training), scores every row
// with them, and fits the method's combination and threshold on those scores. ctx is
// checked after every epoch and between blocks of rows (in one process): a cancelled
// fit returns ctx.Err(). The caller sets the thread count.
func Fit(ctx context.Context, t Table, cfg Config) (Fitted, *Trace, error) {
	cfg.Train.Scaler = t.Scaler
	if cfg.Method.Ensemble {
		return fitEnsemble(ctx, t, cfg)
	}
	return fitPaper(ctx, t, cfg)
}

// Load is the Fitted state of a saved model: meta, checked by CheckMeta, and
// its networks read from dir onto device.
func Load(meta *models.Meta, dir, device string) (Fitted, error) {
	nw, err := loadNetworks(meta, dir, device)
	if err != nil {
		return nil, err
	}
	if meta.Ensemble != nil {
		return loadEnsemble(meta, nw), nil
	}
	return loadPaper(meta, nw), nil
}

// hooks are the training hooks of a fit with cfg under ctx.
func (cfg Config) hooks(ctx context.Context) *training.Hooks {
	return &training.Hooks{Progress: cfg.Progress, Epoch: cfg.Epoch, Stop: ctx.Err}
}

// trainErr is a training error as the library returns it: a cancelled fit's ctx.Err()
// as it is, others wrapped.
func trainErr(ctx context.Context, err error) error {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return err
	}
	return fmt.Errorf("udocc: %w", err)
}

// scoreRows are the networks' outputs for every row of t (gathered from every rank in a
// data-parallel fit, whose ranks score on together: ctx is not checked there), checked
// finite.
func scoreRows(ctx context.Context, nw *Networks, t Table) (dist, rec [][]float32, err error) {
	if t.Dist != nil {
		ctx = context.Background()
	}
	dist, rec, err = nw.outputs(ctx, t.DS)
	if err != nil {
		return nil, nil, err
	}
	if t.Dist != nil {
		for _, xs := range [][][]float32{dist, rec} {
			for k := range xs {
				if xs[k], err = t.gather(xs[k]); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	if err := checkScored(nw.Scaler, t.DS, t.Dist == nil, dist, rec, nil); err != nil {
		return nil, nil, err
	}
	return dist, rec, nil
}

// traceMembers are the members' records of a run, before their distances are known.
func traceMembers(run *training.Run) []Member {
	out := make([]Member, len(run.Results))
	for k, r := range run.Results {
		out[k] = Member{Seed: r.Member.Seed, Threshold: math.Inf(1), PretrainLoss: r.PretrainLoss, History: r.History}
	}
	return out
}

// widenEach widens every member's scores, releasing each float32 slice once widened.
func widenEach(xs [][]float32) [][]float64 {
	out := make([][]float64, len(xs))
	for k := range xs {
		out[k] = stats.Widen(nil, xs[k])
		xs[k] = nil
	}
	return out
}

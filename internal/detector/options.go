package detector

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/udocc/udocc/internal/dynamics"
	"github.com/udocc/udocc/internal/method"
	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/training"
)

// Version is udocc's version, saved in a model's model.json.
const Version = "0.1.0"

// Options are the settings of a fit, the flags of `udocc fit` one to one. The zero
// value fits with the defaults (DefaultOptions): a field left zero means its method's
// default, documented on the field. Where none is a setting of its own (no pretraining,
// no screening, no weight decay), a negative value says so.
type Options struct {
	// Method is Ensemble (the default, also for "") or one of the paper's: Proposed, OC,
	// SB, Otsu, TAR.
	Method Method
	// Hidden are the encoder's layer widths after the input; nil means 32,16,8 for every
	// table, or for the ensemble 32,16,4 for a table of at most 8 features
	// (models.EnsembleHidden: by the table's shape, never its name). The paper's widths for its data sets are not picked by a table's name: a
	// caller that wants them sets them (`udocc fit --preset paper` does).
	Hidden []int
	// Epochs are the fine-tuning epochs (0: ensemble 10, the paper's methods 50);
	// PretrainEpochs the autoencoder's (0: ensemble 60, the paper's methods 100; negative:
	// no pretraining).
	Epochs, PretrainEpochs int
	// ScreenEpochs, for the ensemble, are the autoencoder epochs of its screening fit on
	// every row (0: 50); the final fit then leaves out the share Trim of rows (0: 0.1)
	// that the screening scored highest. ScreenEpochs negative: one fit on every row, as
	// the other methods always do (they ignore both).
	ScreenEpochs int
	Trim         float64
	// TrainRows, for the ensemble, is the most rows its networks train on: a table of
	// more rows trains both fits on a sample of TrainRows rows drawn from Seed, and every
	// row is scored, as an isolation forest grows its trees on samples (bench/notes/cost.md).
	// 0: training.EnsembleTrainRows (2,048); negative: every row. A data-parallel rank
	// trains on its whole block; the other methods ignore it and train on every row.
	TrainRows int
	// Components, for the ensemble: a table of more than 300 columns
	// (training.EnsembleProjectAbove) reaches the networks as its Components leading
	// principal components, fitted on the standardised training sample and kept in the
	// model. On wide tables (pretrained networks' embeddings) it cuts the fit by two to
	// five and raised the scores of three of four sources (bench/notes/cost.md). 0:
	// training.EnsembleComponents (32); negative: every column. A data-parallel fit
	// reads every column; the other methods ignore it. Explanations of such a model are
	// by occlusion of its columns (or Shapley values).
	Components int
	// Gaussian, for the ensemble on a table read through its principal components
	// (Components), is the weight in [0, 1] of the squared Mahalanobis distance of the
	// row's standardised columns under a Ledoit–Wolf Gaussian, fitted on the same sample,
	// mixed with the networks' score: it sees the small directions the components leave
	// out, where a pretrained network's embedding holds its anomalies (bench/notes/cost.md). 0:
	// training.EnsembleGaussianWeight (0.9); negative: none (the networks alone). A table
	// of more than 8,192 columns is scored by its networks alone (the Gaussian's matrix
	// would outgrow model.json).
	Gaussian float64
	// LR is Adam's learning rate of fine-tuning (0: ensemble 1e-4, the paper's methods
	// 1e-3), PretrainLR that of pretraining (0: ensemble 3e-3, the paper's methods LR).
	LR, PretrainLR float64
	// BatchSize is the rows of a minibatch (0: 128), at least 2.
	BatchSize int
	// WeightDecay is Adam's L2 weight decay (0: 1e-6; negative: none).
	WeightDecay float64
	// Seed is the first member's seed; Members are trained in lockstep from seeds Seed,
	// Seed+1, … (0: ensemble 5, the paper's methods 1).
	Seed    uint64
	Members int
	// Seeds, when not nil, are the members' seeds instead of Seed, Seed+1, …: one member
	// each, no seed twice; Members must then be 0 or len(Seeds).
	Seeds []uint64
	// Device is "cpu" (also for "", the default), "cuda" or "cuda:N". Threads is the
	// number of CPU threads the networks train and score on, and the fit's host work
	// (the minibatch plans, the explanations of flagged rows) runs on; 0, the default,
	// means every core the process may use (runtime.GOMAXPROCS(0), which follows its CPU
	// affinity and a cgroup CPU quota). Results are bit-identical for any count: each
	// member's steps run in order, rows are scored in blocks of 64, and host work is
	// split into tasks whose results are combined in a fixed order. The count holds for
	// the call only: the process's is back to what it was when Fit returns (while calls
	// overlap, the shim's threads number the largest count among them).
	Device  string
	Threads int
	// Count are the ensemble's count rules; nil means LearnedCount, which also gives an
	// 80 % interval for the share (Model.RatioInterval). After a screening fit each rule's
	// share is the larger of its shares on the screening's scores and on the final ones;
	// several rules flag the geometric mean of their shares. Only for Ensemble.
	Count []CountRule
	// Delta is the proposed method's δ rule ("" means Accumulated) and Ties how
	// PaperRule breaks ties of Eq. (5)'s minimum ("" means TiesLargest). Only for
	// Proposed; Ties only with PaperRule.
	Delta DeltaRule
	Ties  Ties
	// Contamination is the known anomaly ratio in (0, MaxContamination] for the ensemble: the top share
	// of rows is flagged instead of Count's choice. 0 lets the rules choose.
	Contamination float64
	// Answers are the user's answers on training rows, as udocc review asks them: the
	// fit sharpens its scores with them (Model.Learn) and draws its count and its cut
	// from them. Only for Ensemble, without Contamination or Dist. nil: a label-free fit,
	// whose scores are the same bit for bit as before the field.
	Answers []Answer
	// Ratio is sb's ν or tar's anomaly ratio in (0, 1), which they need; 0 for the other
	// methods.
	Ratio float64
	// RankScores are the scores the selectors rank each epoch: TrainScores (the default,
	// also for "") or EvalScores.
	RankScores ScoreSource
	// Progress, when set, is called after every epoch: stage "pretrain" or "finetune",
	// epoch of total.
	Progress func(stage string, epoch, total int)
	// Epoch, when set, sees member k's scores of the training rows after fine-tuning
	// epoch e and the labels its selector would give them then (nil for oc, the ensemble's
	// members and before a selector's first threshold). The slices are the callback's.
	Epoch func(k, e int, scores []float64, labels []bool)
	// Dist, when not nil and of more than one rank (JoinFromEnv), makes the fit one rank
	// of a data-parallel run (docs/distributed.md): the rows are this rank's block of the
	// table, blocks in rank order, every rank calls with the same other options, and every
	// rank gets the same Model, whose Scores and Labels cover the whole table. nil: one
	// process.
	Dist *Dist
}

// DefaultOptions returns the defaults of `udocc fit`: the ensemble method with the
// settings of docs/threshold.md (pretraining 60 epochs at lr 3e-3 after a screening fit
// of 50, fine-tuning 10 at 1e-4, five members).
func DefaultOptions() Options {
	o := fromConfig(training.EnsembleConfig())
	o.Method = Ensemble
	o.Members = training.EnsembleSize
	o.TrainRows = training.EnsembleTrainRows
	o.Components = training.EnsembleComponents
	o.Gaussian = training.EnsembleGaussianWeight
	return o
}

// PaperOptions returns the paper's method "proposed" with its settings
// (`udocc fit --preset paper`: 100 pretraining and 50 fine-tuning epochs at lr 1e-3),
// one member.
func PaperOptions() Options {
	o := fromConfig(training.DefaultConfig())
	o.Method = Proposed
	return o
}

func fromConfig(c training.Config) Options {
	return Options{
		Epochs: c.Epochs, PretrainEpochs: c.PretrainEpochs, ScreenEpochs: c.ScreenEpochs, Trim: c.Trim,
		LR: c.LR, PretrainLR: c.PretrainLR,
		BatchSize: c.BatchSize, WeightDecay: c.WeightDecay, Members: 1, Device: c.Device,
		RankScores: ScoreSource(c.Scores),
	}
}

// workers is a CPU thread count as Options.Threads and Model.SetThreads give it: n, or
// every core the process may use for 0.
func workers(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// resolved is o with its zero fields given the method's defaults (DefaultOptions,
// PaperOptions) and its negative "none" fields made 0, as training takes them. It is
// not idempotent (a "none" becomes 0, which a second call would read as unset): the
// root resolves an Options once, where it enters (FitDataset, Validate).
func (o Options) resolved() Options {
	if o.Method == "" {
		o.Method = Ensemble
	}
	def := PaperOptions()
	if o.Method == Ensemble {
		def = DefaultOptions()
	}
	setInt := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	setFloat := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	setInt(&o.Epochs, def.Epochs)
	setInt(&o.PretrainEpochs, def.PretrainEpochs)
	setInt(&o.ScreenEpochs, def.ScreenEpochs)
	setInt(&o.TrainRows, def.TrainRows)
	setInt(&o.Components, def.Components)
	setFloat(&o.Gaussian, def.Gaussian)
	setFloat(&o.Trim, def.Trim)
	setFloat(&o.LR, def.LR)
	setFloat(&o.PretrainLR, def.PretrainLR)
	setInt(&o.BatchSize, def.BatchSize)
	setFloat(&o.WeightDecay, def.WeightDecay)
	if o.Members == 0 && o.Seeds != nil {
		o.Members = len(o.Seeds)
	}
	setInt(&o.Members, def.Members)
	if o.Device == "" {
		o.Device = def.Device
	}
	if o.RankScores == "" {
		o.RankScores = def.RankScores
	}
	for _, v := range []*int{&o.PretrainEpochs, &o.ScreenEpochs, &o.TrainRows, &o.Components} {
		if *v < 0 {
			*v = 0
		}
	}
	if o.WeightDecay < 0 {
		o.WeightDecay = 0
	}
	if o.Gaussian < 0 {
		o.Gaussian = 0
	}
	return o
}

// Validate reports the first option that cannot be used, naming its field; unset
// fields are the defaults, and valid.
func (o Options) Validate() error { return o.resolved().validate() }

// validate is Validate on resolved options.
func (o Options) validate() error {
	meth, err := training.MethodNamed(string(o.Method))
	if err != nil {
		return badOption("Method", "%v", err)
	}
	proposed := o.Method == Proposed
	switch {
	case o.Epochs < 1:
		return badOption("Epochs", "%d < 1", o.Epochs)
	case proposed && o.Epochs < 2:
		// Algorithm 1 searches δ from epoch 2 on: with one epoch there is no threshold.
		return badOption("Epochs", "%d: method proposed needs at least 2 fine-tuning epochs to pick a threshold", o.Epochs)
	case o.Components < 0 || o.Components > training.EnsembleProjectAbove:
		return badOption("Components", "%d: want a negative number (every column) or 1 to %d principal components", o.Components, training.EnsembleProjectAbove)
	case !(o.Gaussian >= 0 && o.Gaussian <= 1):
		return badOption("Gaussian", "%g: want a negative number (none) or a weight in (0, 1]", o.Gaussian)
	case meth.Ensemble && o.TrainRows == training.EnsembleTrainRows && o.TrainRows < 2*o.BatchSize:
		// The default sample: the batch is what was set too large.
		return badOption("BatchSize", "%d: the ensemble trains on a sample of %d rows (TrainRows), which must hold two minibatches: want at most %d, or more TrainRows", o.BatchSize, o.TrainRows, o.TrainRows/2)
	case meth.Ensemble && o.TrainRows > 0 && o.TrainRows < 2*o.BatchSize:
		return badOption("TrainRows", "%d: want at least two minibatches of BatchSize %d (%d rows), or every row", o.TrainRows, o.BatchSize, 2*o.BatchSize)
	case meth.Ensemble && o.ScreenEpochs > 0 && !(o.Trim > 0 && o.Trim < 0.5):
		return badOption("Trim", "%g: want a share in (0, 0.5) of rows to leave out", o.Trim)
	case training.CheckRate(o.LR, false) != nil:
		return badOption("LR", "%g: %v", o.LR, training.CheckRate(o.LR, false))
	case training.CheckRate(o.PretrainLR, true) != nil:
		return badOption("PretrainLR", "%g: %v (0: the fine-tuning rate)", o.PretrainLR, training.CheckRate(o.PretrainLR, true))
	case o.BatchSize < 2:
		return badOption("BatchSize", "%d < 2 (BatchNorm needs 2 rows)", o.BatchSize)
	case training.CheckRate(o.WeightDecay, true) != nil:
		return badOption("WeightDecay", "%g: %v", o.WeightDecay, training.CheckRate(o.WeightDecay, true))
	case o.Members < 1 || o.Members > models.MaxMembers:
		return badOption("Members", "%d: want 1..%d", o.Members, models.MaxMembers)
	case o.Seeds != nil && len(o.Seeds) != o.Members:
		return badOption("Seeds", "%d seeds for %d Members", len(o.Seeds), o.Members)
	case !validDevice(o.Device):
		return badOption("Device", "%q: want cpu, cuda or cuda:N", o.Device)
	case o.Threads < 0:
		return badOption("Threads", "%d < 0", o.Threads)
	case o.Contamination != 0 && !meth.Ensemble:
		return badOption("Contamination", "only for method ensemble")
	case o.Answers != nil && !meth.Ensemble:
		return badOption("Answers", "only for method ensemble")
	case o.Answers != nil && o.Contamination != 0:
		return badOption("Answers", "the count comes from the answers: leave Contamination 0")
	case o.Answers != nil && o.Dist != nil:
		return badOption("Answers", "not with a data-parallel fit (Dist)")
	case !(o.Contamination >= 0 && o.Contamination <= MaxContamination):
		return badOption("Contamination", "%g: want 0 or a share of rows in (0, %g]", o.Contamination, MaxContamination)
	case meth.Ratio && !(o.Ratio > 0 && o.Ratio < 1):
		return badOption("Ratio", "%g: method %s needs a ratio in (0, 1)", o.Ratio, o.Method)
	case !meth.Ratio && o.Ratio != 0:
		return badOption("Ratio", "only for method sb or tar")
	case o.RankScores != TrainScores && o.RankScores != EvalScores:
		return badOption("RankScores", "%q: want %s or %s", o.RankScores, TrainScores, EvalScores)
	}
	seen := map[uint64]bool{}
	for _, s := range o.Seeds {
		if seen[s] {
			// Its members would be the same network, saved to the same file.
			return badOption("Seeds", "seed %d is named twice", s)
		}
		seen[s] = true
	}
	if o.Hidden != nil && len(o.Hidden) == 0 {
		return badOption("Hidden", "no layers (nil: the default widths)")
	}
	for _, h := range o.Hidden {
		if h < 1 {
			return badOption("Hidden", "layer width %d < 1", h)
		}
	}
	return o.validateRules()
}

// ValidateRows reports an option that cannot be used on a table of n rows: a
// Contamination or Ratio of fewer than one row.
func (o Options) ValidateRows(n int) error {
	for _, c := range []struct {
		field string
		v     float64
	}{{"Contamination", o.Contamination}, {"Ratio", o.Ratio}} {
		if c.v > 0 && c.v*float64(n) < 1 {
			return badOption(c.field, "%g of %d rows is fewer than one row; want at least %.3g", c.v, n, 1/float64(n))
		}
	}
	return nil
}

// badOption is the error of Validate for the Options field field.
func badOption(field string, format string, args ...any) error {
	return fmt.Errorf("udocc: Options.%s: %s", field, fmt.Sprintf(format, args...))
}

// validateRules reports a rule option that the method does not take or that is unknown.
func (o Options) validateRules() error {
	if o.Count != nil && o.Method != Ensemble {
		return badOption("Count", "only for method ensemble")
	}
	if names := o.countNames(); slices.Contains(names, LearnedCount) {
		if len(names) > 1 {
			return badOption("Count", "%q is not a rule of the scores: it cannot be joined with %v", LearnedCount, names)
		}
	} else if _, err := o.count(); err != nil && o.Method == Ensemble {
		return badOption("Count", "%v", err)
	}
	switch {
	case o.Delta != "" && o.Method != Proposed:
		return badOption("Delta", "only for method proposed")
	case o.Ties != "" && o.Method != Proposed:
		return badOption("Ties", "only for method proposed")
	case o.Method != Proposed:
		return nil
	}
	if o.Ties != "" {
		if _, err := dynamics.ParseTieRule(string(o.Ties)); err != nil {
			return badOption("Ties", "%v", err)
		}
		if o.Delta != PaperRule {
			return badOption("Ties", "only for δ rule %s", PaperRule)
		}
	}
	if _, err := o.delta(); err != nil {
		return badOption("Delta", "%v", err)
	}
	return nil
}

// seeds are the members' seeds of o.
func (o Options) seeds() []uint64 {
	if o.Seeds != nil {
		return o.Seeds
	}
	return training.EnsembleSeeds(o.Seed, o.Members)
}

func validDevice(dev string) bool {
	if dev == "cpu" || dev == "cuda" {
		return true
	}
	n, ok := strings.CutPrefix(dev, "cuda:")
	_, err := strconv.ParseUint(n, 10, 31)
	return ok && err == nil
}

// method is the method's configuration of o (resolved and valid) for a table of d
// columns: the one translation of Options a fit makes, at its top (fitDataset). trace
// asks for the costly parts of the fit's Trace.
func (o Options) method(d int, trace bool) method.Config {
	meth := o.Method.internal() // checked by validate
	hidden := o.Hidden
	switch {
	case hidden != nil:
	case meth.Ensemble:
		hidden = models.EnsembleHidden(d)
	default:
		hidden = slices.Clone(models.DefaultHidden)
	}
	c := training.DefaultConfig()
	c.Hidden = hidden
	c.Epochs, c.PretrainEpochs = o.Epochs, o.PretrainEpochs
	if meth.Ensemble {
		c.ScreenEpochs, c.Trim, c.ScreenWeight = o.ScreenEpochs, o.Trim, training.ScreenWeight
		c.StandardiseOutput, c.RobustReconstruction = true, true
	}
	c.LR, c.PretrainLR = o.LR, o.PretrainLR
	c.BatchSize, c.WeightDecay, c.Device = o.BatchSize, o.WeightDecay, o.Device
	c.Scores = training.ScoreSource(o.RankScores)
	c.Dist = o.Dist.torch()
	cfg := method.Config{
		Method: meth, Train: c, Seeds: o.seeds(), Member: training.MethodOptions{Ratio: o.Ratio},
		Progress: o.Progress, Epoch: o.Epoch, Trace: trace,
	}
	if o.Epochs >= 2 {
		cfg.Member.CurveEpochs = []int{o.Epochs} // the last epoch's Eq. (5) curve, for History
	}
	if o.Method == Proposed {
		// o.delta's rule, by name, which the method makes for each member.
		cfg.Delta, cfg.Ties = string(o.Delta), dynamics.TieLargest
		if cfg.Delta == "" {
			cfg.Delta = dynamics.DefaultRule().Name()
		}
		if o.Ties != "" {
			cfg.Ties, _ = dynamics.ParseTieRule(string(o.Ties)) // checked by validate
		}
	}
	if meth.Ensemble {
		cfg.TrainRows, cfg.SampleSeed = o.TrainRows, o.Seed
		cfg.Contamination, cfg.Learned, cfg.KMeansInterval = o.Contamination, o.learnedCount(), o.kmeansCount()
		if !cfg.Learned && o.Contamination == 0 {
			cfg.Count, _ = o.count() // checked by validate
		}
		cfg.Rule = o.Rule()
	}
	return cfg
}

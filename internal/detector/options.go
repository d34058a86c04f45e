package detector

import (
	"fmt"
	"reflect"
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

// Options are the settings every method shares; the method's own are on its struct
// (Ensemble, Proposed, …). The zero value fits with the method's defaults: a field
// left zero means its default, documented on the field. Where none is a setting of its
// own (no pretraining, no weight decay), a negative value says so.
type Options struct {
	// Hidden are the encoder's layer widths after the input. nil means 32,16,8, or for
	// the ensemble 32,16,4 on a table of at most 8 features (models.EnsembleHidden, by
	// the table's shape). `udocc fit --preset paper` sets the paper's widths.
	Hidden []int
	// Epochs are the fine-tuning epochs (0: ensemble 10, the paper's methods 50).
	Epochs int
	// PretrainEpochs are the autoencoder's epochs (0: ensemble 60, the paper's methods
	// 100; negative: no pretraining).
	PretrainEpochs int
	// LR is Adam's learning rate of fine-tuning (0: ensemble 1e-4, the paper's methods
	// 1e-3). PretrainLR is that of pretraining (0: ensemble 3e-3, the paper's methods LR).
	LR, PretrainLR float64
	// BatchSize is the rows of a minibatch (0: 128), at least 2.
	BatchSize int
	// WeightDecay is Adam's L2 weight decay (0: 1e-6; negative: none).
	WeightDecay float64
	// Seed is the first member's seed. Members are trained in lockstep from seeds Seed,
	// Seed+1, … (0 members: ensemble 5, the paper's methods 1).
	Seed    uint64
	Members int
	// Seeds, when not nil, are the members' seeds instead: one member each, no seed
	// twice. Members must then be 0 or len(Seeds).
	Seeds []uint64
	// Device is "cpu" (also for ""), "cuda" or "cuda:N".
	Device string
	// Threads is the number of CPU threads the fit runs on (0: every core the process may
	// use, runtime.GOMAXPROCS(0)). Results are the same bits for any count. The count
	// holds for the call only.
	Threads int
	// Progress, when set, is called after every epoch: stage "pretrain" or "finetune",
	// epoch of total.
	Progress func(stage string, epoch, total int)
	// Epoch, when set, sees member k's scores of the training rows after fine-tuning
	// epoch e, and the labels its selector gives them then (nil for OC, the ensemble's
	// members and before a selector's first threshold). The slices are the callback's.
	Epoch func(k, e int, scores []float64, labels []bool)
	// Dist, when not nil and of more than one rank (JoinFromEnv), makes the fit one rank
	// of a data-parallel run (docs/distributed.md). The rows are this rank's block, in
	// rank order. Every rank calls with the same other settings and gets the same Model,
	// whose Scores and Labels cover the whole table.
	Dist *Dist
}

// settings are a fit's Options and its method's fields in one record, as newSettings
// resolves them: zero fields hold the method's defaults and negative "none" fields are
// 0. The fit reads them once, where it enters (fitDataset).
type settings struct {
	Options
	Method                string
	ScreenEpochs          int
	Trim                  float64
	TrainRows, Components int
	Gaussian              float64
	Count                 []CountRule
	Delta                 DeltaRule
	Ties                  Ties
	Contamination         float64
	Answers               []Answer
	Ratio                 float64
	RankScores            ScoreSource
}

// newSettings is m (nil: Ensemble{}) and o in one record, resolved.
func newSettings(m Method, o Options) settings {
	if m == nil {
		m = Ensemble{}
	}
	s := settings{Options: o}
	m.apply(&s)
	return s.resolved()
}

// Defaults are m (nil: Ensemble{}) and the shared Options with every default filled
// in, as a fit with their zero values would run; `udocc fit`'s flags show them. A
// setting whose default is none (no pretraining) stays 0.
func Defaults(m Method) (Method, Options) {
	if m == nil {
		m = Ensemble{}
	}
	d := defaults(m.Name())
	o := d.Options
	switch m := m.(type) {
	case Ensemble:
		fill(&m.ScreenEpochs, d.ScreenEpochs)
		fill(&m.Trim, d.Trim)
		fill(&m.TrainRows, d.TrainRows)
		fill(&m.Components, d.Components)
		fill(&m.Gaussian, d.Gaussian)
		return m, o
	case Proposed:
		fill(&m.RankScores, d.RankScores)
		return m, o
	case SB:
		fill(&m.RankScores, d.RankScores)
		return m, o
	case Otsu:
		fill(&m.RankScores, d.RankScores)
		return m, o
	case TAR:
		fill(&m.RankScores, d.RankScores)
		return m, o
	}
	return m, o
}

// fill sets *v to d where it is zero.
func fill[T comparable](v *T, d T) {
	var zero T
	if *v == zero {
		*v = d
	}
}

// defaults are the settings of method name's zero values: those of `udocc fit` for the
// ensemble (docs/threshold.md: pretraining 60 epochs at lr 3e-3 after a screening fit
// of 50, fine-tuning 10 at 1e-4, five members), the paper's for the others (100
// pretraining and 50 fine-tuning epochs at lr 1e-3, one member).
func defaults(name string) settings {
	if name != ensembleName {
		s := fromConfig(training.DefaultConfig())
		s.Method = name
		return s
	}
	s := fromConfig(method.EnsembleConfig())
	s.Method = ensembleName
	s.Members = method.EnsembleSize
	s.TrainRows = method.EnsembleTrainRows
	s.Components = method.EnsembleComponents
	s.Gaussian = method.EnsembleGaussianWeight
	return s
}

func fromConfig(c training.Config) settings {
	return settings{
		Options: Options{Epochs: c.Epochs, PretrainEpochs: c.PretrainEpochs, LR: c.LR, PretrainLR: c.PretrainLR,
			BatchSize: c.BatchSize, WeightDecay: c.WeightDecay, Members: 1, Device: c.Device},
		ScreenEpochs: c.ScreenEpochs, Trim: c.Trim, RankScores: ScoreSource(c.Scores),
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

// resolved is o with its zero fields given the method's defaults and its negative
// "none" fields made 0, as training takes them. Only newSettings calls it: a "none"
// becomes 0, which a second call would read as unset.
func (o settings) resolved() settings {
	def := defaults(o.Method)
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

// Validate reports the first setting of m (nil: Ensemble{}) and o that a fit cannot
// use, as an *OptionError naming its field. Zero fields are the defaults, and valid.
func Validate(m Method, o Options) error { return newSettings(m, o).validate() }

// validate is Validate on resolved settings.
func (o settings) validate() error {
	meth, err := method.MethodNamed(o.Method)
	if err != nil {
		return o.badOption("Method", "%v", err)
	}
	proposed := o.Method == proposedName
	switch {
	case o.Epochs < 1:
		return o.badOption("Epochs", "%d < 1", o.Epochs)
	case proposed && o.Epochs < 2:
		// Algorithm 1 searches δ from epoch 2 on: with one epoch there is no threshold.
		return o.badOption("Epochs", "%d: method proposed needs at least 2 fine-tuning epochs to pick a threshold", o.Epochs)
	case o.Components < 0 || o.Components > method.EnsembleProjectAbove:
		return o.badOption("Components", "%d: want a negative number (every column) or 1 to %d principal components", o.Components, method.EnsembleProjectAbove)
	case !(o.Gaussian >= 0 && o.Gaussian <= 1):
		return o.badOption("Gaussian", "%g: want a negative number (none) or a weight in (0, 1]", o.Gaussian)
	case meth.Ensemble && o.TrainRows == method.EnsembleTrainRows && o.TrainRows < 2*o.BatchSize:
		// The default sample: the batch is what was set too large.
		return o.badOption("BatchSize", "%d: the ensemble trains on a sample of %d rows (TrainRows), which must hold two minibatches: want at most %d, or more TrainRows", o.BatchSize, o.TrainRows, o.TrainRows/2)
	case meth.Ensemble && o.TrainRows > 0 && o.TrainRows < 2*o.BatchSize:
		return o.badOption("TrainRows", "%d: want at least two minibatches of BatchSize %d (%d rows), or every row", o.TrainRows, o.BatchSize, 2*o.BatchSize)
	case meth.Ensemble && o.ScreenEpochs > 0 && !(o.Trim > 0 && o.Trim < 0.5):
		return o.badOption("Trim", "%g: want a share in (0, 0.5) of rows to leave out", o.Trim)
	case training.CheckRate(o.LR, false) != nil:
		return o.badOption("LR", "%g: %v", o.LR, training.CheckRate(o.LR, false))
	case training.CheckRate(o.PretrainLR, true) != nil:
		return o.badOption("PretrainLR", "%g: %v (0: the fine-tuning rate)", o.PretrainLR, training.CheckRate(o.PretrainLR, true))
	case o.BatchSize < 2:
		return o.badOption("BatchSize", "%d < 2 (BatchNorm needs 2 rows)", o.BatchSize)
	case training.CheckRate(o.WeightDecay, true) != nil:
		return o.badOption("WeightDecay", "%g: %v", o.WeightDecay, training.CheckRate(o.WeightDecay, true))
	case o.Members < 1 || o.Members > models.MaxMembers:
		return o.badOption("Members", "%d: want 1..%d", o.Members, models.MaxMembers)
	case o.Seeds != nil && len(o.Seeds) != o.Members:
		return o.badOption("Seeds", "%d seeds for %d Members", len(o.Seeds), o.Members)
	case !validDevice(o.Device):
		return o.badOption("Device", "%q: want cpu, cuda or cuda:N", o.Device)
	case o.Threads < 0:
		return o.badOption("Threads", "%d < 0", o.Threads)
	case o.Answers != nil && o.Contamination != 0:
		return o.badOption("Answers", "the count comes from the answers: leave Contamination 0")
	case o.Answers != nil && o.Dist != nil:
		return o.badOption("Answers", "not with a data-parallel fit (Dist)")
	case !(o.Contamination >= 0 && o.Contamination <= MaxContamination):
		return o.badOption("Contamination", "%g: want 0 or a share of rows in (0, %g]", o.Contamination, MaxContamination)
	case meth.Ratio && !(o.Ratio > 0 && o.Ratio < 1):
		return o.badOption("Ratio", "%g: method %s needs a ratio in (0, 1)", o.Ratio, o.Method)
	case o.RankScores != TrainScores && o.RankScores != EvalScores:
		return o.badOption("RankScores", "%q: want %s or %s", o.RankScores, TrainScores, EvalScores)
	}
	seen := map[uint64]bool{}
	for _, s := range o.Seeds {
		if seen[s] {
			// Its members would be the same network, saved to the same file.
			return o.badOption("Seeds", "seed %d is named twice", s)
		}
		seen[s] = true
	}
	if o.Hidden != nil && len(o.Hidden) == 0 {
		return o.badOption("Hidden", "no layers (nil: the default widths)")
	}
	for _, h := range o.Hidden {
		if h < 1 {
			return o.badOption("Hidden", "layer width %d < 1", h)
		}
	}
	return o.validateRules()
}

// ValidateRows reports a setting of m (nil: Ensemble{}) that cannot be used on a table
// of n rows: a share of fewer than one row.
func ValidateRows(m Method, n int) error { return newSettings(m, Options{}).validateRows(n) }

// validateRows is ValidateRows of o.
func (o settings) validateRows(n int) error {
	for _, c := range []struct {
		field string
		v     float64
	}{{"Contamination", o.Contamination}, {"Ratio", o.Ratio}} {
		if c.v > 0 && c.v*float64(n) < 1 {
			return o.badOption(c.field, "%g of %d rows is fewer than one row; want at least %.3g", c.v, n, 1/float64(n))
		}
	}
	return nil
}

// isShared says whether field is one of Options'; the others are the method's.
func isShared(field string) bool {
	_, ok := reflect.TypeFor[Options]().FieldByName(field)
	return ok
}

// badOption is the error of Validate for field of Options or of o's method's struct.
func (o settings) badOption(field string, format string, args ...any) error {
	typ := "Options"
	switch {
	case field == "Method":
		typ, field = "Method", "Name"
	case !isShared(field):
		typ = structName(o.Method)
		if field == "Ratio" && o.Method == sbName {
			field = "Nu"
		}
	}
	return &OptionError{Type: typ, Field: field, Reason: fmt.Sprintf(format, args...)}
}

// validateRules reports a rule option that the method does not take or that is unknown.
func (o settings) validateRules() error {
	if o.Count != nil && o.Method != ensembleName {
		return o.badOption("Count", "only for method ensemble")
	}
	if names := o.countNames(); slices.Contains(names, LearnedCount) {
		if len(names) > 1 {
			return o.badOption("Count", "%q is not a rule of the scores: it cannot be joined with %v", LearnedCount, names)
		}
	} else if _, err := o.count(); err != nil && o.Method == ensembleName {
		return o.badOption("Count", "%v", err)
	}
	switch {
	case o.Delta != "" && o.Method != proposedName:
		return o.badOption("Delta", "only for method proposed")
	case o.Ties != "" && o.Method != proposedName:
		return o.badOption("Ties", "only for method proposed")
	case o.Method != proposedName:
		return nil
	}
	if o.Ties != "" {
		if _, err := dynamics.ParseTieRule(string(o.Ties)); err != nil {
			return o.badOption("Ties", "%v", err)
		}
		if o.Delta != PaperRule {
			return o.badOption("Ties", "only for δ rule %s", PaperRule)
		}
	}
	if _, err := o.delta(); err != nil {
		return o.badOption("Delta", "%v", err)
	}
	return nil
}

// seeds are the members' seeds of o.
func (o settings) seeds() []uint64 {
	if o.Seeds != nil {
		return o.Seeds
	}
	return method.EnsembleSeeds(o.Seed, o.Members)
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
func (o settings) method(d int, trace bool) method.Config {
	meth := internalMethod(o.Method) // checked by validate
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
		c.ScreenEpochs, c.Trim, c.ScreenScore = o.ScreenEpochs, o.Trim, method.ScreenScore
		c.StandardiseOutput, c.RobustReconstruction = true, true
	}
	c.LR, c.PretrainLR = o.LR, o.PretrainLR
	c.BatchSize, c.WeightDecay, c.Device = o.BatchSize, o.WeightDecay, o.Device
	c.Scores = training.ScoreSource(o.RankScores)
	c.Dist = o.Dist.torch()
	cfg := method.Config{
		Method: meth, Train: c, Seeds: o.seeds(), Member: method.MethodOptions{Ratio: o.Ratio},
		Progress: o.Progress, Epoch: o.Epoch, Trace: trace,
	}
	if o.Epochs >= 2 {
		cfg.Member.CurveEpochs = []int{o.Epochs} // the last epoch's Eq. (5) curve, for History
	}
	if o.Method == proposedName {
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
		cfg.Rule = o.rule()
	}
	return cfg
}

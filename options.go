package udocc

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"github.com/udocc/udocc/internal/dynamics"
	"github.com/udocc/udocc/internal/threshold"
	"github.com/udocc/udocc/internal/training"
)

// Version is udocc's version, saved in a model's model.json.
const Version = "0.1.0"

// Options are the settings of a fit, the flags of `udocc fit` one to one.
type Options struct {
	// Method is "ensemble" (the default), or one of the paper's: "proposed", "oc", "sb",
	// "otsu", "tar".
	Method string
	// Hidden are the encoder's layer widths after the input; nil means the paper's preset
	// for the data set's name (FitDataset), else 32,16,8.
	Hidden []int
	// Epochs are the fine-tuning epochs (ensemble 10, paper 50); PretrainEpochs the
	// autoencoder's (ensemble 60, paper 100), 0 to skip pretraining.
	Epochs, PretrainEpochs int
	// ScreenEpochs, for the ensemble, are the autoencoder epochs of its screening fit on
	// every row (50); the final fit then leaves out the share Trim of rows (0.1) that the
	// screening scored highest (training.FitScreened). ScreenEpochs 0: one fit on every
	// row, as the other methods always do (they ignore both).
	ScreenEpochs int
	Trim         float64
	// LR is Adam's learning rate of fine-tuning (ensemble 1e-4, paper 1e-3), PretrainLR
	// that of pretraining (ensemble 3e-3; 0 means LR).
	LR, PretrainLR float64
	// BatchSize is the rows of a minibatch (128), at least 2.
	BatchSize int
	// WeightDecay is Adam's L2 weight decay (1e-6).
	WeightDecay float64
	// Seed is the first member's seed; Members are trained in lockstep from seeds Seed,
	// Seed+1, … (ensemble 5, paper 1).
	Seed    uint64
	Members int
	// Seeds, when not nil, are the members' seeds instead of Seed, Seed+1, …: one member
	// each, no seed twice; Members must then be len(Seeds).
	Seeds []uint64
	// Device is "cpu", "cuda" or "cuda:N". Threads is the number of CPU threads the
	// networks train and score on, and the fit's host work (the minibatch plans, the
	// explanations of flagged rows) runs on; 0, the default, means every core the
	// process may use (runtime.GOMAXPROCS(0), which follows its CPU affinity and a cgroup
	// CPU quota). Results are bit-identical for any count: each member's steps run in
	// order, rows are scored in blocks of fixed size (package torch), and host work is
	// split into tasks whose results are combined in a fixed order.
	Device  string
	Threads int
	// ThresholdRule is the ensemble's count: a rule of package threshold, or several
	// joined by "+" (threshold.Combination: the geometric mean of their shares); after a
	// screening fit each rule's share is the larger of its shares on the screening's
	// scores and on the final ones. The default, "kmeans"
	// (training.DefaultThresholdRule), also gives an 80 % interval for the share
	// (Model.RatioInterval). Or
	// proposed's δ rule (package dynamics, "" for its default; the paper rule may name
	// how it breaks ties of Eq. (5)'s minimum, "paper/smallest", "paper/median" or
	// "paper/largest", the default); other methods take "".
	ThresholdRule string
	// Contamination is the known anomaly ratio in (0, 1) for the ensemble: the top share
	// of rows is flagged instead of ThresholdRule's choice. 0 lets the rule choose.
	Contamination float64
	// Ratio is sb's ν or tar's anomaly ratio in (0, 1); 0 for the other methods.
	Ratio float64
	// RankScores are the scores the selectors rank each epoch: training.TrainScores (the
	// default) or training.EvalScores.
	RankScores training.ScoreSource
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
// settings training.EnsembleConfig documents.
func DefaultOptions() Options {
	o := fromConfig(training.EnsembleConfig())
	o.Method = training.Ensemble.Name
	o.Members = training.EnsembleSize
	o.ThresholdRule = training.DefaultThresholdRule
	return o
}

// PaperOptions returns the paper's method "proposed" with its settings
// (training.DefaultConfig, `udocc fit --preset paper`), one member.
func PaperOptions() Options {
	o := fromConfig(training.DefaultConfig())
	o.Method = training.Proposed.Name
	o.ThresholdRule = dynamics.DefaultRule().Name()
	return o
}

func fromConfig(c training.Config) Options {
	return Options{
		Epochs: c.Epochs, PretrainEpochs: c.PretrainEpochs, ScreenEpochs: c.ScreenEpochs, Trim: c.Trim,
		LR: c.LR, PretrainLR: c.PretrainLR,
		BatchSize: c.BatchSize, WeightDecay: c.WeightDecay, Members: 1, Device: c.Device,
		RankScores: c.Scores,
	}
}

// threads is the worker thread count of a fit: Threads, or every usable core for 0.
func (o Options) threads() int {
	if o.Threads > 0 {
		return o.Threads
	}
	return runtime.GOMAXPROCS(0)
}

// Validate reports the first option that cannot be used, naming its field.
func (o Options) Validate() error {
	bad := func(field string, format string, args ...any) error {
		return fmt.Errorf("udocc: Options.%s: %s", field, fmt.Sprintf(format, args...))
	}
	meth, err := training.MethodNamed(o.Method)
	if err != nil {
		return bad("Method", "%v", err)
	}
	proposed := meth.Name == training.Proposed.Name
	switch {
	case o.Epochs < 1:
		return bad("Epochs", "%d < 1", o.Epochs)
	case proposed && o.Epochs < 2:
		// Algorithm 1 searches δ from epoch 2 on: with one epoch there is no threshold.
		return bad("Epochs", "%d: method proposed needs at least 2 fine-tuning epochs to pick a threshold", o.Epochs)
	case o.PretrainEpochs < 0:
		return bad("PretrainEpochs", "%d < 0", o.PretrainEpochs)
	case o.ScreenEpochs < 0:
		return bad("ScreenEpochs", "%d < 0", o.ScreenEpochs)
	case meth.Ensemble && o.ScreenEpochs > 0 && !(o.Trim > 0 && o.Trim < 0.5):
		return bad("Trim", "%g: want a share in (0, 0.5) of rows to leave out", o.Trim)
	case training.CheckRate(o.LR, false) != nil:
		return bad("LR", "%g: %v", o.LR, training.CheckRate(o.LR, false))
	case training.CheckRate(o.PretrainLR, true) != nil:
		return bad("PretrainLR", "%g: %v (0: the fine-tuning rate)", o.PretrainLR, training.CheckRate(o.PretrainLR, true))
	case o.BatchSize < 2:
		return bad("BatchSize", "%d < 2 (BatchNorm needs 2 rows)", o.BatchSize)
	case training.CheckRate(o.WeightDecay, true) != nil:
		return bad("WeightDecay", "%g: %v", o.WeightDecay, training.CheckRate(o.WeightDecay, true))
	case o.Members < 1 || o.Members > 1000:
		return bad("Members", "%d: want 1..1000", o.Members)
	case o.Seeds != nil && len(o.Seeds) != o.Members:
		return bad("Seeds", "%d seeds for %d Members", len(o.Seeds), o.Members)
	case !validDevice(o.Device):
		return bad("Device", "%q: want cpu, cuda or cuda:N", o.Device)
	case o.Threads < 0:
		return bad("Threads", "%d < 0", o.Threads)
	case o.Contamination != 0 && !meth.Ensemble:
		return bad("Contamination", "only for method ensemble")
	case !(o.Contamination >= 0 && o.Contamination < 1):
		return bad("Contamination", "%g: want 0 or a ratio in (0, 1)", o.Contamination)
	case meth.Ratio && !(o.Ratio > 0 && o.Ratio < 1):
		return bad("Ratio", "%g: method %s needs a ratio in (0, 1)", o.Ratio, o.Method)
	case !meth.Ratio && o.Ratio != 0:
		return bad("Ratio", "only for method sb or tar")
	case o.RankScores != training.TrainScores && o.RankScores != training.EvalScores:
		return bad("RankScores", "%q: want %s or %s", o.RankScores, training.TrainScores, training.EvalScores)
	}
	seen := map[uint64]bool{}
	for _, s := range o.Seeds {
		if seen[s] {
			// Its members would be the same network, saved to the same file.
			return bad("Seeds", "seed %d is named twice", s)
		}
		seen[s] = true
	}
	for _, h := range o.Hidden {
		if h < 1 {
			return bad("Hidden", "layer width %d < 1", h)
		}
	}
	switch {
	case meth.Ensemble:
		if _, err := threshold.ParseCombination(o.ThresholdRule); err != nil {
			return bad("ThresholdRule", "%v", err)
		}
	case proposed:
		if _, err := deltaRule(o.ThresholdRule); err != nil {
			return bad("ThresholdRule", "%v", err)
		}
	case o.ThresholdRule != "":
		return bad("ThresholdRule", "only for method ensemble or proposed")
	}
	return nil
}

// deltaRule is proposed's δ rule of name, "RULE" or "paper/TIES"; the paper rule breaks
// ties of Eq. (5)'s minimum at the largest δ unless TIES says otherwise.
func deltaRule(name string) (dynamics.Rule, error) {
	if name == "" {
		name = dynamics.DefaultRule().Name()
	}
	name, tie, hasTies := strings.Cut(name, "/")
	ties := dynamics.TieLargest
	if hasTies {
		var err error
		if ties, err = dynamics.ParseTieRule(tie); err != nil {
			return nil, err
		}
	}
	r, err := dynamics.NewRule(name, ties)
	if err != nil {
		return nil, err
	}
	if _, paper := r.(dynamics.Paper); hasTies && !paper {
		return nil, fmt.Errorf("δ rule %q takes no tie rule", name)
	}
	return r, nil
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

// config is the training configuration of o for hidden widths.
func (o Options) config(hidden []int) training.Config {
	c := training.DefaultConfig()
	c.Hidden = hidden
	c.Epochs, c.PretrainEpochs = o.Epochs, o.PretrainEpochs
	if m, _ := training.MethodNamed(o.Method); m.Ensemble {
		c.ScreenEpochs, c.Trim, c.ScreenWeight = o.ScreenEpochs, o.Trim, training.ScreenWeight
		c.StandardiseOutput, c.RobustReconstruction = true, true
	}
	c.LR, c.PretrainLR = o.LR, o.PretrainLR
	c.BatchSize, c.WeightDecay, c.Device = o.BatchSize, o.WeightDecay, o.Device
	c.Scores = o.RankScores
	c.Dist = o.Dist
	return c
}

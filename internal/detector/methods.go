package detector

import (
	"fmt"
	"strings"

	"github.com/udocc/udocc/internal/method"
)

// Method is how a fit trains its networks and draws its threshold. Ensemble is the
// default; a nil Method means Ensemble{}. Proposed, OC, SB, Otsu and TAR are the
// paper's methods (Section V-A). Each is a struct of its own settings. A zero field
// means the method's default, as its documentation says.
type Method interface {
	// Name is the method's name, as model.json and `udocc fit --method` spell it.
	Name() string
	// apply writes the method's settings into s.
	apply(s *settings)
}

// Ensemble is the default method. Five one-class Deep SVDD members are refitted
// without the rows a screening fit scored highest. Each row's score adds the members'
// autoencoders' reconstruction errors to their distances. Count decides how many rows
// to flag.
type Ensemble struct {
	// ScreenEpochs are the autoencoder epochs of the screening fit on every row (0: 50;
	// negative: no screening, one fit on every row).
	ScreenEpochs int
	// Trim is the share of rows, those the screening scored highest, that the final fit
	// leaves out (0: 0.1).
	Trim float64
	// TrainRows is the most rows the networks train on (0: 2,048; negative: every row).
	// A larger table trains on a sample drawn from Options.Seed. Every row is scored.
	// A data-parallel rank trains on its whole block.
	TrainRows int
	// Components: a table of more than 300 columns reaches the networks as this many
	// leading principal components (0: 32; negative: every column). Such a model is
	// explained by occlusion or Shapley values.
	Components int
	// Gaussian is the weight in [0, 1] of a Ledoit–Wolf Gaussian of the standardised
	// columns, mixed with the networks' score on a table read through its components
	// (0: 0.9; negative: none). It sees the small directions the components leave out.
	Gaussian float64
	// Count are the count rules (nil: LearnedCount, which also gives an 80 % interval,
	// Model.RatioInterval). Several rules flag the geometric mean of their shares.
	Count []CountRule
	// Contamination is the known anomaly share in (0, MaxContamination]: the top share
	// of rows is flagged instead of Count's choice (0: Count chooses).
	Contamination float64
	// Answers are the user's answers on training rows, as `udocc review` asks them. The
	// fit fine-tunes its networks on them and sharpens its scores with them, where they
	// hold an anomaly and a normal row, and draws its count and cut from them
	// (Model.Learn). Not with Contamination or Options.Dist. nil: a label-free fit.
	Answers []Answer
}

// Proposed is the paper's method (Algorithm 1): each member's threshold comes from
// ranking-based training dynamics.
type Proposed struct {
	// Delta is the rule for each epoch's rank threshold δ ("": Accumulated).
	Delta DeltaRule
	// Ties is how PaperRule breaks ties of Eq. (5)'s minimum ("": TiesLargest). Only
	// with Delta PaperRule.
	Ties Ties
	// RankScores are the scores the selectors rank each epoch ("": TrainScores).
	RankScores ScoreSource
}

// OC is one-class Deep SVDD. It ranks rows and labels none.
type OC struct{}

// SB is soft-boundary Deep SVDD.
type SB struct {
	// Nu is ν in (0, 1), the share of rows the boundary may leave out. It has no default.
	Nu float64
	// RankScores are the scores the radius is drawn from ("": TrainScores).
	RankScores ScoreSource
}

// Otsu is one-class Deep SVDD thresholded by Otsu's method each epoch.
type Otsu struct {
	// RankScores are the scores the selectors rank each epoch ("": TrainScores).
	RankScores ScoreSource
}

// TAR is one-class Deep SVDD thresholded at the true anomaly ratio.
type TAR struct {
	// Ratio is the anomaly ratio in (0, 1). It has no default.
	Ratio float64
	// RankScores are the scores the selectors rank each epoch ("": TrainScores).
	RankScores ScoreSource
}

// The methods' names.
const (
	ensembleName = "ensemble"
	proposedName = "proposed"
	ocName       = "oc"
	sbName       = "sb"
	otsuName     = "otsu"
	tarName      = "tar"
)

func (Ensemble) Name() string { return ensembleName }
func (Proposed) Name() string { return proposedName }
func (OC) Name() string       { return ocName }
func (SB) Name() string       { return sbName }
func (Otsu) Name() string     { return otsuName }
func (TAR) Name() string      { return tarName }

func (e Ensemble) apply(s *settings) {
	s.Method = ensembleName
	s.ScreenEpochs, s.Trim, s.TrainRows, s.Components, s.Gaussian = e.ScreenEpochs, e.Trim, e.TrainRows, e.Components, e.Gaussian
	s.Count, s.Contamination, s.Answers = e.Count, e.Contamination, e.Answers
}

func (p Proposed) apply(s *settings) {
	s.Method, s.Delta, s.Ties, s.RankScores = proposedName, p.Delta, p.Ties, p.RankScores
}

func (OC) apply(s *settings) { s.Method = ocName }

func (b SB) apply(s *settings) { s.Method, s.Ratio, s.RankScores = sbName, b.Nu, b.RankScores }

func (t Otsu) apply(s *settings) { s.Method, s.RankScores = otsuName, t.RankScores }

func (t TAR) apply(s *settings) { s.Method, s.Ratio, s.RankScores = tarName, t.Ratio, t.RankScores }

// MethodNamed is the method of name, as Method.Name spells it, with its defaults.
func MethodNamed(name string) (Method, error) {
	switch name {
	case ensembleName, "":
		return Ensemble{}, nil
	case proposedName:
		return Proposed{}, nil
	case ocName:
		return OC{}, nil
	case sbName:
		return SB{}, nil
	case otsuName:
		return Otsu{}, nil
	case tarName:
		return TAR{}, nil
	}
	names := []string{method.Ensemble.Name}
	names = append(names, method.Methods...)
	return nil, fmt.Errorf("udocc: unknown method %q: want one of %s", name, strings.Join(names, ", "))
}

// structName is the Go name of the struct of the method named name.
func structName(name string) string {
	switch name {
	case ocName, sbName, tarName:
		return strings.ToUpper(name)
	}
	return strings.ToUpper(name[:1]) + name[1:]
}

// OptionError is a setting a fit cannot use: Type is "Options" or the method's struct,
// Field the field's name.
type OptionError struct {
	Type, Field, Reason string
}

func (e *OptionError) Error() string {
	return "udocc: " + e.Type + "." + e.Field + ": " + e.Reason
}

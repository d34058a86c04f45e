package udocc

import "github.com/udocc/udocc/internal/detector"

// The settings and results the door shares with the detector inside it; each type's
// documentation is the detector's (go doc github.com/udocc/udocc/internal/detector).
type (
	// Options are the settings every method shares; the zero value is the defaults.
	// Its fields: Hidden (the layer widths), Epochs and PretrainEpochs, LR and
	// PretrainLR, BatchSize, WeightDecay, Seed, Members and Seeds, Device, Threads, and
	// the hooks Progress and Epoch; Dist joins a data-parallel run.
	Options = detector.Options
	// Method is a fit's method: Ensemble (the default, also for nil) or one of the
	// paper's: Proposed, OC, SB, Otsu, TAR. Each struct holds its own settings.
	Method = detector.Method
	// Ensemble is the default method: five Deep SVDD members refitted without the rows
	// a screening fit scored highest, scored with their autoencoders. Its fields, each
	// zero for its default: ScreenEpochs (50; negative: no screening), Trim (0.1),
	// TrainRows (2,048; negative: every row), Components (32, for tables of more than
	// 300 columns; negative: every column), Gaussian (0.9; negative: none), Count (nil:
	// LearnedCount), Contamination (0: Count decides), Answers (nil: label-free).
	Ensemble = detector.Ensemble
	// Proposed is the paper's method (Algorithm 1), with the paper's settings when
	// Options is zero. Its fields: Delta (Accumulated), Ties (TiesLargest, with
	// PaperRule only), RankScores (TrainScores).
	Proposed = detector.Proposed
	// OC is one-class Deep SVDD: it ranks rows and labels none.
	OC = detector.OC
	// SB is soft-boundary Deep SVDD. Nu, ν in (0, 1), has no default; RankScores as
	// Proposed's.
	SB = detector.SB
	// Otsu thresholds one-class Deep SVDD by Otsu's method; RankScores as Proposed's.
	Otsu = detector.Otsu
	// TAR thresholds one-class Deep SVDD at the anomaly ratio Ratio in (0, 1), which has
	// no default; RankScores as Proposed's.
	TAR = detector.TAR
	// OptionError is a setting a fit cannot use: the struct and field it is in.
	OptionError = detector.OptionError
	// CountRule names how many rows to flag when no contamination is given.
	CountRule = detector.CountRule
	// DeltaRule, Ties and ScoreSource are the paper's method's settings.
	DeltaRule   = detector.DeltaRule
	Ties        = detector.Ties
	ScoreSource = detector.ScoreSource
	// Dist is a data-parallel run joined by JoinFromEnv.
	Dist = detector.Dist
	// Runtime is what RuntimeInfo says of this build.
	Runtime = detector.Runtime
	// ExplainMethod, ExplainOptions and Attribution are Explain's settings and results.
	ExplainMethod  = detector.ExplainMethod
	ExplainOptions = detector.ExplainOptions
	Attribution    = detector.Attribution
	// Answer, ReviewOptions, ReviewRow, CalibrateOptions, Calibration, CountBasis and
	// AnswerError are the review's: answers on rows, the rows to ask next, and the count
	// and cut the answers give.
	Answer           = detector.Answer
	ReviewOptions    = detector.ReviewOptions
	ReviewRow        = detector.ReviewRow
	CalibrateOptions = detector.CalibrateOptions
	Calibration      = detector.Calibration
	CountBasis       = detector.CountBasis
	AnswerError      = detector.AnswerError
	// FineTune records how answers fine-tuned a model's networks (Model.FineTuned).
	FineTune = detector.FineTune
	// HandlerOptions are Handler's limits and settings.
	HandlerOptions = detector.HandlerOptions
	// UnscorableError is a row too far outside the training range to score: its row,
	// column and index in fields; errors.Is(err, ErrUnscorable).
	UnscorableError = detector.UnscorableError
	// NoValuesError is a row whose every cell is missing (ErrNoValues): its row.
	NoValuesError = detector.NoValuesError
	// ColumnsError is a table whose named columns are not the model's (ErrColumns):
	// the columns missing and those the model does not have.
	ColumnsError = detector.ColumnsError
)

// LearnedCount is the default count rule: a count learned on the corpus's real tables.
const LearnedCount = detector.LearnedCount

// The paper's method's settings.
const (
	Accumulated  = detector.Accumulated
	PaperRule    = detector.PaperRule
	TiesLargest  = detector.TiesLargest
	TiesSmallest = detector.TiesSmallest
	TiesMedian   = detector.TiesMedian
	TrainScores  = detector.TrainScores
	EvalScores   = detector.EvalScores
)

// The explanation methods.
const (
	Shapley             = detector.Shapley
	Occlusion           = detector.Occlusion
	IntegratedGradients = detector.IntegratedGradients
	GradientInput       = detector.GradientInput
)

// Version is udocc's version.
const Version = detector.Version

// DefaultReviewRows is how many rows a round asks for when ReviewOptions.K is 0.
const DefaultReviewRows = detector.DefaultReviewRows

// The errors a caller may test for with errors.Is.
var (
	ErrClosed         = detector.ErrClosed
	ErrColumns        = detector.ErrColumns
	ErrDiverged       = detector.ErrDiverged
	ErrNoValues       = detector.ErrNoValues
	ErrNoThreshold    = detector.ErrNoThreshold
	ErrNotModelFolder = detector.ErrNotModelFolder
	ErrUnscorable     = detector.ErrUnscorable
	ErrNoReviewRows   = detector.ErrNoReviewRows
	ErrNoRow          = detector.ErrNoRow
	ErrContradiction  = detector.ErrContradiction
	ErrBadRound       = detector.ErrBadRound
	ErrLearned        = detector.ErrLearned
	ErrPastSketch     = detector.ErrPastSketch
)

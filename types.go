package udocc

import "github.com/udocc/udocc/internal/detector"

// The settings and results the door shares with the detector inside it; each type's
// documentation is the detector's (go doc github.com/udocc/udocc/internal/detector).
type (
	// Options are the settings every method shares; the zero value is the defaults.
	Options = detector.Options
	// Method is a fit's method: Ensemble (the default, also for nil) or one of the
	// paper's: Proposed, OC, SB, Otsu, TAR. Each struct holds its own settings.
	Method   = detector.Method
	Ensemble = detector.Ensemble
	Proposed = detector.Proposed
	OC       = detector.OC
	SB       = detector.SB
	Otsu     = detector.Otsu
	TAR      = detector.TAR
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

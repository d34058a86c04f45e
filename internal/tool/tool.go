// Package tool is what the udocc command, the bench and the studies reach in a fitted
// model beyond the library's API: the per-epoch history and the members of a fit, the
// column contract's parts, a threshold drawn anew (Cut), the served model's metadata
// and the handler's reload, and the defaults of the command's flags. Package detector
// implements its interfaces; a Go user of the library needs none of it.
package tool

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/threshold"
)

// Model is what the udocc command, the server and the bench read of a fitted model
// (a *detector.Model) beyond the door's API.
type Model interface {
	// History is every member's per-epoch fine-tuning record (loss, training set size,
	// the selector's δ* and selected ratio, SB's radius), member by member in seed
	// order; nil for a loaded model. It is a copy.
	History() [][]Epoch
	// Members are the model's members in seed order, with their training rows' scores
	// and labels for a model that Fit returned (a copy).
	Members() []Member
	// ScoreMembers is Score of the model's rows with each member's distances (Eq. (3))
	// beside the combined scores.
	ScoreMembers(ctx context.Context, rows [][]float64) ([]float64, [][]float64, error)
	// Label labels scores by the model's threshold, true above it; nil for a model
	// without one (oc).
	Label(scores []float64) []bool
	// Probability is Model.Probabilities of one score.
	Probability(score float64) float64
	// ThresholdFor is the threshold, in score units, that cut c draws on scores (exactly:
	// scores above it are flagged); it changes nothing (ErrNoRecut where it cannot be
	// drawn).
	ThresholdFor(scores []float64, c Cut) (float64, error)
	// Recut draws the threshold anew with c on the training scores (kept in model.json
	// for a loaded model) and sets it, returning it; model.json's threshold rule follows
	// at the next Save.
	Recut(scores []float64, c Cut) (float64, error)
	// TrainingFlagged is how many training rows the threshold flags: counted on the
	// training scores of a fitted model, estimated from their sketch in model.json for
	// a loaded one; -1 where neither is kept.
	TrainingFlagged() int
	// LabelColumn is the training table's label column and its positive value, "" where
	// it had none by name.
	LabelColumn() (name, positive string)
	// Medians are the training columns' medians, which Impute fills missing cells with
	// (a copy); TrainingMissing the training table's missing cells per column.
	Medians() []float64
	TrainingMissing() []int
	// MatchColumns reorders ds's columns by name to the model's, or refuses it naming
	// the columns (udocc.ErrColumns); Impute fills ds's missing cells with Medians,
	// returning the count per column.
	MatchColumns(ds *data.Dataset) (*data.Dataset, error)
	Impute(ds *data.Dataset) ([]int, error)
	// Selection is how the training table's columns were chosen from its file; the zero
	// Selection where every column was taken.
	Selection() data.Selection
	// Device is the device the networks are on; Inputs the number of columns the model
	// takes; Hidden the encoder's widths after the input (a copy); ConstantColumns the
	// training columns that held one value throughout (a copy).
	Device() string
	Inputs() int
	// Components are the leading principal components the networks read in place of
	// the columns (Options.Components); 0 when they read the columns.
	Components() int
	// GaussianWeight is the weight of the Gaussian of a projected table's columns in its
	// score (Options.Gaussian); 0 when there is none.
	GaussianWeight() float64
	Hidden() []int
	ConstantColumns() []int
	// DistanceWeight is the ensemble's w, the distances' part of the combined score;
	// NaN for the paper's methods.
	DistanceWeight() float64
	// DefaultExplainMethod is the explanation method "" gives on this model: "shapley"
	// for at most ShapleyMaxFeatures features, else "integrated-gradients".
	DefaultExplainMethod() string
	// Normal is the baseline row of the explanations (the training rows' medians) and
	// the columns' spreads, nil for a model saved without them.
	Normal() (median, spread []float64)
}

// Server is the handler udocc.Handler returns, as the udocc serve command drives it.
// Its methods are safe for concurrent use.
type Server interface {
	http.Handler
	// Close stops serving: later requests are refused with 503, and Close returns once
	// the requests in progress are done and every model the handler held is closed.
	Close() error
	// Info is the metadata of the model served now.
	Info() ModelInfo
	// Reload loads the model in HandlerOptions.Dir again and swaps it in, returning its
	// metadata; a model that does not load is refused with an error and a log line, and
	// the model served before keeps serving.
	Reload() (ModelInfo, error)
}

// ErrNoModelDir reports a reload of a handler that was given no folder
// (HandlerOptions.Dir).
var ErrNoModelDir = errors.New("udocc: the handler has no model folder to reload (HandlerOptions.Dir)")

// ErrNoRecut reports a cut on a model whose method thresholds its members one by one
// (the paper's methods), or that keeps no training scores to draw one from.
var ErrNoRecut = errors.New("udocc: the threshold cannot be drawn anew")

// The defaults of udocc.HandlerOptions' limits, the flags of `udocc serve`.
const (
	DefaultMaxBodyBytes  = 64 << 20
	DefaultMaxRows       = 100_000
	DefaultMaxConcurrent = 64
	DefaultTimeout       = 30 * time.Second
)

// LearnedCount names the learned count (udocc.LearnedCount), the ensemble's default.
const LearnedCount = "learned"

// CountRules lists the count rules of udocc.Options.Count and a Cut: learned, then the
// rules of the scores (mad, iqr, modz, zscore, chauvenet, gesd, gmm, gmm-log, gmm-bic,
// kmeans, otsu and comb).
func CountRules() []string {
	out := []string{LearnedCount}
	for _, r := range threshold.All() {
		out = append(out, r.Name())
	}
	return out
}

package detector

import (
	"errors"
	"fmt"
	"time"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/method"
	"github.com/udocc/udocc/internal/review"
	"github.com/udocc/udocc/internal/threshold"
	"github.com/udocc/udocc/internal/training"
)

// Epoch is one member's record of one fine-tuning epoch (Model.History): the loss,
// the rows trained on, SB's radius and the selector's record (δ*, the selected ratio,
// the threshold, the Eq. (5) curve).
type Epoch = training.Epoch

// Member is one member of a model (Model.Members).
type Member = method.Member

// Cut says how a model's threshold is drawn anew, without training (Model.ThresholdFor,
// Model.Recut): set exactly one field.
type Cut struct {
	// Contamination flags the top share of rows, a share in (0, 0.5].
	Contamination float64
	// Count flags the top Count rows, 1 or more.
	Count int
	// Rule is a count rule (udocc.CountRule) applied to the scores.
	Rule string
	// Score, where set, is the threshold itself, in score units: rows scoring above it
	// are flagged.
	Score *float64
}

// String spells the cut as model.json's threshold_rule and summary.json write it.
func (c Cut) String() string {
	switch {
	case c.Contamination > 0:
		return fmt.Sprintf("contamination=%g", c.Contamination)
	case c.Count > 0:
		return fmt.Sprintf("count=%d", c.Count)
	case c.Score != nil:
		return fmt.Sprintf("score=%g", *c.Score)
	}
	return c.Rule
}

// ModelInfo is what GET /v1/model says of the model a udocc.Handler serves.
type ModelInfo struct {
	// Version names the model's contents: the first 16 hex digits of the SHA-256 of its
	// description (model.json's fields, its network files' hashes among them), the same
	// for a model however it was loaded. Every score response carries it.
	Version string `json:"version"`
	// Udocc is the version of udocc that fitted the model.
	Udocc  string `json:"udocc"`
	Method string `json:"method"`
	// Columns are the names of the inputs, in order; nil where the training table named
	// none (rows then match by position). Inputs is their count.
	Columns []string `json:"columns"`
	Inputs  int      `json:"inputs"`
	// Components are the leading principal components the networks read in place of
	// the columns (fit --components); absent when they read the columns.
	Components int `json:"components,omitempty"`
	// GaussianWeight is the weight of the Gaussian of the columns in the score of such a
	// model (Ensemble.Gaussian); absent where there is none.
	GaussianWeight float64 `json:"gaussian_weight,omitempty"`
	// Ignored are the columns a CSV header or a JSON row may carry beside the inputs: the
	// training table's id column and the columns its fit dropped.
	Ignored []string `json:"ignored,omitempty"`
	// Encoding is how text columns (categories, dates) become the last inputs; a row
	// may carry such a column's text in place of its inputs. Absent where there is none.
	Encoding *data.Encoding `json:"encoding,omitempty"`
	// ID is the training table's id column ("" for pandas' unnamed index), where HasID:
	// a row's cell in it comes back as the row's id.
	ID    string `json:"id_column,omitempty"`
	HasID bool   `json:"-"`
	// Threshold is in score units (udocc.Model.Threshold); null for a method without one (oc).
	Threshold *float64 `json:"threshold"`
	// Count is the rule that set the ensemble's threshold (e.g. "two-means") and
	// RatioInterval the 80 % interval of the share of anomalies beside it
	// (udocc.Model.RatioInterval); absent where there is none.
	Count         string    `json:"count,omitempty"`
	RatioInterval []float64 `json:"ratio_interval,omitempty"`
	Members       int       `json:"members"`
	Device        string    `json:"device"`
	// Dir is the folder the model was loaded from; "" for a model handed over in memory.
	// It is the server's to log, not its clients' to read: GET /v1/model leaves it out.
	Dir string `json:"-"`
	// Files are the SHA-256 (hex) of the model's files by name: its networks (checked
	// against model.json when it was loaded) and, where Dir is known, model.json.
	Files  map[string]string `json:"files"`
	Loaded time.Time         `json:"loaded"`
}

// RankedAnswer is an answer on the row of rank Rank (1-based, ReviewRanks) among the
// rows reviewed, whose score is Score: what a labels file holds when the table itself
// is not at hand (udocc cut --labels).
type RankedAnswer struct {
	Rank    int
	Score   float64
	Anomaly bool
	Round   int // 0: a row the user picked
}

// ReviewRanks are the 1-based rank of each score (rank[i], review.Ranks: scores
// descending, ties to the lower row first) and the row of each rank (order[r-1]). These
// are a review's ranks (udocc.Model.ReviewRows), which break ties the other way from
// scores.csv's.
func ReviewRanks(scores []float64) (rank, order []int) {
	rank = review.Ranks(scores)
	order = make([]int, len(scores))
	for i, r := range rank {
		order[r-1] = i
	}
	return rank, order
}

// The explanations' settings (udocc.ExplainOptions, docs/explain.md).

// DefaultExplainSteps are the points of the midpoint rule with which the
// integrated-gradients method integrates the distance's gradient along the path from the
// baseline row (udocc.ExplainOptions.Steps).
const DefaultExplainSteps = 16

// MaxExplainSteps bounds udocc.ExplainOptions.Steps: each step is a pass of the networks over
// every row explained, and the midpoint rule's error at 1024 points is far below a
// float32 score's resolution.
const MaxExplainSteps = 1024

// ExactShapleyFeatures is the most active features (those off the baseline's value)
// whose Shapley values udocc's Explain computes exactly, over all 2^k coalitions, when
// udocc.ExplainOptions.Exact asks; beyond, it samples permutations (udocc.ExplainOptions.Samples).
const ExactShapleyFeatures = 12

// CheapExactShapleyFeatures is the most active features whose Shapley values udocc's Explain
// computes exactly by default: up to 2^5 = 32 coalitions, no more scored rows than the
// 8·(5−1) of DefaultShapleySamples permutations. Beyond, exact values cost more than
// sampled ones (2^10 = 1024 scored rows a row of 10 against 72) and are no more
// faithful: on the planted anomalies of the paper sets of at most 12 features both lead
// with the moved features on 94.1 % of rows (docs/explain.md).
const CheapExactShapleyFeatures = 5

// DefaultShapleySamples are the permutations, in antithetic pairs, from which the Shapley
// method estimates a row's values beyond ExactShapleyFeatures active features: 8·(k−1)
// scored rows a row of k. On the paper sets of at most 12 features, 8 name exact
// Shapley's top feature on 96.5 % of flagged rows, 16 on 97.9 % (docs/explain.md), at
// twice the cost.
const DefaultShapleySamples = 8

// ShapleyMaxFeatures is the most features of a model whose default explanation
// (udocc.ExplainOptions.Method "") is Shapley values; a wider model's is integrated gradients.
// Sampled Shapley values cost 8·(k−1) scored rows a row of k active features, integrated
// gradients about 50 whatever k (16 points, each a pass forward and back): on a table of
// 512 features 130 times less. On the shifted tables of the paper sets
// (docs/explain.md) Shapley values lead with the moved features more often than
// integrated gradients up to cardio's 21 features, the two are level (within 2.4
// points) from 30 to 36, and integrated gradients do as well from mnist's 100 on.
const ShapleyMaxFeatures = 40

// InteractionShare is the part of a row's rise over the baseline at which the
// interaction of its two leading features is reported (udocc.Attribution).
const InteractionShare = 0.25

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

// CountRules lists the count rules of udocc.Ensemble.Count and a Cut: learned, then the
// rules of the scores (mad, iqr, modz, zscore, chauvenet, gesd, gmm, gmm-log, gmm-bic,
// kmeans, otsu and comb).
func CountRules() []string {
	out := []string{string(LearnedCount)}
	for _, r := range threshold.All() {
		out = append(out, r.Name())
	}
	return out
}

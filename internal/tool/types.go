package tool

import (
	"fmt"
	"math"
	"time"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/threshold"
)

// Epoch is one member's record of one fine-tuning epoch (Model.History).
type Epoch struct {
	Epoch     int     // e, 1-based
	Loss      float64 // mean minibatch loss
	TrainSize int     // rows trained on in the epoch, |D_N^e|
	Radius    float64 // SB's R after the epoch (0 for the other methods)
	Seconds   float64 // wall time of the group's epoch, training and scoring
	// The selector's record: δ^{e*} of Eq. (5) (0 where no search ran), the running mean
	// δ̄ of Eq. (6) (NaN before the first search), the minimum of the rule's objective
	// and how many δ share it, the selected anomaly ratio (n−δ̄)/n, the rows the next
	// epoch trains on, the threshold in score units (NaN where the method has none),
	// whether the selected set fell below the floor and was replaced by the lowest-ranked
	// rows, and the rule's objective for δ = 0..n at the last epoch (Eq. (5) for
	// PaperRule; NaN outside [2, n−1]; nil at the other epochs).
	DeltaStar     int
	DeltaBar      float64
	MinScaled     float64
	Ties          int
	SelectedRatio float64
	NextTrainSize int
	Threshold     float64
	Floored       bool
	Curve         []float64
}

// Member is one network of a model, trained from its own seed in lockstep with the
// others.
type Member struct {
	Seed uint64
	// Threshold is the member's own threshold on its distances for the paper's methods
	// but oc; +Inf for oc and for the ensemble's members, which are thresholded together.
	Threshold float64
	// Scores are the training rows' distances ||φ(x)−c||², Eq. (3); Labels are the rows
	// above Threshold (nil without one); PretrainLoss is the autoencoder's loss per
	// pretraining epoch. All three are nil for a loaded model.
	Scores       []float64
	Labels       []bool
	PretrainLoss []float64
}

// Label labels the member's distances by its own Threshold, true above it; nil where it
// has none (oc, and the ensemble's members).
func (mem Member) Label(dist []float64) []bool {
	if math.IsInf(mem.Threshold, 1) {
		return nil
	}
	return threshold.Labels(dist, mem.Threshold)
}

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
	// model (Options.Gaussian); absent where there is none.
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

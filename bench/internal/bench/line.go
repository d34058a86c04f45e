package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Line is one finished run, one JSON object on one line of results.jsonl. Ratios and
// metrics are fractions in [0, 1] (the report prints percentages, as the paper does).
// Fields without a value for the run's method are null (a Num of NaN) or left out.
type Line struct {
	Dataset   string `json:"dataset"`
	File      string `json:"file"`        // the data file's base name
	DataSHA   string `json:"data_sha256"` // SHA-256 of the data file, hex
	N         int    `json:"n"`
	D         int    `json:"d"`
	Anomalies int    `json:"anomalies"`
	TrueRatio Num    `json:"true_ratio"` // anomalies / n

	Method string `json:"method"` // the canonical method spec ("proposed:paper/largest")
	Base   string `json:"base"`   // the training method ("proposed")
	Rule   string `json:"rule,omitempty"`
	Seed   uint64 `json:"seed"`
	Param  Num    `json:"param"` // SB's ν or TAR's ratio (the true ratio), null for the others

	ROCAUC    Num `json:"rocauc"`
	PRAUC     Num `json:"prauc"` // average precision
	F1        Num `json:"f1"`    // null where the method labels nothing (OC)
	Precision Num `json:"precision"`
	Recall    Num `json:"recall"`
	// SelectedRatio is proposed's final (n − δ̄)/n; the flagged fraction for the other
	// labelling methods; null for OC.
	SelectedRatio Num `json:"selected_ratio"`
	Flagged       int `json:"flagged"`   // rows labelled anomalous (0 for OC)
	DeltaBar      Num `json:"delta_bar"` // proposed's final δ̄, null for the others
	Threshold     Num `json:"threshold"` // in score units, null for OC

	// LossSphere is SB's other candidate boundary, kept to measure the choice of R
	// (bench/notes/reproduction.md): the R of the loss after the last minibatch (Ruff's training
	// loop, train mode) applied to the final eval-mode scores, as Ruff's test scores
	// ‖φ(x)−c‖² − R² do. The labels above use the model's R (training.Result.Threshold).
	LossSphere *Sphere `json:"loss_sphere,omitempty"`

	Loss   []Num       `json:"loss"`             // mean fine-tuning loss per epoch
	Epochs *EpochTrace `json:"epochs,omitempty"` // proposed only
	// Crossings are Eq. (5)'s crossing counts for δ = 0..n summed over every search
	// epoch (dynamics.Proposed.Accumulated), kept for proposed on the data sets of the
	// paper's Fig. 3 (CurveDatasets).
	Crossings []int        `json:"crossings,omitempty"`
	Search    *SearchStats `json:"search,omitempty"` // proposed only

	Timing   Timing   `json:"timing"`
	Config   Config   `json:"config"`
	Versions Versions `json:"versions"`
	Device   string   `json:"device"`
	Group    string   `json:"group"`    // the group mode
	Session  string   `json:"session"`  // the session (sessions.json) that trained it
	Finished string   `json:"finished"` // RFC 3339 time the line was written
}

// EpochTrace is proposed's record of every fine-tuning epoch, index e−1 for epoch e;
// entries of epoch 1, before the first search, are null or 0.
type EpochTrace struct {
	DeltaStar     []int  `json:"delta_star"`     // δ^{e*}, 0 when no search ran
	DeltaBar      []Num  `json:"delta_bar"`      // δ̄ after epoch e, Eq. (6)
	SelectedRatio []Num  `json:"selected_ratio"` // (n − δ̄)/n
	Ties          []int  `json:"ties"`           // δ sharing Eq. (5)'s minimum
	MinScaled     []Num  `json:"min_scaled"`     // Eq. (5)'s minimum
	TrainSize     []int  `json:"train_size"`     // rows epoch e trained on, |D_N^e|
	Floored       []bool `json:"floored"`        // D_N^{e+1} fell below the floor
}

// Sphere is the labelling of the rows ‖φ(x)−c‖² > R² by one radius R.
type Sphere struct {
	Radius    Num `json:"radius"`
	Flagged   int `json:"flagged"`
	F1        Num `json:"f1"`
	Precision Num `json:"precision"`
	Recall    Num `json:"recall"`
}

// SearchStats count how proposed's δ search ended over the search epochs (e ≥ 2).
type SearchStats struct {
	Epochs   int `json:"epochs"`    // search epochs
	LowEdge  int `json:"low_edge"`  // δ* = 2
	HighEdge int `json:"high_edge"` // δ* = n − 1
	Tied     int `json:"tied"`      // more than one δ shared the minimum
	Floored  int `json:"floored"`   // the next training set was below the floor
}

// Timing is the run's wall time. Pretraining and fine-tuning are the whole group's (its
// members train in lockstep); EpochSeconds are the group's fine-tuning epochs.
type Timing struct {
	GroupID         string    `json:"group_id"` // session id / group number
	PretrainSeconds float64   `json:"pretrain_seconds"`
	FinetuneSeconds float64   `json:"finetune_seconds"`
	EpochSeconds    []float64 `json:"epoch_seconds"`
	GroupSize       int       `json:"group_size"`  // members trained in lockstep
	GroupSeeds      int       `json:"group_seeds"` // autoencoders pretrained for them
	Threads         int       `json:"threads"`     // libtorch threads per group
}

// Config is the training configuration of a run; Fingerprint hashes it.
type Config struct {
	Arch           []int   `json:"arch"`
	PretrainEpochs int     `json:"pretrain_epochs"`
	Epochs         int     `json:"epochs"`
	BatchSize      int     `json:"batch_size"`
	LR             float64 `json:"lr"`
	PretrainLR     float64 `json:"pretrain_lr,omitempty"` // 0: the same as LR
	WeightDecay    float64 `json:"weight_decay"`
	WarmUp         int     `json:"warm_up"`
	CenterEps      float64 `json:"center_eps"`
	Scores         string  `json:"rank_scores"`
	Fingerprint    string  `json:"fingerprint"`
}

// Versions are the software a run was trained with.
type Versions struct {
	Udocc    string `json:"udocc"`
	Libtorch string `json:"libtorch"`
	Go       string `json:"go"`
}

// Key identifies a run for resuming: data set, data digest, method spec, resolved δ
// rule, seed and config fingerprint. Two lines with one key are the same run.
type Key struct {
	Dataset, DataSHA, Method, Rule string
	Seed                           uint64
	Fingerprint                    string
}

// Key returns the line's resume key.
func (l *Line) Key() Key {
	return Key{l.Dataset, l.DataSHA, l.Method, l.Rule, l.Seed, l.Config.Fingerprint}
}

// String spells the key for messages.
func (k Key) String() string {
	rule := ""
	if k.Rule != "" {
		rule = " (" + k.Rule + ")"
	}
	return fmt.Sprintf("%s %s%s seed %d config %s data %.12s", k.Dataset, k.Method, rule, k.Seed, k.Fingerprint, k.DataSHA)
}

// Num is a float64 that is JSON null when it is NaN or ±Inf, and NaN when read from null.
type Num float64

// NaN is the Num of a missing value.
func NaN() Num { return Num(math.NaN()) }

// Valid reports whether n holds a finite value.
func (n Num) Valid() bool { return !math.IsNaN(float64(n)) && !math.IsInf(float64(n), 0) }

// MarshalJSON writes null for NaN and ±Inf, else the shortest exact decimal.
func (n Num) MarshalJSON() ([]byte, error) {
	if !n.Valid() {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, float64(n), 'g', -1, 64), nil
}

// UnmarshalJSON reads null as NaN.
func (n *Num) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		*n = NaN()
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*n = Num(f)
	return nil
}

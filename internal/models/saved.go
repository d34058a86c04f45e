package models

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/answers"
	"github.com/udocc/udocc/internal/atomicfile"
	"github.com/udocc/udocc/internal/project"
	"github.com/udocc/udocc/internal/regfile"
	"github.com/udocc/udocc/internal/scale"
)

// Format is the version of the saved-model folder this build writes and reads: 2 since
// model.json lists its network files with their roles and hashes (Files).
const Format = 2

// MetaFile is the name of the description inside a saved-model folder.
const MetaFile = "model.json"

// ErrFormat reports a saved model of another format version or a corrupt description.
var ErrFormat = errors.New("not a udocc model of this format")

// ErrTooLarge reports a model whose model.json would be larger than ReadMeta reads:
// WriteMeta refuses it, so that every model written can be loaded.
var ErrTooLarge = errors.New("model.json larger than a model may have")

// Meta describes a saved model: everything but the networks, which lie beside it, one
// file per member (written by the torch shim).
type Meta struct {
	Format   int    `json:"format"`
	Udocc    string `json:"udocc"`
	Libtorch string `json:"libtorch"`
	Method   string `json:"method"`
	Data     string `json:"data"`
	Sizes    []int  `json:"sizes"` // input width first
	// Features are the column names of the training file, in order; empty when it had
	// none (a CSV without a header, a MAT, NPY or NPZ file): columns then match by position.
	Features []string     `json:"features"`
	Scaler   scale.Scaler `json:"scaler"`
	Members  []Member     `json:"members"`
	// Files are the members' network files, each with its role and hash (CheckFiles).
	Files []File `json:"files"`
	// NameBytes are the bytes of Features and of Selection's names, where one of them
	// is not UTF-8, which a JSON string cannot hold (names.go); absent otherwise.
	NameBytes *NameBytes `json:"name_bytes,omitempty"`
	// Ensemble is the ensemble method's score combination; nil for the paper's methods,
	// whose members are thresholded one by one.
	Ensemble *Ensemble `json:"ensemble,omitempty"`
	// Threshold is the ensemble method's threshold on its combined score, and
	// ThresholdRule the rule (or "contamination=R") that chose it.
	Threshold     *float64 `json:"threshold,omitempty"`
	ThresholdRule string   `json:"threshold_rule,omitempty"`
	// RatioInterval is the 80 % interval (low, high) of the share of anomalies that the
	// default count gives beside the selected ratio; absent for another rule or a given
	// contamination.
	RatioInterval []float64 `json:"selected_ratio_interval,omitempty"`
	// CountReliable says, for the learned count, whether its interval is narrow enough to
	// trust the count (false: the interval is wide, or rests on the residuals of too few tables),
	// and CountModel is the version of the count's model (internal/count).
	CountReliable *bool `json:"count_reliable,omitempty"`
	CountModel    int   `json:"count_model,omitempty"`
	// Selection is how the training table's columns were chosen (--id, --columns,
	// --drop, --drop-text), for score to apply again; absent when every column was taken.
	Selection *data.Selection `json:"selection,omitempty"`
	// Normal is the unflagged training rows' per-feature median and spread, from which
	// rows are explained; absent in a model saved before it was kept.
	Normal *Normal `json:"normal,omitempty"`
	// Label is the training table's label column, which score leaves out of any table
	// that has it; absent when the table had none (or no header).
	Label *Label `json:"label,omitempty"`
	// Medians are the training rows' per-feature medians, in the input's units, which a
	// missing cell is imputed with, in training and in scoring; absent in a model saved
	// before they were kept.
	Medians []float64 `json:"impute_medians,omitempty"`
	// Missing counts the training table's missing cells per feature, imputed with
	// Medians; absent when none was missing.
	Missing []int `json:"missing,omitempty"`
	// Tail is the ensemble's training scores at a grid of top shares, from which a new
	// threshold is drawn without the rows (udocc cut), and the probability is anchored.
	Tail *Tail `json:"training_scores,omitempty"`
	// Projection, for a wide table, maps its standardised columns (Columns) to the
	// leading principal components the networks read (Sizes[0] of them, standardised
	// by Scaler); absent when the networks read the columns themselves.
	Projection *Projection `json:"projection,omitempty"`
	// Review is the provenance of a threshold calibrated from answers (Threshold,
	// ThresholdRule "answers:…" and RatioInterval then come from them); absent for a
	// label-free threshold.
	Review *Review `json:"review,omitempty"`
	// Encoding turns the training table's text columns (categories, dates) into its last
	// features (package data); absent where it had none.
	Encoding *data.Encoding `json:"encoding,omitempty"`
	// Answers sharpens the scores with the answers a fit was given (package
	// internal/answers); absent for a label-free model.
	Answers *answers.Sharpener `json:"answers,omitempty"`
	// FineTune is the Deep SAD fine-tuning of the ensemble's encoders by the answers a
	// fit was given (its networks and Ensemble are the fine-tuned ones); absent where
	// the networks are the label-free fit's.
	FineTune *FineTune `json:"fine_tune,omitempty"`
}

// FineTune are a Deep SAD fine-tuning's settings: the answered rows' weight η, the
// epochs, Adam's learning rate, the most unanswered rows trained on and their draw's
// seed, and how many answered anomalies and normal rows it trained on.
type FineTune struct {
	Eta       float64 `json:"eta"`
	Epochs    int     `json:"epochs"`
	LR        float64 `json:"lr"`
	Rows      int     `json:"rows"`
	Seed      uint64  `json:"seed"`
	Anomalies int     `json:"anomalies"`
	Normals   int     `json:"normals"`
}

// Projection is a wide table's map to its leading principal components.
type Projection struct {
	Columns scale.Scaler       `json:"columns"`
	Map     project.Projection `json:"map"`
	// Gaussian is the Ledoit–Wolf Gaussian of the standardised columns, whose squared
	// Mahalanobis distance the ensemble mixes into the score (Ensemble.GaussianWeight);
	// absent in a model saved before it, or fitted with Ensemble.Gaussian < 0.
	Gaussian *project.Gaussian `json:"gaussian,omitempty"`
}

// Inputs is the number of the table's columns the model reads: Sizes[0], or the
// projection's columns.
func (m *Meta) Inputs() int {
	if m.Projection != nil {
		return len(m.Projection.Columns.Mean)
	}
	return m.Sizes[0]
}

// Label is the label column of a training table.
type Label struct {
	Name     string `json:"name"`
	Positive string `json:"positive,omitempty"`
}

// Tail is a sketch of n training scores: Scores[i] is the score above which the top
// Shares[i] of them lie (Shares descending from 1/n... to 1/2, geometrically spaced), and
// Median the middle one.
type Tail struct {
	N      int       `json:"n"`
	Median float64   `json:"median"`
	Shares []float64 `json:"shares"`
	Scores []float64 `json:"scores"`
}

// Member is one network of a saved model.
type Member struct {
	Seed    uint64 `json:"seed"`
	Network string `json:"network"` // file name inside the folder
	// Threshold is in the member's score units; null when the method has none (OC, and
	// the ensemble method, whose threshold is Meta.Threshold).
	Threshold *float64 `json:"threshold"`
	// Autoencoder is the file of the member's pretrained autoencoder, which the ensemble
	// method scores new rows with; empty for the paper's methods.
	Autoencoder string `json:"autoencoder,omitempty"`
	// Scale is the divisor of the member's scores when several of the paper's members
	// are combined (package method: paper.go), fitted on the training rows; absent
	// for one member and for the ensemble method.
	Scale *float64 `json:"scale,omitempty"`
}

// Scales are the members' Scale values, 1 where a member has none (one member, whose
// scores the paper's methods return as they are).
func (m *Meta) Scales() []float64 {
	out := make([]float64, len(m.Members))
	for i, mem := range m.Members {
		out[i] = 1
		if mem.Scale != nil {
			out[i] = *mem.Scale
		}
	}
	return out
}

// HasThreshold reports whether every member has a threshold, so rows can be labelled.
func (m *Meta) HasThreshold() bool {
	for _, mem := range m.Members {
		if mem.Threshold == nil {
			return false
		}
	}
	return len(m.Members) > 0
}

// Thresholds lists the members' thresholds, +Inf where a member has none.
func (m *Meta) Thresholds() []float64 {
	out := make([]float64, len(m.Members))
	for i, mem := range m.Members {
		out[i] = math.Inf(1)
		if mem.Threshold != nil {
			out[i] = *mem.Threshold
		}
	}
	return out
}

// Validate checks the description's consistency, naming the field that is wrong. The
// method's name and the networks' own sizes are the caller's to check (Meta knows
// neither the methods nor the network files).
func (m *Meta) Validate() error {
	switch {
	case m.Format == 0:
		return fmt.Errorf("no format field (a udocc model.json of this build has \"format\": %d): %w", Format, ErrFormat)
	case m.Format != Format:
		return fmt.Errorf("format %d, this build reads format %d: %w", m.Format, Format, ErrFormat)
	case m.Method == "":
		return fmt.Errorf("method is missing: %w", ErrFormat)
	case len(m.Sizes) < 2:
		return fmt.Errorf("sizes: %d layer sizes, want the input width and at least one layer: %w", len(m.Sizes), ErrFormat)
	case len(m.Members) == 0:
		return fmt.Errorf("members: no networks: %w", ErrFormat)
	case len(m.Features) != 0 && len(m.Features) != m.Inputs():
		return fmt.Errorf("features: %d names for %d inputs: %w", len(m.Features), m.Inputs(), ErrFormat)
	case len(m.Scaler.Mean) != m.Sizes[0] || len(m.Scaler.Scale) != m.Sizes[0]:
		return fmt.Errorf("scaler: %d columns for %d inputs (sizes[0]): %w", len(m.Scaler.Mean), m.Sizes[0], ErrFormat)
	}
	for i, v := range m.Sizes {
		if v < 1 {
			return fmt.Errorf("sizes[%d] is %d: %w", i, v, ErrFormat)
		}
	}
	names := map[string]bool{}
	for i, f := range m.Features {
		if names[f] {
			return fmt.Errorf("features[%d]: %.80q named twice: %w", i, f, ErrFormat)
		}
		names[f] = true
	}
	seeds, files := map[uint64]bool{}, map[string]bool{}
	for i, mem := range m.Members {
		switch {
		case mem.Network == "" || filepath.Base(mem.Network) != mem.Network:
			return fmt.Errorf("members[%d].network %.80q: %w", i, mem.Network, ErrFormat)
		case files[mem.Network]:
			return fmt.Errorf("members[%d].network %.80q is another member's too: %w", i, mem.Network, ErrFormat)
		case seeds[mem.Seed]:
			return fmt.Errorf("members[%d].seed %d is another member's too: %w", i, mem.Seed, ErrFormat)
		case mem.Threshold != nil && !(*mem.Threshold >= 0 && !math.IsInf(*mem.Threshold, 0)):
			// scores are squared distances, so a threshold is a finite number >= 0
			return fmt.Errorf("members[%d].threshold %v: want a finite number >= 0: %w", i, *mem.Threshold, ErrFormat)
		case mem.Scale != nil && !(*mem.Scale > 0 && !math.IsInf(*mem.Scale, 0)):
			return fmt.Errorf("members[%d].scale %v: want a finite number > 0: %w", i, *mem.Scale, ErrFormat)
		}
		files[mem.Network], seeds[mem.Seed] = true, true
	}
	if err := m.validateMemberCount(); err != nil {
		return err
	}
	if err := m.Scaler.Validate(); err != nil {
		return fmt.Errorf("scaler: %w: %w", err, ErrFormat)
	}
	if p := m.Projection; p != nil {
		if err := p.Columns.Validate(); err != nil {
			return fmt.Errorf("projection: columns: %w: %w", err, ErrFormat)
		}
		if err := p.Map.Validate(); err != nil {
			return fmt.Errorf("projection: %w: %w", err, ErrFormat)
		}
		if p.Map.K != m.Sizes[0] || p.Map.D != len(p.Columns.Mean) || len(p.Columns.Scale) != p.Map.D {
			return fmt.Errorf("projection: %d components of %d columns (a scaler of %d) for %d inputs (sizes[0]): %w",
				p.Map.K, p.Map.D, len(p.Columns.Mean), m.Sizes[0], ErrFormat)
		}
		if g := p.Gaussian; g != nil {
			if err := g.Validate(); err != nil {
				return fmt.Errorf("projection: %w: %w", err, ErrFormat)
			}
			if g.D != p.Map.D {
				return fmt.Errorf("projection: a Gaussian of %d columns for %d: %w", g.D, p.Map.D, ErrFormat)
			}
		}
		if (p.Gaussian != nil) != (m.Ensemble != nil && m.Ensemble.GaussianWeight > 0) {
			return fmt.Errorf("projection.gaussian and ensemble.gaussian_weight: want both or neither: %w", ErrFormat)
		}
	} else if m.Ensemble != nil && m.Ensemble.GaussianWeight > 0 {
		return fmt.Errorf("ensemble.gaussian_weight %v without a projection's Gaussian: %w", m.Ensemble.GaussianWeight, ErrFormat)
	}
	if m.Normal != nil {
		if err := m.Normal.validate(m.Inputs()); err != nil {
			return err
		}
	}
	if m.Medians != nil && len(m.Medians) != m.Inputs() {
		return fmt.Errorf("impute_medians: %d for %d inputs: %w", len(m.Medians), m.Inputs(), ErrFormat)
	}
	for j, v := range m.Medians {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("impute_medians[%d] is %v: want a finite number: %w", j, v, ErrFormat)
		}
	}
	if t := m.Tail; t != nil {
		if t.N < 2 || len(t.Shares) != len(t.Scores) || len(t.Shares) == 0 || math.IsNaN(t.Median) || math.IsInf(t.Median, 0) {
			return fmt.Errorf("training_scores: n %d, %d shares, %d scores: %w", t.N, len(t.Shares), len(t.Scores), ErrFormat)
		}
		for i := range t.Shares {
			if !(t.Shares[i] > 0 && t.Shares[i] < 1) || math.IsNaN(t.Scores[i]) || math.IsInf(t.Scores[i], 0) ||
				i > 0 && !(t.Shares[i] > t.Shares[i-1] && t.Scores[i] <= t.Scores[i-1]) {
				return fmt.Errorf("training_scores: share %v, score %v at %d: want shares ascending in (0, 1), scores descending, finite: %w", t.Shares[i], t.Scores[i], i, ErrFormat)
			}
		}
	}
	if m.Review != nil {
		if err := m.Review.validate(); err != nil {
			return err
		}
	}
	if e := m.Encoding; e != nil {
		if err := e.Validate(); err != nil {
			return fmt.Errorf("%w: %w", err, ErrFormat)
		}
		w := e.Width()
		if len(m.Features) < w || !slices.Equal(m.Features[len(m.Features)-w:], e.Names()) {
			return fmt.Errorf("encoding: its %d features are not the last of features: %w", w, ErrFormat)
		}
	}
	if m.Answers != nil {
		if m.Review == nil {
			return fmt.Errorf("answers without review: %w", ErrFormat)
		}
		if err := m.Answers.Validate(m.Sizes[0]); err != nil { // the columns the networks read
			return fmt.Errorf("answers: %w: %w", err, ErrFormat)
		}
	}
	return m.validateEnsemble()
}

// validateMemberCount checks that files, where present, describes the networks of as
// many members as members lists: a member removed or added by hand is named as such,
// before the fields that count members disagree one by one.
func (m *Meta) validateMemberCount() error {
	if len(m.Files) == 0 {
		return nil
	}
	of := map[int]bool{}
	for _, f := range m.Files {
		of[f.Member] = true
	}
	if len(of) != len(m.Members) {
		return fmt.Errorf("members: %d entries, but files describes the network files of %d members: a member was removed or added: %w",
			len(m.Members), len(of), ErrFormat)
	}
	return nil
}

// validateEnsemble checks the ensemble method's fields: all present or all absent.
func (m *Meta) validateEnsemble() error {
	if m.Ensemble == nil {
		if m.Threshold != nil {
			return fmt.Errorf("ensemble is missing, but threshold is set, as only the ensemble method's model has it: %w", ErrFormat)
		}
		return nil
	}
	e := m.Ensemble
	switch {
	case m.Threshold == nil || math.IsNaN(*m.Threshold) || math.IsInf(*m.Threshold, 0):
		return fmt.Errorf("threshold: an ensemble needs a finite threshold: %w", ErrFormat)
	case !(e.DistanceWeight >= 0 && e.DistanceWeight <= 1):
		return fmt.Errorf("ensemble.distance_weight %v: want a number in [0, 1]: %w", e.DistanceWeight, ErrFormat)
	case m.RatioInterval != nil && (len(m.RatioInterval) != 2 || !(m.RatioInterval[0] >= 0 && m.RatioInterval[0] <= m.RatioInterval[1] && m.RatioInterval[1] <= 1)):
		return fmt.Errorf("selected_ratio_interval %v: want [low, high] with 0 <= low <= high <= 1: %w", m.RatioInterval, ErrFormat)
	case len(e.Distance) != len(m.Members):
		return fmt.Errorf("ensemble.distance: %d scales for %d members: %w", len(e.Distance), len(m.Members), ErrFormat)
	case e.DistanceWeight < 1 && len(e.Recon) != len(m.Members):
		return fmt.Errorf("ensemble.reconstruction: %d scales for %d members: %w", len(e.Recon), len(m.Members), ErrFormat)
	case !(e.GaussianWeight >= 0 && e.GaussianWeight <= 1):
		return fmt.Errorf("ensemble.gaussian_weight %v: want a number in [0, 1]: %w", e.GaussianWeight, ErrFormat)
	}
	scales := append(append([]Scale{e.DistanceMean, e.ReconMean}, e.Distance...), e.Recon...)
	if e.GaussianWeight > 0 {
		scales = append(scales, e.NetworksScale, e.GaussianScale)
	}
	for _, sc := range scales {
		if math.IsNaN(sc.Median) || math.IsInf(sc.Median, 0) || !(sc.Spread > 0) || math.IsInf(sc.Spread, 0) {
			return fmt.Errorf("ensemble: a scale of median %v and spread %v: want finite numbers, spread > 0: %w", sc.Median, sc.Spread, ErrFormat)
		}
	}
	for i, mem := range m.Members {
		switch {
		case mem.Threshold != nil:
			return fmt.Errorf("members[%d].threshold: an ensemble's members have none (the threshold is model.json's): %w", i, ErrFormat)
		case e.DistanceWeight < 1 && (mem.Autoencoder == "" || filepath.Base(mem.Autoencoder) != mem.Autoencoder || mem.Autoencoder == mem.Network):
			return fmt.Errorf("members[%d].autoencoder %.80q: %w", i, mem.Autoencoder, ErrFormat)
		}
	}
	return nil
}

// WriteMeta writes m into dir atomically: json.MarshalIndent's bytes and a newline.
//
// A wide table's Gaussian (Projection.Gaussian) holds up to 2^24 float32 values (85 MB of
// base64), which MarshalIndent would escape-check as a string and then copy again to
// indent it: on InternetAds (2.4 million values) 0.15 s of CPU, most of a fit's writing.
// So the Gaussian's matrix is marshalled as a 16-character stand-in, spliceMark, and its
// base64 written in its place: base64 needs no escaping in JSON, and the file is the
// same bytes.
//
// A model.json larger than ReadMeta reads (maxMetaBytes) is refused with ErrTooLarge
// before it is written.
func WriteMeta(dir string, m *Meta) error {
	m.encodeNames()
	path := filepath.Join(dir, MetaFile)
	plain := func() error {
		b, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			return err
		}
		if err := checkMetaSize(int64(len(b))+1, len(m.Features)); err != nil {
			return err
		}
		if err := checkShape(path, b); err != nil {
			return err
		}
		return atomicfile.WriteBytes(path, append(b, '\n'))
	}
	if m.Projection == nil || m.Projection.Gaussian == nil {
		return plain()
	}
	// Shallow copies: m, which a model may be scoring with meanwhile, is not changed.
	g := m.Projection.Gaussian
	mc, pc, gc := *m, *m.Projection, *g
	gc.B, pc.Gaussian, mc.Projection = spliceMark, &gc, &pc
	b, err := json.MarshalIndent(&mc, "", "  ")
	if err != nil {
		return err
	}
	at := bytes.Index(b, spliceText)
	if at < 0 || bytes.Contains(b[at+1:], spliceText) { // a name or value that spells it
		return plain()
	}
	if err := checkMetaSize(int64(len(b)-len(spliceText))+int64(base64.StdEncoding.EncodedLen(4*len(g.B)))+1, len(m.Features)); err != nil {
		return err
	}
	if err := checkShape(path, b); err != nil { // the Gaussian's base64 is a string: no array
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		bw.Write(b[:at])
		if err := g.B.WriteBase64(bw); err != nil {
			return err
		}
		bw.Write(b[at+len(spliceText):])
		bw.WriteByte('\n')
		return bw.Flush() // the first error of any write
	})
}

// spliceText is the base64 of spliceMark's 12 bytes, which stands in for a Gaussian's
// matrix while WriteMeta marshals a model.json.
var spliceText = []byte("udoccGaussianB00")

// spliceMark is the three float32 values whose base64 is spliceText (as Floats reads it).
var spliceMark = func() project.Floats {
	var f project.Floats
	if err := f.UnmarshalText(spliceText); err != nil || len(f) != 3 {
		panic("models: spliceText is not the base64 of 12 bytes")
	}
	return f
}()

// ReadMeta reads and validates the description of the saved model in dir. The file is
// read once, through shapeReader, so that one whose arrays would decode into far more
// memory than a model may have is refused before it is decoded.
func ReadMeta(dir string) (*Meta, error) {
	path := filepath.Join(dir, MetaFile)
	f, st, err := regfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("models: %w: %w", err, ErrFormat)
	}
	defer f.Close()
	if st.Size() > maxMetaBytes {
		return nil, fmt.Errorf("models: %s: %d bytes, more than the %d a model may have: %w: %w", path, st.Size(), maxMetaBytes, ErrTooLarge, ErrFormat)
	}
	sr := &shapeReader{r: io.LimitReader(f, maxMetaBytes+1), path: path}
	// Fields udocc does not write are refused: such a model.json was edited, or is
	// of a format this udocc does not know.
	var m Meta
	dec := json.NewDecoder(sr)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		if errors.Is(err, ErrTooLarge) {
			return nil, fmt.Errorf("models: %w: %w", err, ErrFormat)
		}
		return nil, fmt.Errorf("models: %s: %.200v: %w", path, err, ErrFormat)
	}
	if dec.More() {
		return nil, fmt.Errorf("models: %s: data after the model's object: %w", path, ErrFormat)
	}
	if _, err := io.Copy(io.Discard, sr); err != nil {
		return nil, fmt.Errorf("models: %s: %w: %w", path, err, ErrFormat)
	}
	if sr.off > maxMetaBytes {
		return nil, fmt.Errorf("models: %s: grew past the %d bytes a model may have while it was read: %w: %w", path, maxMetaBytes, ErrTooLarge, ErrFormat)
	}
	if err := m.decodeNames(); err != nil {
		return nil, fmt.Errorf("models: %s: %w", path, err)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("models: %s: %w", path, err)
	}
	return &m, nil
}

// maxMetaBytes bounds the size of a model.json that is read and written: some hundreds
// of bytes a column, so a model of up to some 250,000 columns (a variable for tests).
var maxMetaBytes int64 = 256 << 20

// CheckSize refuses, before a fit trains, a model whose model.json would be larger than
// a model may have: m as far as it is known (its names, scaler and projection), plus
// perColumn bytes for each of the table's d columns for what training adds (the
// training medians and spreads); and a table of more than MaxColumns columns.
// WriteMeta checks the model.json it writes again.
func CheckSize(m *Meta, d, perColumn int) error {
	if d > MaxColumns {
		return fmt.Errorf("models: a model of %d columns: more than the %d a model may have: fit fewer columns: %w", d, MaxColumns, ErrTooLarge)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return checkMetaSize(int64(len(b))+int64(perColumn)*int64(d), d)
}

// SetMaxBytes sets the most bytes a model.json may have, for tests of models near it,
// and returns the function that sets it back.
func SetMaxBytes(n int64) (restore func()) {
	old := maxMetaBytes
	maxMetaBytes = n
	return func() { maxMetaBytes = old }
}

// checkMetaSize refuses a model.json of n bytes, for d columns, beyond maxMetaBytes.
func checkMetaSize(n int64, d int) error {
	if n <= maxMetaBytes {
		return nil
	}
	return fmt.Errorf("models: the model of %d columns needs a %d-byte model.json, more than the %d a model may have (it could not be loaded): fit fewer columns: %w", d, n, maxMetaBytes, ErrTooLarge)
}

// readMetaFile reads model.json, refusing a file that is not a regular file (a device,
// a pipe, a link to one: internal/regfile) or is larger than maxMetaBytes, before
// reading it.
func readMetaFile(path string) ([]byte, error) {
	b, err := regfile.ReadFile(path, maxMetaBytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", err, ErrFormat)
	}
	return b, nil
}

// TopShare is the share of the n training scores above score, read from the sketch:
// interpolated in ln share between the scores it lists, 0 above its top score, and 1/2
// at or below the score of its last share (the half of the rows it does not resolve).
func (t *Tail) TopShare(score float64) float64 {
	i := 0
	for i < len(t.Scores) && t.Scores[i] > score {
		i++
	}
	switch {
	case i == len(t.Scores):
		return 0.5
	case i == 0:
		if score > t.Scores[0] {
			return 0
		}
		return t.Shares[0]
	}
	a, b := t.Scores[i-1], t.Scores[i] // a > score >= b: never equal
	f := (a - score) / (a - b)
	la, lb := math.Log(t.Shares[i-1]), math.Log(t.Shares[i])
	return math.Exp(la + f*(lb-la))
}

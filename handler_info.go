package udocc

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/udocc/udocc/internal/models"
)

// ModelInfo is what GET /v1/model says of the model a ModelHandler serves.
type ModelInfo struct {
	// Version names the model's contents: the first 16 hex digits of the SHA-256 of its
	// description (model.json's fields, its network files' hashes among them), the same
	// for a model however it was loaded. Every score response carries it.
	Version string `json:"version"`
	// Udocc is the version of udocc that fitted the model.
	Udocc  string `json:"udocc"`
	Method Method `json:"method"`
	// Columns are the names of the inputs, in order; nil where the training table named
	// none (rows then match by position). Inputs is their count.
	Columns []string `json:"columns"`
	Inputs  int      `json:"inputs"`
	// Ignored are the columns a CSV header or a JSON row may carry beside the inputs: the
	// training table's id column and the columns its fit dropped.
	Ignored []string `json:"ignored,omitempty"`
	// Threshold is in score units (Model.Threshold); null for a method without one (oc).
	Threshold *float64 `json:"threshold"`
	// Count is the rule that set the ensemble's threshold (e.g. "two-means") and
	// RatioInterval the 80 % interval of the share of anomalies beside it
	// (Model.RatioInterval); absent where there is none.
	Count         string    `json:"count,omitempty"`
	RatioInterval []float64 `json:"ratio_interval,omitempty"`
	Members       int       `json:"members"`
	Device        string    `json:"device"`
	// Dir is the folder the model was loaded from; "" for a model handed over in memory.
	Dir string `json:"dir,omitempty"`
	// Files are the SHA-256 (hex) of the model's files by name: its networks (checked
	// against model.json when it was loaded) and, where Dir is known, model.json.
	Files  map[string]string `json:"files"`
	Loaded time.Time         `json:"loaded"`
}

// modelInfo describes m, loaded from dir ("" for none) whose model.json held metaFile.
func modelInfo(m *Model, dir string, metaFile []byte) ModelInfo {
	desc, err := json.Marshal(m.meta)
	if err != nil {
		panic("udocc: a model's description does not encode: " + err.Error()) // it was decoded or built by us
	}
	sum := sha256.Sum256(desc)
	info := ModelInfo{
		Version: hex.EncodeToString(sum[:8]), Udocc: m.meta.Udocc, Method: m.Method(),
		Columns: m.Features(), Inputs: m.Inputs(), Count: m.meta.ThresholdRule,
		RatioInterval: m.meta.RatioInterval, Members: len(m.meta.Members), Device: m.Device(), Dir: dir,
		Files: map[string]string{}, Loaded: time.Now().UTC(),
	}
	if sel := m.meta.Selection; sel != nil {
		if sel.ID != "" {
			info.Ignored = append(info.Ignored, sel.ID)
		}
		info.Ignored = append(info.Ignored, sel.Drop...)
	}
	if t := m.Threshold(); !math.IsInf(t, 1) {
		info.Threshold = &t
	}
	for _, f := range m.meta.Files {
		info.Files[f.Name] = f.SHA256
	}
	if metaFile != nil {
		h := sha256.Sum256(metaFile)
		info.Files[models.MetaFile] = hex.EncodeToString(h[:])
	}
	return info
}

// loadServed loads the model in dir on device with threads, and its description. The
// folder must not change while it is read: model.json is read before and after Load,
// whose own check of the network files' hashes against it covers the rest.
func loadServed(dir, device string, threads int) (*Model, ModelInfo, error) {
	path := filepath.Join(dir, models.MetaFile)
	before, err := os.ReadFile(path)
	if err != nil {
		return nil, ModelInfo{}, fmt.Errorf("udocc: load: %w", err)
	}
	m, err := Load(dir, device)
	if err != nil {
		return nil, ModelInfo{}, err
	}
	after, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(before, after) {
		m.Close()
		return nil, ModelInfo{}, fmt.Errorf("udocc: load %s: the folder changed while it was read; reload again once it is written", dir)
	}
	m.SetThreads(threads)
	return m, modelInfo(m, dir, before), nil
}

// LoadHandler loads the model in opts.Dir (Load, on opts.Device with opts.Threads) and
// serves it (Handler), with its model.json's hash in its ModelInfo; a reload loads the
// folder again.
func LoadHandler(opts HandlerOptions) (*ModelHandler, error) {
	opts = opts.withDefaults()
	if opts.Dir == "" {
		return nil, ErrNoModelDir
	}
	m, info, err := loadServed(opts.Dir, opts.Device, opts.Threads)
	if err != nil {
		return nil, err
	}
	h := Handler(m, opts)
	h.cur.info = info
	h.metrics.setModel(nil, info)
	return h, nil
}

// confidence is each row's probability of being an anomaly as the score endpoint gives
// it, monotone in the score, 1/2 at the threshold; nil for a model without a threshold
// (oc). For the ensemble, whose scores are in robust z units, it is the logistic
// 1/(1+exp(−(s−t))) of the distance above the threshold t; for the paper's methods,
// whose scores are distances (or, for several members, distances over each member's
// threshold) that are 0 at best, s²/(s²+t²).
//
// It stands in for the per-row confidence of issue 42, and is to be replaced by the
// library's own once that lands.
func confidence(m *Model, scores []float64) []float64 {
	t := m.Threshold()
	if math.IsInf(t, 1) {
		return nil
	}
	out := make([]float64, len(scores))
	for i, s := range scores {
		if m.meta.Ensemble != nil {
			out[i] = 1 / (1 + math.Exp(-(s - t)))
		} else {
			s2, t2 := s*s, t*t
			out[i] = s2 / (s2 + t2)
			if s2+t2 == 0 {
				out[i] = 0.5
			}
		}
	}
	return out
}

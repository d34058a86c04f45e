package detector

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/udocc/udocc/internal/models"
)

// modelInfo describes m, loaded from dir ("" for none) whose model.json held metaFile.
func modelInfo(m *Model, dir string, metaFile []byte) ModelInfo {
	desc, err := json.Marshal(m.meta)
	if err != nil {
		panic("udocc: a model's description does not encode: " + err.Error()) // it was decoded or built by us
	}
	sum := sha256.Sum256(desc)
	info := ModelInfo{
		Version: hex.EncodeToString(sum[:8]), Udocc: m.meta.Udocc, Method: string(m.Method()),
		Columns: m.Features(), Inputs: m.Inputs(), Components: m.Components(), GaussianWeight: m.GaussianWeight(), Count: m.meta.ThresholdRule,
		RatioInterval: m.meta.RatioInterval, Members: len(m.meta.Members), Device: m.Device(), Dir: dir,
		Files: map[string]string{}, Loaded: time.Now().UTC(), Encoding: m.meta.Encoding,
	}
	if sel := m.meta.Selection; sel != nil {
		if sel.ID != "" {
			info.Ignored = append(info.Ignored, sel.ID)
			info.ID, info.HasID = sel.ID, true
		}
		if sel.IDIndex != nil {
			info.Ignored = append(info.Ignored, "") // pandas' unnamed index, the fit's id
			info.HasID = true
		}
		info.Ignored = append(info.Ignored, sel.Drop...)
	}
	// The training table's label: a request may carry it, as udocc score's table may.
	if l := m.meta.Label; l != nil && l.Name != "" && !slices.Contains(info.Ignored, l.Name) {
		info.Ignored = append(info.Ignored, l.Name)
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

// LoadHandler is the handler `udocc serve` drives: it loads the model in opts.Dir (Load, on opts.Device
// with opts.Threads) and serves it (Handler), with its model.json's hash in its
// ModelInfo; a reload loads the folder again.
func LoadHandler(opts HandlerOptions) (*Server, error) {
	opts = opts.withDefaults()
	if opts.Dir == "" {
		return nil, ErrNoModelDir
	}
	m, info, err := loadServed(opts.Dir, opts.Device, opts.Threads)
	if err != nil {
		return nil, err
	}
	h := newHandler(m, opts)
	h.cur.info = info
	h.metrics.setModel(nil, info)
	return h, nil
}

// confidence is each row's probability of being an anomaly as the score endpoint gives
// it: Model.Probabilities, the probability column of scores.csv (monotone in the score,
// 1/2 at the threshold); nil for a model without a threshold (oc). A model without the
// training scores' sketch that Probability reads (saved before it was kept) gets a
// stand-in of the same shape: for the ensemble, whose scores are in robust z units, the
// logistic 1/(1+exp(−(s−t))) of the distance above the threshold t; for the paper's
// methods, whose scores are distances (or, for several members, distances over each
// member's threshold) that are 0 at best, s²/(s²+t²).
func confidence(m *Model, scores []float64) []float64 {
	t := m.Threshold()
	if math.IsInf(t, 1) {
		return nil
	}
	if p := m.Probabilities(scores); len(p) == 0 || !math.IsNaN(p[0]) {
		return p
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

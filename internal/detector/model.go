package detector

import (
	"context"
	"errors"
	"fmt"
	"github.com/udocc/udocc/internal/method"
	"math"
	"slices"
	"sync"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/scale"
	"github.com/udocc/udocc/internal/threshold"
	"github.com/udocc/udocc/internal/torch"
)

// Model is a fitted detector: its networks (one encoder per member, and for the
// ensemble method each member's pretraining autoencoder), the saved standardisation,
// the threshold, and for a model that Fit returned the training rows' scores, labels
// and per-epoch history. Score, Predict, Explain, Save and the other methods that
// score, explain or save may run concurrently, with each other and with Close; SetThreads
// may not run beside them. Close frees it.
type Model struct {
	meta    *models.Meta
	fit     method.Fitted  // the method's fitted state (package method), which owns the networks
	nets    []*torch.Group // member k's encoder, center and radius (fit's)
	aes     []*torch.Group // member k's autoencoder; nil for the paper's methods (fit's)
	device  string
	threads int     // Options.Threads of a fit, SetThreads of a loaded model
	thr     float64 // +Inf where the method has none (oc)
	scores  []float64
	labels  []bool
	members []Member
	calls   inflight // the calls on nets and aes in flight, which Close waits for
	saveMu  sync.Mutex
}

// Fit trains a detector on rows, n rows of d numbers each, with method m (nil:
// Ensemble{}) and opts, and scores and labels every row. ctx is checked after every epoch: a cancelled fit returns ctx.Err();
// a nil ctx is context.Background().
func Fit(ctx context.Context, rows [][]float64, m Method, opts Options) (*Model, error) {
	ds, err := dataset(rows, -1)
	if err != nil {
		return nil, err
	}
	return FitDataset(ctx, ds, m, opts)
}

// FitDataset is Fit on a table read with package data; a nil ctx is
// context.Background(). Its labels are never trained on, and its name is only
// recorded. The layer widths are opts.Hidden, else the ensemble's for the table's width
// (models.EnsembleHidden), and 32,16,8 for the other methods.
//
// ds is not changed but for its missing values (NaN, as MissingKeep reads them). They
// are imputed in place with their feature's median over the training rows (Medians,
// kept in the model). A row with no value at all is refused (ErrNoValues). The rows are
// standardised on their way to the networks, so the fit holds no other full copy.
func FitDataset(ctx context.Context, ds *data.Dataset, m Method, opts Options) (*Model, error) {
	fitted, _, err := fitDataset(ctx, ds, newSettings(m, opts), false)
	return fitted, err
}

// FitTraced is FitDataset with the Trace of its fit (method.Config.Trace): the
// screening's scores, the members' distances and reconstruction errors of every row.
// The bench and the studies call it, to measure what a fit computes rather than a copy.
func FitTraced(ctx context.Context, ds *data.Dataset, m Method, opts Options) (*Model, *method.Trace, error) {
	return fitDataset(ctx, ds, newSettings(m, opts), true)
}

// fitDataset is FitDataset, and the Trace of its fit (with its costly parts where trace
// is set: method.Config.Trace). The walk of a fit: the settings become the method's
// configuration here, once. The column contract (medians, imputation), the data-parallel
// ranks and the standardisation are the detector's. The method (package method) trains
// its networks with package training, scores every row, fits its combination and
// threshold, and returns them. The model then labels the rows and keeps the normal
// rows' medians for explanations.
func fitDataset(ctx context.Context, ds *data.Dataset, opts settings, trace bool) (*Model, *method.Trace, error) {
	if err := opts.validate(); err != nil {
		return nil, nil, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	medians := fitMedians(ds)
	missing, err := impute(ds, medians)
	if err != nil {
		return nil, nil, err
	}
	if missing != nil && opts.Dist != nil {
		return nil, nil, errors.New("udocc: a data-parallel fit takes no missing values: fill them in first")
	}
	rk, err := newRanks(opts.Dist, ds.N)
	if err != nil {
		return nil, nil, err
	}
	n := ds.N // rows of the whole table
	if rk != nil {
		n = rk.n
	}
	if err := opts.validateRows(n); err != nil {
		return nil, nil, err
	}
	if opts.Answers != nil {
		// The answers' rows and contradictions are checked before training.
		if err := checkAnswers(opts.Answers, ds.N); err != nil {
			return nil, nil, err
		}
	}
	t := method.Table{DS: ds}
	if rk == nil {
		t.Scaler, err = scale.Fit(ds)
	} else {
		t.Scaler, err = scale.FitParts(ds, rk.d.Rank() == 0, rk.d.AllReduce)
		t.Dist, t.Counts = rk.d, rk.counts
	}
	if err != nil {
		return nil, nil, fmt.Errorf("udocc: %w", err)
	}
	// The thread count is this fit's, and back to what it was when it returns
	// (torch.WithThreads): the projection's Gaussian runs on the shim's threads too.
	defer torch.WithThreads(workers(opts.Threads))()
	// A wide table reaches the networks as its leading principal components
	// (Ensemble.Components): the networks, their scaler and the method see those.
	var proj *models.Projection
	if opts.projects(ds.D) {
		var pds *data.Dataset
		if proj, pds, t.Gaussian, err = method.FitProjection(ds, t.Scaler, opts.Components, opts.Gaussian > 0, opts.Seed, gaussianMaxValues); err != nil {
			return nil, nil, err
		}
		if t.Scaler, err = scale.Fit(pds); err != nil {
			return nil, nil, fmt.Errorf("udocc: %w", err)
		}
		t.DS = pds
	}
	cfg := opts.method(t.DS.D, trace) // the networks' input width
	if err := checkNetworksMemory(t.DS.D, cfg.Train.Hidden, len(cfg.Seeds)); err != nil {
		return nil, nil, err
	}
	// A model.json larger than a model may have is refused now, not after training:
	// the columns' names, scaler and projection, and some 60 bytes a column that
	// training adds (training medians and spreads).
	early := &models.Meta{Scaler: *t.Scaler, Projection: proj}
	if ds.Named {
		early.Features = ds.Features
	}
	if err := models.CheckSize(early, ds.D, 60); err != nil {
		return nil, nil, fmt.Errorf("udocc: %w", err)
	}
	if t.Gaussian != nil {
		cfg.GaussianWeight = opts.Gaussian
	}
	fit, tr, err := method.Fit(ctx, t, cfg)
	if err != nil {
		return nil, nil, err
	}

	meta := &models.Meta{
		Format: models.Format, Udocc: Version, Libtorch: torch.Version(), Method: opts.Method,
		Data: ds.Name, Sizes: models.Sizes(t.DS.D, cfg.Train.Hidden), Scaler: *t.Scaler, Projection: proj,
	}
	if ds.Named {
		meta.Features = ds.Features
	}
	if !ds.Selection.IsZero() {
		meta.Selection = &ds.Selection
	}
	meta.Encoding = ds.Encoding
	fit.Marshal(meta)
	m := newModel(fit, meta, opts.Device)
	m.threads = opts.Threads
	m.scores = tr.Scores
	m.labels = m.Label(m.scores)
	if err := m.fitNormal(ds, rk); err != nil {
		m.Close()
		return nil, nil, err
	}
	m.members = tr.Members
	m.remember(ds, medians, missing)
	m.meta.Tail = newTail(m.scores)
	if opts.Answers != nil {
		if _, err := m.Learn(ctx, ds, opts.Answers, CalibrateOptions{}); err != nil {
			m.Close()
			return nil, nil, err
		}
	}
	return m, tr, nil
}

// newModel is the model of a method's fitted state fit, described by meta, on device.
func newModel(fit method.Fitted, meta *models.Meta, device string) *Model {
	nw := fit.Networks()
	return &Model{meta: meta, fit: fit, nets: nw.Enc, aes: nw.AE, device: device, thr: fit.Threshold()}
}

// Scores are the anomaly scores of the training rows, higher is more anomalous (a copy);
// nil for a loaded model.
func (m *Model) Scores() []float64 { return slices.Clone(m.scores) }

// Threshold is in score units: a row is anomalous when its score is above it. It is
// +Inf for method oc, which ranks rows without labelling them.
func (m *Model) Threshold() float64 { return m.thr }

// Labels are the training rows' labels, true = anomaly (a copy); nil for method oc and
// for a loaded model.
func (m *Model) Labels() []bool { return slices.Clone(m.labels) }

// RatioInterval is the 80 % interval of the share of anomalies that the default count
// (Ensemble.Count nil: LearnedCount) gives beside its selected ratio,
// measured on real tables (bench/notes/threshold.md A.0); NaN, NaN for another rule, a given
// Ensemble.Contamination and the paper's methods.
func (m *Model) RatioInterval() (low, high float64) {
	if iv := m.meta.RatioInterval; len(iv) == 2 {
		return iv[0], iv[1]
	}
	return math.NaN(), math.NaN()
}

// CountReliable says whether the learned count (LearnedCount) trusts its count: false
// where its 80 % interval is wider than ×20 or rests on the held-out residuals of fewer
// than ten source groups (bench/notes/threshold.md A.0). ok is false for
// another count, a given Ensemble.Contamination and the paper's methods.
func (m *Model) CountReliable() (reliable, ok bool) {
	if m.meta.CountReliable == nil {
		return false, false
	}
	return *m.meta.CountReliable, true
}

// Ratio is the selected anomaly ratio: the share of the training rows labelled
// anomalous; NaN where there are no labels.
func (m *Model) Ratio() float64 {
	if m.labels == nil {
		return math.NaN()
	}
	n := 0
	for _, l := range m.labels {
		if l {
			n++
		}
	}
	return float64(n) / float64(len(m.labels))
}

// History is every member's per-epoch fine-tuning record (loss, training set size,
// the selector's δ* and selected ratio, SB's radius), member by member in seed order;
// nil for a loaded model. It is a copy.
func (m *Model) History() [][]Epoch {
	if m.members == nil {
		return nil
	}
	out := make([][]Epoch, len(m.members))
	for k, mem := range m.members {
		out[k] = slices.Clone(mem.History)
		for e := range out[k] {
			out[k][e].Curve = slices.Clone(out[k][e].Curve)
		}
	}
	return out
}

// Members are the model's members in seed order, with their training rows' scores and
// labels for a model that Fit returned (a copy).
func (m *Model) Members() []Member {
	if m.members == nil { // a loaded model
		var out []Member
		for k, thr := range m.meta.Thresholds() {
			out = append(out, Member{Seed: m.meta.Members[k].Seed, Threshold: thr})
		}
		return out
	}
	out := slices.Clone(m.members)
	for k := range out {
		mem := &out[k]
		mem.Scores, mem.Labels, mem.PretrainLoss = slices.Clone(mem.Scores), slices.Clone(mem.Labels), slices.Clone(mem.PretrainLoss)
		mem.History = m.History()[k]
	}
	return out
}

// Method is the name of the model's method (Method.Name).
func (m *Model) Method() string { return m.meta.Method }

// Close frees the networks (an io.Closer). A later call does nothing and returns nil.
// It may run while other goroutines score, explain or save with the model: it waits
// for those calls to end. Calls made after it has begun fail with ErrClosed.
func (m *Model) Close() error {
	if !m.calls.close() {
		return nil
	}
	if m.fit != nil {
		m.fit.Close()
	}
	m.nets, m.aes = nil, nil
	return nil
}

// Features are the names of the columns the model was trained on, in order; nil where
// the table named none, so that new tables' columns match by position. It is a copy.
func (m *Model) Features() []string { return slices.Clone(m.meta.Features) }

// Encoding is how the training table's text columns became its last features: read a
// new table with it (data.LoadOptions.Encoding) to score it. nil where there were none.
func (m *Model) Encoding() *data.Encoding { return m.meta.Encoding }

// Selection is how the training table's columns were chosen from its file (an id
// column, columns kept or dropped; package data); the zero Selection where every column
// was taken. Reading a new table with it gives the model's columns.
func (m *Model) Selection() data.Selection {
	if m.meta.Selection == nil {
		return data.Selection{}
	}
	s := *m.meta.Selection
	s.Columns, s.Drop = slices.Clone(s.Columns), slices.Clone(s.Drop)
	return s
}

// Device is the device the model's networks are on: "cpu", "cuda" or "cuda:N".
func (m *Model) Device() string { return m.device }

// Inputs is the number of columns the model takes.
func (m *Model) Inputs() int { return m.meta.Inputs() }

// Hidden are the encoder's layer widths after the input (a copy).
func (m *Model) Hidden() []int { return slices.Clone(m.meta.Sizes[1:]) }

// ConstantColumns are the training columns that held one value throughout; the
// standardisation leaves them 0 for every row. It is a copy.
func (m *Model) ConstantColumns() []int {
	if p := m.meta.Projection; p != nil {
		return slices.Clone(p.Columns.ConstantColumns)
	}
	return slices.Clone(m.meta.Scaler.ConstantColumns)
}

// DistanceWeight is the ensemble's w: the distances' part of the combined score, the
// reconstruction errors' being 1 − w (Attribution); NaN for the paper's methods.
func (m *Model) DistanceWeight() float64 {
	if m.meta.Ensemble == nil {
		return math.NaN()
	}
	return m.meta.Ensemble.DistanceWeight
}

// Label labels scores by the model's Threshold, true above it; nil for a model without
// one (oc).
func (m *Model) Label(scores []float64) []bool {
	if math.IsInf(m.thr, 1) {
		return nil
	}
	return threshold.Labels(scores, m.thr)
}

// SetThreads sets the CPU threads on which the model scores and explains rows: n, or
// every core the process may use for 0 (the default). Results are the same bits for any
// count. The count holds during the model's calls only (Options.Threads). It is not safe
// to call beside the model's other methods: set it before they run.
func (m *Model) SetThreads(n int) { m.threads = n }

package udocc

import (
	"context"
	"net/http"
	"time"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/detector"
)

// Model is a fitted detector: its networks, the saved standardisation, the threshold,
// and for a model that Fit returned the training rows' scores, labels and history.
// Score, Predict, Explain, Save and the other methods that score, explain or save may
// run concurrently, with each other and with Close; SetThreads may not run beside them.
// Close frees it.
type Model struct{ d *detector.Model }

// wrap is the door's Model of d; nil for nil.
func wrap(d *detector.Model, err error) (*Model, error) {
	if d == nil {
		return nil, err
	}
	return &Model{d}, err
}

// Fit trains a detector on rows, n rows of d numbers each, with opts, and scores and
// labels every row. ctx is checked after every epoch: a cancelled fit returns ctx.Err();
// a nil ctx is context.Background().
func Fit(ctx context.Context, rows [][]float64, opts Options) (*Model, error) {
	return wrap(detector.Fit(ctx, rows, opts))
}

// FitDataset is Fit on a table read with package data. Its labels, if any, are never
// trained on, and its name is only recorded. Missing values (NaN) are imputed in place
// with their feature's median over the training rows, kept in the model for the rows
// it scores; a row with no value at all is refused (ErrNoValues).
func FitDataset(ctx context.Context, ds *data.Dataset, opts Options) (*Model, error) {
	return wrap(detector.FitDataset(ctx, ds, opts))
}

// Load reads a model that Save or udocc fit wrote into dir, onto device ("cpu", "cuda"
// or "cuda:N"). A loaded model has the threshold but no training scores, labels or
// history.
func Load(dir, device string) (*Model, error) { return wrap(detector.Load(dir, device)) }

// Handler serves m, a model held in memory, over HTTP with opts (docs/serve.md lists
// the routes); package serve serves a model folder, with Reload. The handler takes m
// over. It is also an io.Closer: Close stops serving and closes m once the requests in
// progress are done.
func Handler(m *Model, opts HandlerOptions) http.Handler { return detector.Handler(m.d, opts) }

// JoinFromEnv joins the data-parallel run that the torchrun variables describe
// (WORLD_SIZE, RANK, MASTER_ADDR, MASTER_PORT; docs/distributed.md). It returns nil
// where WORLD_SIZE is unset or 1. timeout bounds the rendezvous and every collective (0:
// 5 minutes). Set Options.Dist to it, and Close it after the fit.
func JoinFromEnv(device string, timeout time.Duration) (*Dist, error) {
	return detector.JoinFromEnv(device, timeout)
}

// RuntimeInfo says what this build runs on: libtorch's version, CUDA, the cores.
func RuntimeInfo() Runtime { return detector.RuntimeInfo() }

// DefaultOptions are the default method's settings, every field filled in.
func DefaultOptions() Options { return detector.DefaultOptions() }

// PaperOptions are the paper's method (Proposed) with the paper's settings.
func PaperOptions() Options { return detector.PaperOptions() }

// Score returns the anomaly scores of rows, each of as many numbers as the training
// rows, standardised as the training rows were; a NaN is a missing value, imputed with
// the feature's training median. On the training rows it returns Scores
// exactly. ctx is checked between blocks of rows (65,536 a block): a cancelled call
// returns ctx.Err(); a nil ctx is context.Background(). Score and the other methods
// that score, explain or save may run concurrently, with each other and with Close
// (after which they return ErrClosed).
func (m *Model) Score(ctx context.Context, rows [][]float64) ([]float64, error) {
	return m.d.Score(ctx, rows)
}

// ScoreDataset is Score on a table read with package data, as FitDataset is Fit on
// one; beside the scores it returns each member's distances. Its columns are matched to
// the model's by name where both have names (reordered, or refused with ErrColumns), by
// position otherwise. Its missing values (NaN) are imputed in place with the training
// medians; a row with no value at all is refused (ErrNoValues).
func (m *Model) ScoreDataset(ctx context.Context, ds *data.Dataset) ([]float64, [][]float64, error) {
	return m.d.ScoreDataset(ctx, ds)
}

// Predict labels rows (true = anomaly): Score above Threshold.
func (m *Model) Predict(ctx context.Context, rows [][]float64) ([]bool, error) {
	return m.d.Predict(ctx, rows)
}

// Explain attributes the scores of rows (as Score takes them) to their features, row by
// row, with the default ExplainOptions; ctx as ExplainDataset takes it.
func (m *Model) Explain(ctx context.Context, rows [][]float64) ([]Attribution, error) {
	return m.d.Explain(ctx, rows)
}

// ExplainDataset is Explain for the rows rows of a table read with package data (nil:
// every row), in that order; ds must have the training table's columns, in its order.
// Attribution.Row is the row's index in ds. Beside the attributions it returns (d values
// a row; a caller with many rows explains them a slice at a time, as udocc fit does), the
// rows are explained in blocks of bounded memory, whatever their number
// and the thread count, and ctx is checked between blocks: a cancelled ctx stops the
// explanation within a block (well under a second) and its error is returned.
func (m *Model) ExplainDataset(ctx context.Context, ds *data.Dataset, rows []int, o ExplainOptions) ([]Attribution, error) {
	return m.d.ExplainDataset(ctx, ds, rows, o)
}

// Scores are the anomaly scores of the training rows, higher is more anomalous (a copy);
// nil for a loaded model.
func (m *Model) Scores() []float64 { return m.d.Scores() }

// Threshold is in score units: a row is anomalous when its score is above it. It is
// +Inf for method oc, which ranks rows without labelling them.
func (m *Model) Threshold() float64 { return m.d.Threshold() }

// Labels are the training rows' labels, true = anomaly (a copy); nil for method oc and
// for a loaded model.
func (m *Model) Labels() []bool { return m.d.Labels() }

// Probabilities is each score's probability of being an anomaly: a logistic curve in
// the score, 1/2 at the threshold and 1 % at the training rows' median score. It is a
// reading aid on the threshold's scale, not a calibrated frequency; NaN where the model
// has no threshold (method oc).
func (m *Model) Probabilities(scores []float64) []float64 { return m.d.Probabilities(scores) }

// Ratio is the selected anomaly ratio: the share of the training rows labelled
// anomalous; NaN where there are no labels.
func (m *Model) Ratio() float64 { return m.d.Ratio() }

// RatioInterval is the 80 % interval of the share of anomalies that the default count
// (Options.Count nil: LearnedCount) gives beside its selected ratio,
// measured on real tables (bench/notes/threshold.md A.0); NaN, NaN for another rule, a given
// Options.Contamination and the paper's methods.
func (m *Model) RatioInterval() (low, high float64) { return m.d.RatioInterval() }

// CountReliable says whether the learned count (LearnedCount) trusts its count: false
// where its 80 % interval is wider than ×20 or rests on the held-out residuals of fewer
// than ten source groups (bench/notes/threshold.md A.0). ok is false for
// another count, a given Options.Contamination and the paper's methods.
func (m *Model) CountReliable() (reliable, ok bool) { return m.d.CountReliable() }

// CountBasis says what the model's count rests on: answers, the scores, or the corpus
// prior alone.
func (m *Model) CountBasis() CountBasis { return m.d.CountBasis() }

// Method is the model's method.
func (m *Model) Method() Method { return m.d.Method() }

// Features are the names of the columns the model was trained on, in order; nil where
// the table named none, so that new tables' columns match by position. It is a copy.
func (m *Model) Features() []string { return m.d.Features() }

// ReviewRows gives the rows to ask next, given the answers so far: K rows (fewer only
// where fewer remain), none answered or pending, the same ones for the same seed,
// answers and rows. A nil ctx is context.Background().
func (m *Model) ReviewRows(ctx context.Context, answers []Answer, o ReviewOptions) ([]ReviewRow, error) {
	return m.d.ReviewRows(ctx, answers, o)
}

// Calibrate takes the answers and gives the count, its 80 % interval and the cut, and
// sets the model's threshold there: Threshold, Label, Predict, Save (model.json keeps the
// answers' provenance: Calibration's numbers and CalibrateOptions.LabelsSHA256) and a
// Handler serving the saved model follow it. The threshold is the score above which the
// Cut highest-ranked rows lie (threshold.TopCount's, tied rows kept together). Only the
// ensemble method's threshold can be drawn anew. A nil ctx is context.Background().
func (m *Model) Calibrate(ctx context.Context, answers []Answer, o CalibrateOptions) (Calibration, error) {
	return m.d.Calibrate(ctx, answers, o)
}

// SetThreads sets the CPU threads on which the model scores and explains rows: n, or
// every core the process may use for 0 (the default). Results are the same bits for any
// count. The count holds during the model's calls only (Options.Threads). It is not safe
// to call beside the model's other methods: set it before they run.
func (m *Model) SetThreads(n int) { m.d.SetThreads(n) }

// Save writes the model into the folder dir in the format of the model/ folder that
// `udocc fit` writes (model.json and one network file per member), which Load and
// `udocc score --model` read. It is one transaction: everything is written into a
// temporary folder beside dir and swapped in for dir by one rename, replacing a previous
// model there whole; a failed write (a full disk) is an error that leaves a previous
// model as it was and no temporary folder. dir must be missing, empty, or a folder
// holding only a saved model's files; anything else (a file, a folder with other files)
// is refused with ErrNotModelFolder, as are "" and a folder inside another model's
// folder (which holds its own files only). Two Saves to one dir at once: the second
// fails. Saves of one model run one at a time (with Score, Explain and the like beside
// them, as ever).
func (m *Model) Save(dir string) (err error) { return m.d.Save(dir) }

// Close frees the networks (an io.Closer); it is safe to call more than once (a later
// call does nothing and returns nil), and while other goroutines score, explain or save
// with the model: it waits for those calls to end, and the calls made after it has
// begun fail with ErrClosed.
func (m *Model) Close() error { return m.d.Close() }

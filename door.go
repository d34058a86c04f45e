package udocc

import (
	"context"
	"net/http"
	"time"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/detector"
)

// Model is a fitted detector. It holds the networks, the standardisation and the
// threshold. A model that Fit returned also holds the training rows' scores and labels.
// Score, Predict, Explain, Save and Close may run concurrently. SetThreads may not run
// beside them. Close frees it.
type Model struct{ d *detector.Model }

// wrap is the door's Model of d; nil for nil.
func wrap(d *detector.Model, err error) (*Model, error) {
	if d == nil {
		return nil, err
	}
	return &Model{d}, err
}

// Fit trains a detector on rows, n rows of d numbers each, with method m and the shared
// settings o. A nil m is Ensemble{}, the default; zero fields are defaults. Fit scores
// and labels every row. ctx is checked after every epoch; a cancelled fit returns
// ctx.Err(). A nil ctx is context.Background().
func Fit(ctx context.Context, rows [][]float64, m Method, o Options) (*Model, error) {
	return wrap(detector.Fit(ctx, rows, m, o))
}

// FitDataset is Fit on a table read with package data. Its labels are never trained
// on. Missing values (NaN) are imputed in place with their column's training median,
// which the model keeps for the rows it scores. A row with no value at all is refused
// (ErrNoValues).
func FitDataset(ctx context.Context, ds *data.Dataset, m Method, o Options) (*Model, error) {
	return wrap(detector.FitDataset(ctx, ds, m, o))
}

// Validate reports the first setting of m and o that a fit cannot use, as an
// *OptionError naming its field. Zero fields are defaults, and valid.
func Validate(m Method, o Options) error { return detector.Validate(m, o) }

// MethodNamed is the method of name ("ensemble", "proposed", "oc", "sb", "otsu",
// "tar"), as Method.Name and `udocc fit --method` spell it, with its defaults.
func MethodNamed(name string) (Method, error) { return detector.MethodNamed(name) }

// Defaults are m (nil: Ensemble{}) and o with every default filled in, as a fit with
// their zero values runs.
func Defaults(m Method) (Method, Options) { return detector.Defaults(m) }

// Load reads a model that Save or udocc fit wrote into dir. device is "cpu", "cuda" or
// "cuda:N". A loaded model has the threshold but no training scores or labels.
func Load(dir, device string) (*Model, error) { return wrap(detector.Load(dir, device)) }

// Handler serves m, a model held in memory, over HTTP (docs/serve.md lists the
// routes). The handler takes m over. It is an io.Closer: Close stops serving and closes
// m once the requests in progress are done. Package serve serves a model folder.
func Handler(m *Model, opts HandlerOptions) http.Handler { return detector.Handler(m.d, opts) }

// JoinFromEnv joins the data-parallel run that the torchrun variables describe
// (docs/distributed.md). It returns nil where WORLD_SIZE is unset or 1. timeout bounds
// the rendezvous and every collective; 0 means 5 minutes. Set Options.Dist to the
// result, and Close it after the fit.
func JoinFromEnv(device string, timeout time.Duration) (*Dist, error) {
	return detector.JoinFromEnv(device, timeout)
}

// RuntimeInfo says what this build runs on: libtorch's version, CUDA, the cores.
func RuntimeInfo() Runtime { return detector.RuntimeInfo() }

// Score returns the anomaly scores of rows; higher is more anomalous. Each row has the
// training rows' width. A NaN is a missing value, imputed with its column's training
// median. On the training rows Score returns Scores exactly. ctx is checked between
// blocks of rows. After Close, Score returns ErrClosed.
func (m *Model) Score(ctx context.Context, rows [][]float64) ([]float64, error) {
	return m.d.Score(ctx, rows)
}

// ScoreDataset is Score on a table read with package data. Beside the scores it
// returns each member's distances. Columns match the model's by name where both have
// names, else by position; ErrColumns refuses a mismatch. Missing values are imputed in
// place; a row with no value is refused (ErrNoValues).
func (m *Model) ScoreDataset(ctx context.Context, ds *data.Dataset) ([]float64, [][]float64, error) {
	return m.d.ScoreDataset(ctx, ds)
}

// Predict labels rows (true = anomaly): Score above Threshold.
func (m *Model) Predict(ctx context.Context, rows [][]float64) ([]bool, error) {
	return m.d.Predict(ctx, rows)
}

// Explain attributes the scores of rows to their features, with the default
// ExplainOptions.
func (m *Model) Explain(ctx context.Context, rows [][]float64) ([]Attribution, error) {
	return m.d.Explain(ctx, rows)
}

// ExplainDataset explains the rows rows of a table read with package data (nil: every
// row). ds must have the training table's columns. Attribution.Row is the row's index
// in ds. Rows are explained in blocks of bounded memory. ctx is checked between blocks,
// so a cancelled call returns within well under a second.
func (m *Model) ExplainDataset(ctx context.Context, ds *data.Dataset, rows []int, o ExplainOptions) ([]Attribution, error) {
	return m.d.ExplainDataset(ctx, ds, rows, o)
}

// Scores are the training rows' anomaly scores (a copy); nil for a loaded model.
func (m *Model) Scores() []float64 { return m.d.Scores() }

// Threshold is in score units: a row is anomalous when its score is above it. It is
// +Inf for method oc, which ranks rows without labelling them.
func (m *Model) Threshold() float64 { return m.d.Threshold() }

// Labels are the training rows' labels, true = anomaly (a copy). They are nil for
// method oc and for a loaded model.
func (m *Model) Labels() []bool { return m.d.Labels() }

// Probabilities gives each score's probability of being an anomaly. It is a logistic
// curve in the score: 1/2 at the threshold, 1 % at the training rows' median score. It
// is a reading aid, not a calibrated frequency. It is NaN where the model has no
// threshold (method oc).
func (m *Model) Probabilities(scores []float64) []float64 { return m.d.Probabilities(scores) }

// Ratio is the share of the training rows flagged; NaN where there are no labels.
func (m *Model) Ratio() float64 { return m.d.Ratio() }

// RatioInterval is the 80 % interval of the share of anomalies that the default count
// gives (bench/notes/threshold.md A.0). It is NaN, NaN for another count rule, a given
// contamination, and the paper's methods.
func (m *Model) RatioInterval() (low, high float64) { return m.d.RatioInterval() }

// CountReliable says whether the learned count trusts its count. It is false where the
// 80 % interval is wider than ×20, or rests on fewer than ten source groups. ok is false
// for another count, a given contamination, and the paper's methods.
func (m *Model) CountReliable() (reliable, ok bool) { return m.d.CountReliable() }

// CountBasis says what the count rests on: answers, the scores, or the corpus prior.
func (m *Model) CountBasis() CountBasis { return m.d.CountBasis() }

// Method is the name of the model's method (Method.Name).
func (m *Model) Method() string { return m.d.Method() }

// Features are the training table's column names, in order (a copy). They are nil
// where the table named none; new tables' columns then match by position.
func (m *Model) Features() []string { return m.d.Features() }

// Encoding is how the training table's text columns (categories, dates) became its
// last features, or nil. Read a new table with it (data.LoadOptions.Encoding) to score
// it as the training table was read.
func (m *Model) Encoding() *data.Encoding { return m.d.Encoding() }

// ReviewRows gives the rows to ask next, given the answers so far. It gives K rows
// (fewer only where fewer remain), none answered or pending. The same seed, answers and
// rows give the same rows.
func (m *Model) ReviewRows(ctx context.Context, answers []Answer, o ReviewOptions) ([]ReviewRow, error) {
	return m.d.ReviewRows(ctx, answers, o)
}

// Calibrate takes the answers and gives the count, its 80 % interval and the cut. It
// sets the model's threshold at the cut: Predict, Save and a served copy follow it.
// model.json keeps the answers' provenance. Only the ensemble method's threshold can be
// drawn anew.
func (m *Model) Calibrate(ctx context.Context, answers []Answer, o CalibrateOptions) (Calibration, error) {
	return m.d.Calibrate(ctx, answers, o)
}

// Sharpened says whether the answers of Ensemble.Answers sharpened the model's scores,
// and with what weight beta their evidence enters the score. The answers need an
// anomaly and a normal row among them to sharpen anything.
func (m *Model) Sharpened() (beta float64, ok bool) { return m.d.Sharpened() }

// FineTuned says whether the answers of Ensemble.Answers fine-tuned the model's
// networks (Deep SAD), with what settings and on how many answers. They need an anomaly
// and a normal row among them.
func (m *Model) FineTuned() (FineTune, bool) { return m.d.FineTuned() }

// SetThreads sets the CPU threads the model scores and explains on; 0 means every core.
// Results are the same bits for any count. Set it before other calls run.
func (m *Model) SetThreads(n int) { m.d.SetThreads(n) }

// Save writes the model into the folder dir, as udocc fit writes its model/ folder. It
// is one transaction: the model is written beside dir and renamed into place. A failed
// write leaves a previous model as it was. dir must be missing, empty, or hold a saved
// model; anything else is refused with ErrNotModelFolder, as is "".
func (m *Model) Save(dir string) (err error) { return m.d.Save(dir) }

// Close frees the networks. It waits for the calls in progress; later calls fail with
// ErrClosed. A second Close does nothing and returns nil.
func (m *Model) Close() error { return m.d.Close() }

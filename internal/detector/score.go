package detector

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/torch"
)

// ErrNoThreshold reports Predict on a model whose method ranks rows without labelling
// them (oc): use Score.
var ErrNoThreshold = errors.New("udocc: the method has no threshold")

// Score returns the anomaly scores of rows, each of as many numbers as the training
// rows, standardised as the training rows were; a NaN is a missing value, imputed with
// the feature's training median (Medians). On the training rows it returns Scores
// exactly. ctx is checked between blocks of rows (65,536 a block): a cancelled call
// returns ctx.Err(); a nil ctx is context.Background(). Score and the other methods
// that score, explain or save may run concurrently, with each other and with Close
// (after which they return ErrClosed).
func (m *Model) Score(ctx context.Context, rows [][]float64) ([]float64, error) {
	s, _, err := m.ScoreMembers(ctx, rows)
	return s, err
}

// ScoreMembers is Score, and every member's distances ||φ(x)−c||² of rows beside it
// (member by member, as membersCopy lists them): on the training rows, the members'
// Scores.
func (m *Model) ScoreMembers(ctx context.Context, rows [][]float64) ([]float64, [][]float64, error) {
	ds, err := dataset(rows, m.Inputs())
	if err != nil {
		return nil, nil, err
	}
	return m.ScoreDataset(ctx, ds)
}

// ScoreDataset is ScoreMembers on a table read with package data, as FitDataset is Fit
// on one. Its columns are matched to the model's by name where both have names
// (MatchColumns: reordered, or refused with an error naming the columns), by position
// otherwise; its missing values (NaN) are imputed in place with the training medians
// (Impute), and a row with no value at all is refused (ErrNoValues).
//
// A model fitted with answers (Learn) sharpens the scores with them; the members'
// distances stay the networks'.
func (m *Model) ScoreDataset(ctx context.Context, ds *data.Dataset) ([]float64, [][]float64, error) {
	return m.scoreDataset(ctx, ds, true)
}

// scoreDataset is ScoreDataset, whose scores are sharpened by the model's answers where
// sharpen is set, and label-free otherwise (the scores the explanations split).
func (m *Model) scoreDataset(ctx context.Context, ds *data.Dataset, sharpen bool) ([]float64, [][]float64, error) {
	if err := m.calls.enter(); err != nil {
		return nil, nil, err
	}
	defer m.calls.leave()
	if ctx == nil {
		ctx = context.Background()
	}
	ds, err := m.prepare(ds)
	if err != nil {
		return nil, nil, err
	}
	// The thread count is the model's for the call (torch.WithThreads).
	defer torch.WithThreads(workers(m.threads))()
	nds, gd, err := m.networkRows(ds, true)
	if err != nil {
		return nil, nil, err
	}
	s, mem, err := m.fit.Score(ctx, nds, gd)
	if err != nil {
		return s, mem, m.nameColumn(err)
	}
	if sharpen {
		s = m.sharpen(nds, s)
	}
	return s, mem, nil
}

// prepare is ds held to the model's contract: its columns matched to the model's, its
// missing values imputed, and at least one row of the model's width.
func (m *Model) prepare(ds *data.Dataset) (*data.Dataset, error) {
	ds, err := m.MatchColumns(ds)
	if err != nil {
		return nil, err
	}
	if _, err := m.Impute(ds); err != nil {
		return nil, err
	}
	if ds.D != m.Inputs() || len(ds.X) != ds.N*ds.D || ds.N < 1 {
		return nil, fmt.Errorf("udocc: %d rows of %d columns in %d values; the model was trained on %d columns", ds.N, ds.D, len(ds.X), m.Inputs())
	}
	return ds, nil
}

// nameColumn gives an UnscorableError the model's name of its column, where the rows
// scored were unnamed and reached the networks as they are (not projected).
func (m *Model) nameColumn(err error) error {
	var ue *UnscorableError
	if errors.As(err, &ue) && ue.Index > 0 && m.meta.Projection == nil && ue.Index <= len(m.meta.Features) {
		ue.Column = m.meta.Features[ue.Index-1]
	}
	return err
}

// Predict labels rows (true = anomaly): Score above Threshold.
func (m *Model) Predict(ctx context.Context, rows [][]float64) ([]bool, error) {
	if math.IsInf(m.thr, 1) {
		return nil, fmt.Errorf("%w (method %s): use Score", ErrNoThreshold, m.meta.Method)
	}
	s, err := m.Score(ctx, rows)
	if err != nil {
		return nil, err
	}
	return m.Label(s), nil
}

// dataset packs rows into a data set, checking that every row has d numbers (d < 0:
// as many as the first row), each finite and within float32's range: the table is
// float32, as package data reads one.
func dataset(rows [][]float64, d int) (*data.Dataset, error) {
	if len(rows) == 0 {
		return nil, errors.New("udocc: no rows")
	}
	want := "the model was trained on"
	if d < 0 {
		d, want = len(rows[0]), "rows[0] has"
	}
	ds := &data.Dataset{Name: "rows", N: len(rows), D: d, X: make([]float32, 0, len(rows)*d)}
	for i, r := range rows {
		if len(r) != d {
			return nil, fmt.Errorf("udocc: rows[%d] has %d columns, %s %d", i, len(r), want, d)
		}
		for j, v := range r {
			f := float32(v)
			if math.IsNaN(v) {
				if ds.Missing == nil {
					ds.Missing = make([]int, d)
				}
				ds.Missing[j]++ // a missing value, imputed
			} else if math.IsInf(float64(f), 0) {
				return nil, fmt.Errorf("udocc: rows[%d][%d]: %v is not a finite float32", i, j, v)
			}
			ds.X = append(ds.X, f)
		}
	}
	for j := range d {
		ds.Features = append(ds.Features, fmt.Sprintf("x%d", j+1))
	}
	return ds, nil
}

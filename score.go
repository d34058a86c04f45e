package udocc

import (
	"errors"
	"fmt"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/models"
)

// ErrNoThreshold reports Predict on a model whose method ranks rows without labelling
// them (oc): use Score.
var ErrNoThreshold = errors.New("udocc: the method has no threshold")

// Score returns the anomaly scores of rows, each of as many numbers as the training
// rows, standardised as the training rows were. On the training rows it returns
// Scores exactly.
func (m *Model) Score(rows [][]float64) ([]float64, error) {
	s, _, err := m.ScoreMembers(rows)
	return s, err
}

// ScoreMembers is Score, and every member's distances ||φ(x)−c||² of rows beside it
// (member by member, as Members lists them): on the training rows, the Members' Scores.
func (m *Model) ScoreMembers(rows [][]float64) ([]float64, [][]float64, error) {
	if m.nets == nil {
		return nil, nil, errors.New("udocc: the model is closed")
	}
	ds, err := dataset(rows, m.meta.Sizes[0])
	if err != nil {
		return nil, nil, err
	}
	std, err := m.meta.Scaler.Transform(ds)
	if err != nil {
		return nil, nil, fmt.Errorf("udocc: %w", err)
	}
	dist, rec, err := m.memberScores(std)
	if err != nil {
		return nil, nil, err
	}
	if m.meta.Ensemble != nil { // the ensemble method (CheckMeta)
		s, err := m.meta.Ensemble.Score(dist, rec)
		if err != nil {
			return nil, nil, fmt.Errorf("udocc: %w", err)
		}
		return s, dist, nil
	}
	s, _ := models.CombineMembers(dist, m.meta.Thresholds())
	return s, dist, nil
}

// Predict labels rows (true = anomaly): Score above Threshold.
func (m *Model) Predict(rows [][]float64) ([]bool, error) {
	if m.labelsOf(nil) == nil {
		return nil, fmt.Errorf("%w (method %s): use Score", ErrNoThreshold, m.meta.Method)
	}
	s, err := m.Score(rows)
	if err != nil {
		return nil, err
	}
	return m.labelsOf(s), nil
}

// memberScores are every member's distances ||φ(x)−c||² of the standardised rows and,
// for the ensemble method, its autoencoder's reconstruction errors.
func (m *Model) memberScores(std *data.Dataset) (dist, rec [][]float64, err error) {
	x := make([]float32, len(std.X))
	for i, v := range std.X {
		x[i] = float32(v)
	}
	for k, g := range m.nets {
		d, err := g.DistancesOf(x, std.N, std.D)
		if err != nil {
			return nil, nil, fmt.Errorf("udocc: member %d: %w", k, err)
		}
		dist = append(dist, widen(d))
	}
	for k, g := range m.aes {
		r, err := g.ReconstructionOf(x, std.N, std.D)
		if err != nil {
			return nil, nil, fmt.Errorf("udocc: member %d autoencoder: %w", k, err)
		}
		rec = append(rec, widen(r))
	}
	return dist, rec, nil
}

func widen(xs []float32) []float64 {
	out := make([]float64, len(xs))
	for i, v := range xs {
		out[i] = float64(v)
	}
	return out
}

// dataset packs rows into a data set, checking that every row has d numbers (d < 0:
// as many as the first row).
func dataset(rows [][]float64, d int) (*data.Dataset, error) {
	if len(rows) == 0 {
		return nil, errors.New("udocc: no rows")
	}
	want := "the model was trained on"
	if d < 0 {
		d, want = len(rows[0]), "row 0 has"
	}
	ds := &data.Dataset{Name: "rows", N: len(rows), D: d, X: make([]float64, 0, len(rows)*d)}
	for i, r := range rows {
		if len(r) != d {
			return nil, fmt.Errorf("udocc: row %d has %d columns, %s %d", i, len(r), want, d)
		}
		ds.X = append(ds.X, r...)
	}
	for j := range d {
		ds.Features = append(ds.Features, fmt.Sprintf("x%d", j+1))
	}
	return ds, nil
}

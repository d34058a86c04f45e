package detector

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/models"
)

// The column contract: a model knows the columns it was trained on (Features, in
// order), how they were chosen from the training file (Selection), the label column it
// left out (LabelColumn), and each feature's training median (Medians), which a missing
// value is imputed with. ScoreDataset holds any table to that contract: it matches
// columns by name (MatchColumns) and imputes missing cells (Impute).

// ErrColumns reports a table whose columns are not the model's: a feature missing, or
// a column the model does not know (MatchColumns names them).
var ErrColumns = errors.New("the columns are not the model's")

// ErrNoValues reports a row every feature of which is missing: nothing in it can be
// scored, and imputing all of it would score it as the typical training row.
var ErrNoValues = errors.New("udocc: a row has no values")

// NoValuesError is ErrNoValues at a row: errors.Is(err, ErrNoValues) holds, and errors.As
// gives the row.
type NoValuesError struct {
	Row    int    // 0-based row of the table
	Source string // the table: its name, or "rows"
}

func (e *NoValuesError) Error() string {
	return fmt.Sprintf("%v: row %d (0-based) of %s: every feature is missing", ErrNoValues, e.Row, e.Source)
}

func (e *NoValuesError) Unwrap() error { return ErrNoValues }

// LabelColumn is the name of the training table's label column, which a table scored
// with the model may hold (package data's LoadOptions.LabelColumn, with LabelOptional),
// and the value that marked an anomaly in it ("" for 0/1, -1/1, true/false); both ""
// when the training table had none or no header.
func (m *Model) LabelColumn() (name, positive string) {
	if m.meta.Label == nil {
		return "", ""
	}
	return m.meta.Label.Name, m.meta.Label.Positive
}

// Medians are the training rows' per-feature medians, in Features' order and the
// input's units, which Impute fills a missing value with; nil for a model saved before
// they were kept. It is a copy.
func (m *Model) Medians() []float64 { return slices.Clone(m.meta.Medians) }

// TrainingMissing counts, per feature, the training table's missing cells that the fit
// imputed with Medians; nil when none was missing. It is a copy.
func (m *Model) TrainingMissing() []int { return slices.Clone(m.meta.Missing) }

// MatchColumns returns ds with its columns in the model's order. Where both the model
// and ds name their columns (ds.Named), they match by name: a table whose columns are
// the model's in another order is reordered (a copy; ds is not changed), and one with a
// feature missing or a column the model does not know is refused with an error that
// names them, wrapping ErrColumns. Otherwise they match by position, and only their
// count is checked. ds itself is returned when it is already in order.
func (m *Model) MatchColumns(ds *data.Dataset) (*data.Dataset, error) {
	features := m.meta.Features
	if len(features) == 0 || !ds.Named || slices.Equal(ds.Features, features) {
		if ds.D != m.Inputs() {
			return nil, fmt.Errorf("udocc: %s has %d columns, the model was trained on %d: %w", where(ds), ds.D, m.Inputs(), ErrColumns)
		}
		return ds, nil
	}
	pos := map[string]int{}
	for j, f := range ds.Features {
		pos[f] = j
	}
	var missing, extra []string
	order := make([]int, len(features))
	known := map[string]bool{}
	for i, f := range features {
		known[f] = true
		j, ok := pos[f]
		if !ok {
			missing = append(missing, f)
		}
		order[i] = j
	}
	for _, f := range ds.Features {
		if !known[f] {
			extra = append(extra, f)
		}
	}
	if len(missing) > 0 || len(extra) > 0 {
		return nil, &ColumnsError{Source: where(ds), Have: ds.D, Want: len(features), Missing: missing, Extra: extra}
	}
	out := *ds
	out.Features = slices.Clone(features)
	out.X = make([]float32, len(ds.X))
	for r := 0; r < ds.N; r++ {
		for i, j := range order {
			out.X[r*ds.D+i] = ds.X[r*ds.D+j]
		}
	}
	if ds.Missing != nil {
		out.Missing = make([]int, len(order))
		for i, j := range order {
			out.Missing[i] = ds.Missing[j]
		}
	}
	return &out, nil
}

func where(ds *data.Dataset) string {
	if ds.Path != "" {
		return ds.Path
	}
	if ds.Name != "" {
		return ds.Name
	}
	return "the table"
}

func quoteNames(xs []string) string {
	const most = 12
	q := make([]string, 0, min(len(xs), most)+1)
	for i, x := range xs {
		if i == most {
			q = append(q, fmt.Sprintf("and %d more", len(xs)-most))
			break
		}
		q = append(q, strconv.Quote(x))
	}
	return strings.Join(q, ", ")
}

// Impute replaces, in place, every missing value of ds (a NaN, as package data reads a
// missing cell under MissingKeep) by its feature's training median (Medians), and
// returns how many it replaced per feature (nil for none). ds must be in the model's
// column order (MatchColumns). A row with no value at all is refused (ErrNoValues),
// naming it, as is a model without medians.
func (m *Model) Impute(ds *data.Dataset) ([]int, error) {
	return impute(ds, m.meta.Medians)
}

// ColumnsError is a table whose named columns are not the model's: errors.Is(err,
// ErrColumns) holds, and errors.As gives the columns.
type ColumnsError struct {
	Source     string   // the table
	Have, Want int      // its columns, and the model's
	Missing    []string // the model's columns the table lacks
	Extra      []string // the table's columns the model does not have
}

func (e *ColumnsError) Error() string {
	msg := fmt.Sprintf("%s has %d columns, the model was trained on %d, matched by name:", e.Source, e.Have, e.Want)
	if len(e.Missing) > 0 {
		msg += fmt.Sprintf(" missing %s;", quoteNames(e.Missing))
	}
	if len(e.Extra) > 0 {
		msg += fmt.Sprintf(" not in the model %s", quoteNames(e.Extra))
	}
	return fmt.Sprintf("udocc: %s: %v", strings.TrimSuffix(msg, ";"), ErrColumns)
}

func (e *ColumnsError) Unwrap() error { return ErrColumns }

// impute is Impute with the given medians. The rows are read first, then filled, so
// that a refused table keeps its values: the error is the first bad row's.
func impute(ds *data.Dataset, medians []float64) ([]int, error) {
	d := ds.D
	first, empty := -1, -1 // the first row with a missing value, and with no value
	for i := 0; i < ds.N && empty < 0; i++ {
		nan := 0
		for _, v := range ds.X[i*d : (i+1)*d] {
			if v != v {
				nan++
			}
		}
		if nan > 0 && first < 0 {
			first = i
		}
		if nan > 0 && nan == d {
			empty = i
		}
	}
	switch {
	case first < 0:
		return nil, nil
	case len(medians) != d && first != empty:
		return nil, fmt.Errorf("udocc: row %d (0-based) of %s has a missing value, and the model keeps no medians to impute it with (it was saved by an older udocc)", first, where(ds))
	case empty >= 0:
		return nil, &NoValuesError{Row: empty, Source: where(ds)}
	}
	count := make([]int, d)
	for i := first; i < ds.N; i++ {
		row := ds.X[i*d : (i+1)*d]
		for j, v := range row {
			if v != v {
				row[j] = float32(medians[j])
				count[j]++
			}
		}
	}
	return count, nil
}

// medianSample is the most rows a feature's median is taken over: every row of a table
// up to that size, rows at an even stride beyond it.
const medianSample = 1 << 17

// fitMedians are ds's per-feature medians over the values that are not missing (NaN),
// over at most medianSample rows at an even stride; a feature with no value in the
// sample has median 0.
func fitMedians(ds *data.Dataset) []float64 {
	step := max(1, (ds.N+medianSample-1)/medianSample)
	out := make([]float64, ds.D)
	col := make([]float64, 0, min(ds.N, medianSample))
	for j := 0; j < ds.D; j++ {
		col = col[:0]
		for i := 0; i < ds.N; i += step {
			if v := ds.X[i*ds.D+j]; v == v {
				col = append(col, float64(v))
			}
		}
		if len(col) == 0 {
			continue
		}
		slices.Sort(col)
		h := len(col) / 2
		out[j] = col[h]
		if len(col)%2 == 0 {
			out[j] = (col[h-1] + col[h]) / 2
		}
		if math.IsInf(out[j], 0) {
			out[j] = 0
		}
	}
	return out
}

// remember records in the model what the fit read from ds: the label column, and the
// medians and missing counts.
func (m *Model) remember(ds *data.Dataset, medians []float64, missing []int) {
	if ds.LabelName != "" {
		m.meta.Label = &models.Label{Name: ds.LabelName, Positive: ds.Positive}
	}
	m.meta.Medians, m.meta.Missing = medians, missing
}

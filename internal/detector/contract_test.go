package detector_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/detector"
)

// named is rows as a named table (columns a, b, c).
func named(rows [][]float64, names ...string) *data.Dataset {
	ds := &data.Dataset{Name: "t", N: len(rows), D: len(rows[0]), Features: names, Named: true}
	for _, r := range rows {
		for _, v := range r {
			ds.X = append(ds.X, float32(v))
		}
	}
	return ds
}

// TestColumnContract: a model matches a named table's columns by name, reordering them,
// and refuses one with a column missing or unknown, naming it (issue 42 item 5, issue
// 41 item 2); the library does it in ScoreDataset itself.
func TestColumnContract(t *testing.T) {
	rows := table(120, 3, 1)
	train := named(rows, "a", "b", "c")
	m, err := detector.FitDataset(context.Background(), train, nil, quick())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	want, _, err := m.ScoreDataset(context.Background(), named(rows, "a", "b", "c"))
	if err != nil {
		t.Fatal(err)
	}
	swapped := make([][]float64, len(rows))
	for i, r := range rows {
		swapped[i] = []float64{r[2], r[0], r[1]}
	}
	got, _, err := m.ScoreDataset(context.Background(), named(swapped, "c", "a", "b"))
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("columns c, a, b: scores equal %v, %v; want the same scores as a, b, c", slices.Equal(got, want), err)
	}
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"a", "b", "x"}, `missing "c"; not in the model "x"`},
		{[]string{"a", "b", "Outcome"}, `not in the model "Outcome"`},
	} {
		_, _, err := m.ScoreDataset(context.Background(), named(rows, c.names...))
		if !errors.Is(err, detector.ErrColumns) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("columns %q: %v, want ErrColumns naming %s", c.names, err, c.want)
		}
		// The columns in fields; the message names no CLI flag (the CLI adds those).
		var ce *detector.ColumnsError
		if !errors.As(err, &ce) || len(ce.Extra) != 1 || ce.Extra[0] != c.names[2] || strings.Contains(err.Error(), "--") {
			t.Errorf("columns %q: %v, want a ColumnsError with the extra column and no flag", c.names, err)
		}
	}
	// By position, where the table has no names: only the count is checked.
	unnamed := named(rows, "x1", "x2", "x3")
	unnamed.Named = false
	if got, _, err := m.ScoreDataset(context.Background(), unnamed); err != nil || !slices.Equal(got, want) {
		t.Errorf("unnamed table: %v", err)
	}
}

// TestImputeMedians: a fit imputes missing values (NaN) with its training medians, which
// the saved model keeps and applies to new rows; a row with no value is refused (issue
// 42 item 2). Where nothing is missing, the medians change nothing.
func TestImputeMedians(t *testing.T) {
	rows := table(120, 3, 1)
	nan := math.NaN()
	holed := make([][]float64, len(rows))
	for i, r := range rows {
		holed[i] = slices.Clone(r)
	}
	holed[0][1], holed[5][2], holed[7][0] = nan, nan, nan
	m, err := detector.Fit(context.Background(), holed, nil, quick())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	med := m.Medians()
	if len(med) != 3 || !slices.Equal(m.TrainingMissing(), []int{1, 1, 1}) {
		t.Fatalf("medians %v, missing %v", med, m.TrainingMissing())
	}
	col := make([]float64, 0, len(rows))
	for _, r := range rows[1:] {
		col = append(col, float64(float32(r[1])))
	}
	slices.Sort(col)
	if h := len(col) / 2; med[1] != col[h] { // 119 values: the middle one
		t.Errorf("median of b %v, want %v", med[1], col[h])
	}
	loaded := reloaded(t, m)
	if !slices.Equal(loaded.Medians(), med) {
		t.Errorf("loaded medians %v, saved %v", loaded.Medians(), med)
	}
	filled := slices.Clone(holed[0])
	filled[1] = float64(float32(med[1]))
	a, err := loaded.Score(context.Background(), [][]float64{holed[0]})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := loaded.Score(context.Background(), [][]float64{filled})
	if a[0] != b[0] || a[0] != m.Scores()[0] {
		t.Errorf("row 0 with a missing value scores %v, imputed by hand %v, in training %v", a[0], b[0], m.Scores()[0])
	}
	if _, err := loaded.Score(context.Background(), [][]float64{{nan, nan, nan}}); !errors.Is(err, detector.ErrNoValues) {
		t.Errorf("a row of NaN: %v, want ErrNoValues", err)
	}
	if _, err := detector.Fit(context.Background(), append(holed, []float64{nan, nan, nan}), nil, quick()); !errors.Is(err, detector.ErrNoValues) {
		t.Errorf("a training row of NaN: %v, want ErrNoValues", err)
	}
}

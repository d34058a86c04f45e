package main

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	lib "github.com/udocc/udocc"
	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/odds"
)

// TestScoreReadsLibraryModel checks that `udocc score --model` reads a model that the
// library's Save wrote, and scores and labels the training rows as the library did.
func TestScoreReadsLibraryModel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 80, 3, false, 3)
	ds, err := data.Load(filepath.Join(dir, "table.csv"), data.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, meth := range []lib.Method{lib.Ensemble{}, lib.Proposed{}} {
		t.Run(meth.Name(), func(t *testing.T) {
			o := lib.Options{PretrainEpochs: 5, Epochs: 3, Members: 2}
			m, err := lib.FitDataset(context.Background(), ds, meth, o)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			model := filepath.Join(dir, meth.Name()+"-model")
			if err := m.Save(model); err != nil {
				t.Fatal(err)
			}
			out := meth.Name() + "-scored"
			mustUdocc(t, dir, "score", "--model", model, "--out", out, "table.csv")
			sc := readCSV(t, filepath.Join(dir, out, "scores.csv"))
			want := make([]string, len(m.Scores()))
			for i, s := range m.Scores() {
				want[i] = ftoa(s)
			}
			if got := sc.col(t, "score"); !slices.Equal(got, want) {
				t.Errorf("udocc score's scores differ from the library's")
			}
			wantLabels := make([]string, len(m.Labels()))
			for i := range m.Labels() {
				wantLabels[i] = label(m.Labels(), i)
			}
			if got := sc.col(t, "label"); !slices.Equal(got, wantLabels) {
				t.Errorf("udocc score's labels differ from the library's")
			}
		})
	}
}

// TestFitIsTheLibrarysFit checks that `udocc fit` with its defaults gives, to the bit,
// the scores and labels of the library's FitDataset with zero settings on the same file:
// the one pipeline that the study (bench's TestRealOnePipeline) measures too.
func TestFitIsTheLibrarysFit(t *testing.T) {
	t.Parallel()
	path, err := filepath.Abs(filepath.Join(odds.FindDir(), "glass.mat"))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := data.Load(path, data.LoadOptions{})
	if err != nil {
		t.Skipf("glass.mat: %v (set UDOCC_DATA)", err)
	}
	m, err := lib.FitDataset(context.Background(), ds, nil, lib.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	dir := t.TempDir()
	mustUdocc(t, dir, "fit", "--seed", "3", "--explain", "0", "--quiet", "--out", "out", path)
	sc := readCSV(t, filepath.Join(dir, "out", "scores.csv"))
	want, wantLabels := make([]string, ds.N), make([]string, ds.N)
	for i, s := range m.Scores() {
		want[i], wantLabels[i] = ftoa(s), label(m.Labels(), i)
	}
	if got := sc.col(t, "score"); !slices.Equal(got, want) {
		t.Errorf("udocc fit's scores differ from the library's")
	}
	if got := sc.col(t, "label"); !slices.Equal(got, wantLabels) {
		t.Errorf("udocc fit's labels differ from the library's")
	}
}

package detector_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/detector"
)

// fitted fits quick options of method on the synthetic table and closes the model at
// the end of the test.
func fitted(t *testing.T, method detector.Method, rows [][]float64) *detector.Model {
	t.Helper()
	m, err := detector.Fit(context.Background(), rows, withRatio(method), quick())
	if err != nil {
		t.Fatalf("Fit %s: %v", method.Name(), err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// TestScoreIsScores checks, for every method, that Score on the training rows gives
// Scores exactly, that Labels are Scores above Threshold, and that Save then Load
// gives a model that scores and labels new rows exactly as the fitted one.
func TestScoreIsScores(t *testing.T) {
	rows, fresh := table(120, 3, 1), table(30, 3, 2)
	for _, method := range allMethods {
		t.Run(method.Name(), func(t *testing.T) {
			m := fitted(t, method, rows)
			if m.Method() != method.Name() {
				t.Errorf("Method %q, want %q", m.Method(), method)
			}
			got, err := m.Score(context.Background(), rows)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, m.Scores()) {
				t.Fatalf("Score(training rows) differs from Scores()")
			}
			if hasThr := !math.IsInf(m.Threshold(), 1); hasThr != (m.Labels() != nil) || hasThr == (method.Name() == "oc") {
				t.Fatalf("threshold %g with labels %v", m.Threshold(), m.Labels() != nil)
			}
			for i, l := range m.Labels() {
				if l != (m.Scores()[i] > m.Threshold()) {
					t.Fatalf("row %d: label %v, score %g, threshold %g", i, l, m.Scores()[i], m.Threshold())
				}
			}
			if len(m.History()) != 2 || len(m.History()[0]) != 3 {
				t.Errorf("History: %d members, want 2 of 3 epochs", len(m.History()))
			}
			_, dist, err := m.ScoreMembers(context.Background(), rows)
			if err != nil {
				t.Fatal(err)
			}
			for k, mem := range m.Members() {
				if mem.Seed != uint64(k) || !slices.Equal(dist[k], mem.Scores) || len(mem.PretrainLoss) != 5 {
					t.Errorf("member %d: seed %d, ScoreMembers equal to its Scores: %v, %d pretraining losses",
						k, mem.Seed, slices.Equal(dist[k], mem.Scores), len(mem.PretrainLoss))
				}
				if (mem.Labels != nil) != !math.IsInf(mem.Threshold, 1) || (mem.Labels != nil) != (method.Name() != "oc" && method.Name() != "ensemble") {
					t.Errorf("member %d: threshold %g with labels %v", k, mem.Threshold, mem.Labels != nil)
				}
			}

			dir := filepath.Join(t.TempDir(), "model")
			if err := m.Save(dir); err != nil {
				t.Fatal(err)
			}
			if err := m.Save(dir); err != nil { // replaces the previous folder whole
				t.Fatalf("second Save: %v", err)
			}
			if ents, _ := os.ReadDir(filepath.Dir(dir)); len(ents) != 1 {
				t.Errorf("beside the model: %d entries, want the model alone", len(ents))
			}
			l, err := detector.Load(dir, "cpu")
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			a, _ := m.Score(context.Background(), fresh)
			b, err := l.Score(context.Background(), fresh)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(a, b) || l.Threshold() != m.Threshold() && !math.IsInf(m.Threshold(), 1) {
				t.Errorf("the loaded model scores new rows differently, or has another threshold")
			}
			for k, mem := range l.Members() {
				if want := m.Members()[k]; mem.Seed != want.Seed || mem.Threshold != want.Threshold || mem.Scores != nil {
					t.Errorf("loaded member %d: %+v, want seed %d, threshold %g and no training scores", k, mem, want.Seed, want.Threshold)
				}
			}
			pa, errA := m.Predict(context.Background(), fresh)
			pb, errB := l.Predict(context.Background(), fresh)
			if !slices.Equal(pa, pb) || (errA == nil) != (errB == nil) {
				t.Errorf("Predict: fitted %v (%v), loaded %v (%v)", pa, errA, pb, errB)
			}
			if method.Name() == "oc" && !errors.Is(errA, detector.ErrNoThreshold) {
				t.Errorf("oc Predict: %v, want ErrNoThreshold", errA)
			}
		})
	}
}

// TestFitDatasetKeepsTable checks that FitDataset leaves its table as it was (its rows
// are standardised on their way to the networks, not in place), that Score of the same
// rows gives Scores, and that rows score the same in any calls (the model scores in
// chunks of rows, so each row's score must not depend on the others).
func TestFitDatasetKeepsTable(t *testing.T) {
	rows := table(120, 3, 1)
	ds := &data.Dataset{Name: "t", N: len(rows), D: 3, Features: []string{"a", "b", "c"}}
	for _, r := range rows {
		for _, v := range r {
			ds.X = append(ds.X, float32(v))
		}
	}
	before := slices.Clone(ds.X)
	o := quick()
	m, err := detector.FitDataset(context.Background(), ds, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if !slices.Equal(ds.X, before) {
		t.Errorf("FitDataset changed its table")
	}
	whole, err := m.Score(context.Background(), rows)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(whole, m.Scores()) {
		t.Errorf("Score(training rows) differs from Scores()")
	}
	a, errA := m.Score(context.Background(), rows[:37])
	b, errB := m.Score(context.Background(), rows[37:])
	if errA != nil || errB != nil || !slices.Equal(append(a, b...), whole) {
		t.Errorf("rows score differently in two calls than in one (%v, %v)", errA, errB)
	}
}

// TestColumnCount checks that rows of the wrong width are refused naming both counts.
func TestColumnCount(t *testing.T) {
	m := fitted(t, detector.Ensemble{}, table(60, 3, 1))
	cases := []struct {
		name string
		rows [][]float64
		want string
	}{
		{"too few", [][]float64{{1, 2}}, "rows[0] has 2 columns, the model was trained on 3"},
		{"too many in the second row", [][]float64{{1, 2, 3}, {1, 2, 3, 4}}, "rows[1] has 4 columns, the model was trained on 3"},
		{"no rows", nil, "no rows"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := m.Score(context.Background(), c.rows)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Score: %v, want %q", err, c.want)
			}
		})
	}
	t.Run("ragged training rows", func(t *testing.T) {
		_, err := detector.Fit(context.Background(), [][]float64{{1, 2}, {3}}, nil, quick())
		if err == nil || !strings.Contains(err.Error(), "rows[1] has 1 columns, rows[0] has 2") {
			t.Errorf("Fit: %v", err)
		}
	})
}

// TestCancel checks that a fit cancelled between epochs stops at that epoch and
// returns context.Canceled, and that a context cancelled before the fit trains nothing.
func TestCancel(t *testing.T) {
	for _, stage := range []string{"pretrain", "finetune"} {
		t.Run("during "+stage, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			o := quick()
			o.PretrainEpochs, o.Epochs = 50, 50
			after := 0
			o.Progress = func(s string, e, total int) {
				if s == stage && e == 2 {
					cancel()
				}
				if ctx.Err() != nil {
					after++
				}
			}
			m, err := detector.Fit(ctx, table(100, 3, 1), nil, o)
			if !errors.Is(err, context.Canceled) || m != nil {
				t.Fatalf("Fit: %v, want context.Canceled and no model", err)
			}
			if after != 1 {
				t.Errorf("%d epochs reported after the cancel, want only the one that cancelled", after)
			}
		})
	}
	t.Run("before the fit", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		o := quick()
		o.Progress = func(string, int, int) { t.Error("an epoch ran") }
		if _, err := detector.Fit(ctx, table(100, 3, 1), nil, o); !errors.Is(err, context.Canceled) {
			t.Errorf("Fit: %v, want context.Canceled", err)
		}
	})
}

// TestValidate checks that every unusable setting is reported by its struct and
// field, as an *OptionError.
func TestValidate(t *testing.T) {
	cases := []struct {
		typ, field string
		m          detector.Method
		o          detector.Options
	}{
		{"Options", "Epochs", nil, detector.Options{Epochs: -1}},
		{"Ensemble", "Trim", detector.Ensemble{Trim: -0.1}, detector.Options{}},
		{"Options", "LR", nil, detector.Options{LR: -1}},
		{"Options", "PretrainLR", nil, detector.Options{PretrainLR: -1}},
		{"Options", "BatchSize", nil, detector.Options{BatchSize: 1}},
		{"Options", "WeightDecay", nil, detector.Options{WeightDecay: math.NaN()}},
		{"Options", "Members", nil, detector.Options{Members: -1}},
		{"Options", "Device", nil, detector.Options{Device: "gpu"}},
		{"Options", "Threads", nil, detector.Options{Threads: -1}},
		{"Ensemble", "Contamination", detector.Ensemble{Contamination: 1}, detector.Options{}},
		{"SB", "Nu", detector.SB{}, detector.Options{}},
		{"TAR", "Ratio", detector.TAR{Ratio: 1}, detector.Options{}},
		{"Options", "Hidden", nil, detector.Options{Hidden: []int{8, 0}}},
		{"Ensemble", "Count", detector.Ensemble{Count: []detector.CountRule{"magic"}}, detector.Options{}},
		{"Options", "Epochs", detector.Proposed{}, detector.Options{Epochs: 1}},
		{"Options", "Seeds", nil, detector.Options{Seeds: []uint64{1, 2}, Members: 3}},
		{"Options", "Seeds", nil, detector.Options{Seeds: []uint64{4, 4}, Members: 2}},
		{"Proposed", "RankScores", detector.Proposed{RankScores: "test"}, detector.Options{}},
		{"Ensemble", "TrainRows", detector.Ensemble{TrainRows: 200}, detector.Options{}},
		{"Proposed", "Ties", detector.Proposed{Delta: detector.PaperRule, Ties: "sideways"}, detector.Options{}},
		{"Proposed", "Ties", detector.Proposed{Ties: detector.TiesLargest}, detector.Options{}},
		{"Proposed", "Delta", detector.Proposed{Delta: "magic"}, detector.Options{}},
	}
	for _, m := range append(allMethods, nil) {
		if err := detector.Validate(withRatio(m), detector.Options{}); err != nil {
			t.Errorf("defaults of %v: %v", m, err)
		}
		def, o := detector.Defaults(withRatio(m))
		if err := detector.Validate(def, o); err != nil {
			t.Errorf("Defaults of %v: %v", m, err)
		}
	}
	for _, c := range cases {
		err := detector.Validate(c.m, c.o)
		var oe *detector.OptionError
		if !errors.As(err, &oe) || oe.Type != c.typ || oe.Field != c.field ||
			!strings.Contains(err.Error(), c.typ+"."+c.field+":") {
			t.Errorf("%s.%s: Validate = %v, want an OptionError naming it", c.typ, c.field, err)
		}
	}
}

// TestClose checks that Close is idempotent and that a closed model refuses work.
func TestClose(t *testing.T) {
	m := fitted(t, detector.Ensemble{}, table(60, 3, 1))
	m.Close()
	m.Close()
	if _, err := m.Score(context.Background(), table(5, 3, 2)); err == nil {
		t.Error("Score on a closed model: no error")
	}
	if err := m.Save(filepath.Join(t.TempDir(), "m")); err == nil {
		t.Error("Save of a closed model: no error")
	}
}

// TestRowScoredAlone checks, for every method with two members, that a row scored alone,
// in a batch of 10 and in the whole table gets the same score (relative 1e-6): every
// scale a score uses is fitted at training time (multi-member oc once divided by the
// median of the rows being scored, so a row alone always got 1).
func TestRowScoredAlone(t *testing.T) {
	rows := table(120, 3, 1)
	for _, method := range allMethods {
		t.Run(method.Name(), func(t *testing.T) {
			m := fitted(t, method, rows)
			whole, err := m.Score(context.Background(), rows)
			if err != nil {
				t.Fatal(err)
			}
			batch, err := m.Score(context.Background(), rows[20:30])
			if err != nil {
				t.Fatal(err)
			}
			for i := 20; i < 30; i++ {
				alone, err := m.Score(context.Background(), rows[i:i+1])
				if err != nil {
					t.Fatal(err)
				}
				for _, got := range []float64{alone[0], batch[i-20]} {
					if math.Abs(got-whole[i]) > 1e-6*math.Abs(whole[i]) {
						t.Fatalf("row %d: %g alone or in a batch of 10, %g in the table", i+1, got, whole[i])
					}
				}
			}
		})
	}
}

// allMethods are the methods, the default first.
var allMethods = []detector.Method{detector.Ensemble{}, detector.Proposed{}, detector.OC{}, detector.SB{}, detector.Otsu{}, detector.TAR{}}

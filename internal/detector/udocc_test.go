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
	o := quick()
	o.Method = method
	if method == detector.SB || method == detector.TAR {
		o.Ratio = 0.1
	}
	m, err := detector.Fit(context.Background(), rows, o)
	if err != nil {
		t.Fatalf("Fit %s: %v", method, err)
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
		t.Run(string(method), func(t *testing.T) {
			m := fitted(t, method, rows)
			if m.Method() != method {
				t.Errorf("Method %q, want %q", m.Method(), method)
			}
			got, err := m.Score(context.Background(), rows)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, m.Scores()) {
				t.Fatalf("Score(training rows) differs from Scores()")
			}
			if hasThr := !math.IsInf(m.Threshold(), 1); hasThr != (m.Labels() != nil) || hasThr == (method == "oc") {
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
				if (mem.Labels != nil) != !math.IsInf(mem.Threshold, 1) || (mem.Labels != nil) != (method != "oc" && method != "ensemble") {
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
			if method == "oc" && !errors.Is(errA, detector.ErrNoThreshold) {
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
	m, err := detector.FitDataset(context.Background(), ds, o)
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
	m := fitted(t, "ensemble", table(60, 3, 1))
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
		_, err := detector.Fit(context.Background(), [][]float64{{1, 2}, {3}}, quick())
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
			m, err := detector.Fit(ctx, table(100, 3, 1), o)
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
		if _, err := detector.Fit(ctx, table(100, 3, 1), o); !errors.Is(err, context.Canceled) {
			t.Errorf("Fit: %v, want context.Canceled", err)
		}
	})
}

// TestValidate checks that every unusable option is reported by its field's name.
func TestValidate(t *testing.T) {
	cases := []struct {
		field string
		set   func(o *detector.Options)
	}{
		{"Method", func(o *detector.Options) { o.Method = "svm" }},
		{"Epochs", func(o *detector.Options) { o.Epochs = -1 }},
		{"Trim", func(o *detector.Options) { o.Trim = -0.1 }},
		{"LR", func(o *detector.Options) { o.LR = -1 }},
		{"PretrainLR", func(o *detector.Options) { o.PretrainLR = -1 }},
		{"BatchSize", func(o *detector.Options) { o.BatchSize = 1 }},
		{"WeightDecay", func(o *detector.Options) { o.WeightDecay = math.NaN() }},
		{"Members", func(o *detector.Options) { o.Members = -1 }},
		{"Device", func(o *detector.Options) { o.Device = "gpu" }},
		{"Threads", func(o *detector.Options) { o.Threads = -1 }},
		{"Contamination", func(o *detector.Options) { o.Contamination = 1 }},
		{"Contamination", func(o *detector.Options) { o.Method, o.Contamination = "oc", 0.1 }},
		{"Ratio", func(o *detector.Options) { o.Method = "sb" }},
		{"Ratio", func(o *detector.Options) { o.Ratio = 0.1 }},
		{"Hidden", func(o *detector.Options) { o.Hidden = []int{8, 0} }},
		{"Count", func(o *detector.Options) { o.Count = []detector.CountRule{"magic"} }},
		{"Count", func(o *detector.Options) { o.Method, o.Count = "oc", []detector.CountRule{detector.LearnedCount} }},
		{"Delta", func(o *detector.Options) { o.Delta = detector.PaperRule }},
		{"Epochs", func(o *detector.Options) { *o = detector.PaperOptions(); o.Epochs = 1 }},
		{"Seeds", func(o *detector.Options) { o.Seeds = []uint64{1, 2} }},
		{"Seeds", func(o *detector.Options) { o.Seeds, o.Members = []uint64{4, 4}, 2 }},
		{"RankScores", func(o *detector.Options) { o.RankScores = "test" }},
		{"TrainRows", func(o *detector.Options) { o.TrainRows = 200 }},
		{"Ties", func(o *detector.Options) {
			*o = detector.PaperOptions()
			o.Delta, o.Ties = detector.PaperRule, "sideways"
		}},
		{"Ties", func(o *detector.Options) { *o = detector.PaperOptions(); o.Ties = detector.TiesLargest }},
		{"Delta", func(o *detector.Options) { *o = detector.PaperOptions(); o.Delta = "magic" }},
	}
	for _, o := range []detector.Options{detector.DefaultOptions(), detector.PaperOptions(), {}} {
		if err := o.Validate(); err != nil {
			t.Errorf("defaults of %s: %v", o.Method, err)
		}
	}
	for _, c := range cases {
		o := detector.DefaultOptions()
		c.set(&o)
		err := o.Validate()
		if err == nil || !strings.Contains(err.Error(), "Options."+c.field+":") {
			t.Errorf("%s: Validate() = %v, want an error naming Options.%s", c.field, err, c.field)
		}
	}
}

// TestClose checks that Close is idempotent and that a closed model refuses work.
func TestClose(t *testing.T) {
	m := fitted(t, "ensemble", table(60, 3, 1))
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
		t.Run(string(method), func(t *testing.T) {
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
var allMethods = []detector.Method{detector.Ensemble, detector.Proposed, detector.OC, detector.SB, detector.Otsu, detector.TAR}

package detector_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/detector"
)

// TestZeroOptions checks that the zero settings fit with the defaults: the same scores,
// threshold and widths as Defaults fills in (for the ensemble and for Proposed), and
// that a negative "none" field is none, not the default.
func TestZeroOptions(t *testing.T) {
	rows := table(120, 3, 5)
	fit := func(meth detector.Method, o detector.Options) *detector.Model {
		t.Helper()
		m, err := detector.Fit(context.Background(), rows, meth, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		return m
	}
	for _, zero := range []detector.Method{detector.Ensemble{}, detector.Proposed{}} {
		t.Run(zero.Name(), func(t *testing.T) {
			if err := detector.Validate(zero, detector.Options{}); err != nil {
				t.Fatalf("Validate of the zero settings: %v", err)
			}
			a, b := fit(zero, detector.Options{}), fit(detector.Defaults(zero))
			if a.Method() != b.Method() || !slices.Equal(a.Scores(), b.Scores()) || a.Threshold() != b.Threshold() ||
				len(a.Members()) != len(b.Members()) || !slices.Equal(a.Hidden(), b.Hidden()) {
				t.Errorf("zero options: method %s, %d members, threshold %g, widths %v; defaults: method %s, %d members, threshold %g, widths %v",
					a.Method(), len(a.Members()), a.Threshold(), a.Hidden(), b.Method(), len(b.Members()), b.Threshold(), b.Hidden())
			}
		})
	}
	t.Run("negative is none", func(t *testing.T) {
		// No pretraining and no screening: the members have no pretraining loss.
		m := fit(detector.Ensemble{ScreenEpochs: -1}, detector.Options{PretrainEpochs: -1, WeightDecay: -1, Epochs: 2, Members: 1})
		if pl := m.Members()[0].PretrainLoss; len(pl) != 0 {
			t.Errorf("PretrainEpochs -1: %d pretraining epochs, want none", len(pl))
		}
		d := fit(nil, detector.Options{Epochs: 2, Members: 1})
		if pl := d.Members()[0].PretrainLoss; len(pl) != 60 {
			t.Errorf("PretrainEpochs 0: %d pretraining epochs, want the default 60", len(pl))
		}
	})
}

// TestWidthsIgnoreName checks that a table's name does not choose the layer widths:
// a table named after a paper set with widths of its own (mnist) gets the ensemble's
// widths for its shape, as any: 32,16,4 for 3 features, 32,16,8 for 9.
func TestWidthsIgnoreName(t *testing.T) {
	for _, d := range []int{3, 9} {
		want := []int{32, 16, 8}
		if d <= 8 {
			want = []int{32, 16, 4}
		}
		rows := table(60, d, 1)
		for _, name := range []string{"mnist", "arrhythmia.mat", "other"} {
			ds := &data.Dataset{Name: name, N: len(rows), D: d}
			for _, r := range rows {
				for _, v := range r {
					ds.X = append(ds.X, float32(v))
				}
			}
			m, err := detector.FitDataset(context.Background(), ds, nil, quick())
			if err != nil {
				t.Fatal(err)
			}
			if h := m.Hidden(); !slices.Equal(h, want) {
				t.Errorf("table %q of %d features: widths %v, want %v", name, d, h, want)
			}
			m.Close()
		}
	}
}

// TestAccessorsCopy checks that changing what an accessor returns changes nothing in
// the model.
func TestAccessorsCopy(t *testing.T) {
	m := fitted(t, detector.Ensemble{}, table(80, 3, 2))
	h, s, l, med := m.Hidden(), m.Scores(), m.Labels(), m.Medians()
	mem, hist := m.Members(), m.History()
	h[0], s[0], l[0], med[0] = -1, math.Inf(1), !l[0], -1
	mem[0].Scores[0], mem[0].Seed, hist[0][0].Loss = -1, 99, -1
	if m.Hidden()[0] == -1 || m.Scores()[0] == math.Inf(1) || m.Labels()[0] == l[0] ||
		m.Medians()[0] == -1 || m.Members()[0].Scores[0] == -1 || m.Members()[0].Seed == 99 || m.History()[0][0].Loss == -1 {
		t.Error("a change to an accessor's result reached the model")
	}
}

// TestScoreContext checks that Score, Predict and Explain stop for a cancelled context,
// and that Close returns nil, the second time too.
func TestScoreContext(t *testing.T) {
	rows := table(80, 3, 3)
	m, err := detector.Fit(context.Background(), rows, nil, quick())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Score(ctx, rows); !errors.Is(err, context.Canceled) {
		t.Errorf("Score with a cancelled context: %v", err)
	}
	if _, err := m.Predict(ctx, rows); !errors.Is(err, context.Canceled) {
		t.Errorf("Predict with a cancelled context: %v", err)
	}
	if _, err := m.Explain(ctx, rows[:2]); !errors.Is(err, context.Canceled) {
		t.Errorf("Explain with a cancelled context: %v", err)
	}
	//lint:ignore SA1012 a nil ctx is documented as context.Background()
	if s, err := m.Score(nil, rows[:1]); err != nil || len(s) != 1 {
		t.Errorf("Score with a nil context: %v, %v", s, err)
	}
	if err := m.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := m.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestTrainRowsFit checks the ensemble's training sample through Fit: a table of more rows
// than TrainRows gets a score for every row, the same scores for the same seed, other
// scores than a fit on every row (TrainRows negative), and a table of at most TrainRows
// rows the very fit on every row.
func TestTrainRowsFit(t *testing.T) {
	rows := table(900, 4, 5)
	fit := func(rows [][]float64, trainRows int) []float64 {
		m, err := detector.Fit(context.Background(), rows, detector.Ensemble{TrainRows: trainRows}, quick())
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		return m.Scores()
	}
	a, b, all := fit(rows, 300), fit(rows, 300), fit(rows, -1)
	if len(a) != len(rows) {
		t.Fatalf("%d scores for %d rows", len(a), len(rows))
	}
	if !slices.Equal(a, b) {
		t.Error("two fits on a 300-row sample of seed 0 differ")
	}
	if slices.Equal(a, all) {
		t.Error("the fit on a 300-row sample scores as the fit on all 900 rows")
	}
	small := rows[:300]
	if !slices.Equal(fit(small, 300), fit(small, -1)) {
		t.Error("a table of 300 rows with TrainRows 300 is not the fit on every row")
	}
}

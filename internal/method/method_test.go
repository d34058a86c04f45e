package method

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/dynamics"
	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/scale"
	"github.com/udocc/udocc/internal/threshold"
	"github.com/udocc/udocc/internal/training"
)

// testTable is n rows of d Gaussian numbers from seed, the last tenth shifted far.
func testTable(n, d int, seed uint64) *data.Dataset {
	r := rand.New(rand.NewPCG(seed, 7))
	ds := &data.Dataset{Name: "test", N: n, D: d, X: make([]float32, n*d)}
	for i := range ds.X {
		ds.X[i] = float32(r.NormFloat64())
		if i/d >= n-n/10 {
			ds.X[i] += 4
		}
	}
	return ds
}

// testConfig is a short fit of meth: two pretraining (and screening) epochs, three
// fine-tuning ones, over seeds.
func testConfig(t *testing.T, meth Method, seeds []uint64, trace bool) Config {
	t.Helper()
	c := training.DefaultConfig()
	if meth.Ensemble {
		c = EnsembleConfig()
		c.ScreenEpochs = 2
	}
	c.Hidden, c.PretrainEpochs, c.Epochs, c.BatchSize = []int{8, 4}, 2, 3, 32
	cfg := Config{Method: meth, Train: c, Seeds: seeds, Trace: trace}
	switch meth.Name {
	case SB.Name, TAR.Name:
		cfg.Member.Ratio = 0.1
	case Proposed.Name:
		cfg.Delta, cfg.Ties = dynamics.DefaultRule().Name(), dynamics.TieLargest
	case Ensemble.Name:
		r, err := threshold.ByName("mad")
		if err != nil {
			t.Fatal(err)
		}
		cfg.Count, cfg.Rule = threshold.Combination{r}, "mad"
	}
	return cfg
}

// TestFitScoreLoad fits every method and checks what its Fitted promises: scoring the
// training rows gives the fit's own scores and distances bit for bit; a row scored alone
// gets its score in the table (every scale is the fit's, none the batch's); the state
// Marshal writes, loaded back on the same networks, scores and thresholds alike; and the
// Trace holds every row's member outputs, and for the ensemble the screening's scores and
// per-epoch scores.
func TestFitScoreLoad(t *testing.T) {
	ds := testTable(160, 3, 1)
	for _, c := range []struct {
		meth  Method
		seeds []uint64
	}{
		{Ensemble, []uint64{0, 1}},
		{Proposed, []uint64{0}},
		{OC, []uint64{0, 1, 2}},
		{SB, []uint64{0, 1}},
		{Otsu, []uint64{3}},
		{TAR, []uint64{0, 1}},
	} {
		t.Run(c.meth.Name, func(t *testing.T) {
			sc, err := scale.Fit(ds)
			if err != nil {
				t.Fatal(err)
			}
			fit, tr, err := Fit(context.Background(), Table{DS: ds, Scaler: sc}, testConfig(t, c.meth, c.seeds, true))
			if err != nil {
				t.Fatal(err)
			}
			defer fit.Close()
			scores, dist, err := fit.Score(context.Background(), ds, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(scores, tr.Scores) || len(dist) != len(c.seeds) || len(tr.Members) != len(c.seeds) {
				t.Fatalf("the training rows score other than the fit's scores, or %d members' distances for %d seeds", len(dist), len(c.seeds))
			}
			for k := range dist {
				if !slices.Equal(dist[k], tr.Members[k].Scores) || tr.Members[k].Seed != c.seeds[k] {
					t.Fatalf("member %d: its distances or seed differ from the fit's", k)
				}
			}
			for i := 140; i < 150; i++ {
				alone, _, err := fit.Score(context.Background(), &data.Dataset{N: 1, D: ds.D, X: ds.Row(i)}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(alone[0]-scores[i]) > 1e-6*math.Abs(scores[i]) {
					t.Fatalf("row %d scores %g alone, %g in the table", i+1, alone[0], scores[i])
				}
			}
			meta := &models.Meta{Method: c.meth.Name, Sizes: models.Sizes(ds.D, []int{8, 4}), Scaler: *sc}
			fit.Marshal(meta)
			if err := CheckMeta(meta); err != nil {
				t.Fatalf("the marshalled state: %v", err)
			}
			var back Fitted = loadPaper(meta, fit.Networks())
			if meta.Ensemble != nil {
				back = loadEnsemble(meta, fit.Networks())
			}
			again, _, err := back.Score(context.Background(), ds, nil)
			if err != nil {
				t.Fatal(err)
			}
			thr, want := back.Threshold(), fit.Threshold()
			if !slices.Equal(again, scores) || (thr != want && !(math.IsNaN(thr) && math.IsNaN(want))) {
				t.Errorf("loaded back: threshold %g, want %g, or other scores", thr, want)
			}
			if c.meth.Labels == math.IsInf(want, 1) {
				t.Errorf("threshold %g for a method that labels rows: %v", want, c.meth.Labels)
			}
			if len(tr.Dist) != len(c.seeds) || len(tr.Dist[0]) != ds.N || len(tr.Rec) != len(fit.Networks().AE) {
				t.Errorf("the trace has %d members' distances of %d rows and %d reconstruction errors", len(tr.Dist), len(tr.Dist[0]), len(tr.Rec))
			}
			if c.meth.Ensemble {
				if len(tr.Screen) != ds.N || len(tr.ScreenEpochs) != len(c.seeds) || len(tr.ScreenEpochs[0]) != 3 || len(tr.ScreenEpochs[0][2]) != ds.N {
					t.Errorf("the ensemble's trace: %d screening scores, per-epoch scores of %d members", len(tr.Screen), len(tr.ScreenEpochs))
				}
				// The screening's 2 pretraining epochs (testConfig), not the final fit's 2 too.
				if len(tr.ScreenPretrain) != len(c.seeds) || len(tr.ScreenPretrain[0]) != 2 || len(tr.ScreenPretrain[0][1]) != ds.N {
					t.Errorf("the ensemble's trace: reconstruction errors of %d rows after %d pretraining epochs of %d members; want %d rows, 2 epochs", len(tr.ScreenPretrain[0][1]), len(tr.ScreenPretrain[0]), len(tr.ScreenPretrain), ds.N)
				}
			} else if tr.Screen != nil || tr.ScreenEpochs != nil || tr.ScreenPretrain != nil {
				t.Error("a method without a screening fit traced one")
			}
		})
	}
}

// TestTraceOnRequest checks that a fit without Config.Trace keeps none of the costly
// parts of its Trace (the members' outputs of every row, the screening's scores), and
// that on a sample of the rows (Config.TrainRows) the screening's scores, which are the
// sample's, are not traced, while the members' outputs of every row are.
func TestTraceOnRequest(t *testing.T) {
	ds := testTable(300, 3, 2)
	sc, err := scale.Fit(ds)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		trace     bool
		trainRows int
	}{{false, 0}, {true, 100}} {
		cfg := testConfig(t, Ensemble, []uint64{0}, c.trace)
		cfg.TrainRows = c.trainRows
		fit, tr, err := Fit(context.Background(), Table{DS: ds, Scaler: sc}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		fit.Close()
		if tr.Screen != nil || tr.ScreenEpochs != nil || (tr.Dist != nil) != c.trace || len(tr.Scores) != ds.N {
			t.Errorf("trace %v, train rows %d: screen %d, per-epoch %d, dist %d, scores %d", c.trace, c.trainRows,
				len(tr.Screen), len(tr.ScreenEpochs), len(tr.Dist), len(tr.Scores))
		}
	}
}

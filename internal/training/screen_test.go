package training

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/scale"
)

func TestKeepBelow(t *testing.T) {
	scores := []float64{5, 1, 4, 2, 3, 3, 0, 9, 8, 7}
	cases := []struct {
		trim float64
		want []bool
	}{
		// A tenth of 10 rows: the highest (9) is left out.
		{0.1, []bool{true, true, true, true, true, true, true, false, true, true}},
		// A quarter: ⌊2.5⌋ = 2 rows, 9 and 8.
		{0.25, []bool{true, true, true, true, true, true, true, false, false, true}},
		// Half: 9, 8, 7, 5 and 4 go.
		{0.5, []bool{false, true, false, true, true, true, true, false, false, false}},
		// 0.6 reaches into the tie at 3: the cut is the 7th highest score (3), and both
		// rows scoring 3 are kept, so 5 rows go instead of 6.
		{0.6, []bool{false, true, false, true, true, true, true, false, false, false}},
		{0, []bool{true, true, true, true, true, true, true, true, true, true}},
	}
	for _, c := range cases {
		if got := KeepBelow(scores, c.trim); !slices.Equal(got, c.want) {
			t.Errorf("KeepBelow(trim %g) = %v, want %v", c.trim, got, c.want)
		}
	}
}

func TestFitScreened(t *testing.T) {
	const n, d = 400, 6
	x, y := blobs(n, d, 0.05, 3)
	cfg := quickConfig()
	cfg.ScreenEpochs, cfg.Trim, cfg.ScreenScore = 3, 0.1, screenScore
	seeds := EnsembleSeeds(0, 3)
	run, sc, err := FitScreened(x, n, d, cfg, seeds, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	if len(sc.Scores) != n || len(sc.Keep) != n {
		t.Fatalf("screening of %d scores, %d marks; want %d each", len(sc.Scores), len(sc.Keep), n)
	}
	if sc.Kept() != n-n/10 {
		t.Errorf("kept %d rows, want %d (a tenth left out)", sc.Kept(), n-n/10)
	}
	// The rows left out are the screening's highest, and the planted anomalies (3× the
	// spread) are among them.
	cut := slices.Max(keptScores(sc, true))
	for i, s := range sc.Scores {
		if !sc.Keep[i] && s <= cut {
			t.Fatalf("row %d left out with score %g, below a kept row's %g", i, s, cut)
		}
	}
	out, anomalies := 0, 0
	for i, v := range y {
		if v == 1 {
			anomalies++
			if !sc.Keep[i] {
				out++
			}
		}
	}
	if out < anomalies*3/4 {
		t.Errorf("%d of %d planted anomalies left out of the final fit, want at least three quarters", out, anomalies)
	}
	// The final fit trained on the kept rows only, one member per seed, left the per-row
	// results to Run.Score (Config.rescored), and scores any rows.
	if len(run.Results) != len(seeds) {
		t.Fatalf("%d results, want %d", len(run.Results), len(seeds))
	}
	for k, r := range run.Results {
		if r.Scores != nil || r.Reconstruction != nil || r.Labels != nil || !math.IsInf(r.Threshold, 1) {
			t.Errorf("member %d: the final fit kept %d scores, %d errors, %d labels, threshold %g; want none and +Inf",
				k, len(r.Scores), len(r.Reconstruction), len(r.Labels), r.Threshold)
		}
		if len(r.History) != cfg.Epochs || r.History[0].TrainSize != sc.Kept() || len(r.PretrainLoss) != cfg.PretrainEpochs {
			t.Errorf("member %d: %d epochs on %d rows, %d pretraining losses; want %d on %d, %d",
				k, len(r.History), r.History[0].TrainSize, len(r.PretrainLoss), cfg.Epochs, sc.Kept(), cfg.PretrainEpochs)
		}
	}
	dist, rec, err := scoreRun(run, x, n, d)
	if err != nil {
		t.Fatal(err)
	}
	if len(dist) != len(seeds) || len(rec) != len(seeds) || len(dist[0]) != n || len(rec[0]) != n {
		t.Fatalf("Score: %d x %d distances, %d x %d reconstruction errors; want %d x %d", len(dist), len(dist[0]), len(rec), len(rec[0]), len(seeds), n)
	}

	// The same call is deterministic, and without screening it is FitGroup on every row.
	run2, sc2, err := FitScreened(x, n, d, cfg, seeds, nil)
	if err != nil {
		t.Fatal(err)
	}
	dist2, _, err := scoreRun(run2, x, n, d)
	run2.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sc.Scores, sc2.Scores) || !slices.Equal(dist[0], dist2[0]) {
		t.Error("two screened fits of the same data and seeds differ")
	}
	cfg.ScreenEpochs = 0
	one, none, err := FitScreened(x, n, d, cfg, seeds, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	if none != nil || len(one.Results[0].Scores) != n {
		t.Errorf("without screening: screening %v, %d scores; want nil and %d", none, len(one.Results[0].Scores), n)
	}
}

// keptScores are the screening scores of the rows kept (or left out).
func keptScores(sc *Screening, kept bool) []float64 {
	var out []float64
	for i, s := range sc.Scores {
		if sc.Keep[i] == kept {
			out = append(out, s)
		}
	}
	return out
}

// TestFitScreenedRowList checks that the final fit, which reads the kept rows of the
// caller's table through a row list, gives to the bit what FitGroup gives on a copy of
// those rows, standardised by the same scaler on the way, and leaves the table as it was;
// and that Run.Score gives the same numbers in chunks.
func TestFitScreenedRowList(t *testing.T) {
	const n, d = 300, 5
	x, _ := blobs(n, d, 0.05, 7)
	for i := range x {
		x[i] = 2*x[i] + float32(i%d) // unstandardised columns, for the scaler to standardise
	}
	orig := slices.Clone(x)
	sc, err := scale.Fit(&data.Dataset{Name: "blobs", X: x, N: n, D: d})
	if err != nil {
		t.Fatal(err)
	}
	cfg := quickConfig()
	cfg.ScreenEpochs, cfg.Trim, cfg.ScreenScore, cfg.Scaler = 2, 0.1, screenScore, sc
	seeds := EnsembleSeeds(0, 2)
	run, screen, err := FitScreened(x, n, d, cfg, seeds, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	if !slices.Equal(x, orig) {
		t.Fatal("the caller's table changed")
	}
	var kept []float32
	for i, ok := range screen.Keep {
		if ok {
			kept = append(kept, x[i*d:(i+1)*d]...)
		}
	}
	ms := make([]Member, len(seeds))
	for i, s := range seeds {
		if ms[i], err = NewMember("oc", s, screen.Kept(), MethodOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	copied, err := FitGroup(kept, screen.Kept(), d, cfg, ms, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer copied.Close()
	// The networks agree: both score the kept rows alike, as the copied fit's own
	// training results say.
	gotD, gotR, err := scoreRun(run, kept, screen.Kept(), d)
	if err != nil {
		t.Fatal(err)
	}
	wantD, wantR, err := scoreRun(copied, kept, screen.Kept(), d)
	if err != nil {
		t.Fatal(err)
	}
	for k := range seeds {
		got, want := run.Results[k], copied.Results[k]
		if !slices.Equal(gotD[k], wantD[k]) || !slices.Equal(gotR[k], wantR[k]) ||
			!slices.Equal(got.PretrainLoss, want.PretrainLoss) {
			t.Errorf("member %d: the fit through the row list differs from the fit on the copied rows", k)
		}
		if !slices.Equal(wantD[k], want.Scores) || !slices.Equal(wantR[k], want.Reconstruction) {
			t.Errorf("member %d: Run.Score of the training rows differs from the fit's own results", k)
		}
	}
}

// TestScreenErrors checks the two steps' refusals: a screening fit without screening
// epochs, and a final fit given a screening of another table.
func TestScreenErrors(t *testing.T) {
	const n, d = 60, 4
	x, _ := blobs(n, d, 0.05, 5)
	cfg := quickConfig()
	seeds := EnsembleSeeds(0, 1)
	if _, err := Screen(x, n, d, cfg, seeds, nil); err == nil || !strings.Contains(err.Error(), "screening epochs") {
		t.Errorf("Screen with ScreenEpochs 0: err %v, want one naming the screening epochs", err)
	}
	cfg.ScreenEpochs, cfg.Trim, cfg.ScreenScore = 1, 0.1, screenScore
	sc := &Screening{Keep: make([]bool, n-1)}
	if _, err := FitKept(x, n, d, cfg, seeds, sc, nil); err == nil || !strings.Contains(err.Error(), "59 rows for a table of 60") {
		t.Errorf("FitKept with a screening of 59 rows: err %v, want one naming both sizes", err)
	}
}

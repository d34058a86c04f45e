package training

import (
	"math"
	"testing"

	"github.com/udocc/udocc/internal/models"
)

// TestStandardiseOutput checks Config.StandardiseOutput on a screened fit and on one
// without screening: afterwards every coordinate of every member's representation has a
// median absolute deviation of 1 over the final fit's training rows (the kept rows; with
// outputScaleRows lowered, every 10th of them) and its median there is the center's
// coordinate; Run.Score's distances are the squared distances of the outputs to the
// center; the reconstruction errors are those of the same fit without standardising.
func TestStandardiseOutput(t *testing.T) {
	const n, d = 400, 6
	x, _ := blobs(n, d, 0.05, 3)
	// The third case learns the scales from every 10th training row (outputScaleRows).
	defer func(v int) { outputScaleRows = v }(outputScaleRows)
	for _, c := range []struct{ screenEpochs, limit, step int }{{3, 100_000, 1}, {0, 100_000, 1}, {3, 36, 10}} {
		screenEpochs := c.screenEpochs
		outputScaleRows = c.limit
		cfg := quickConfig()
		cfg.ScreenEpochs, cfg.Trim, cfg.ScreenScore = screenEpochs, 0.1, screenScore
		seeds := EnsembleSeeds(0, 2)
		_, plainRec, run, sc := fitWithAndWithout(t, x, n, d, cfg, seeds, func(cf *Config) { cf.StandardiseOutput = true })
		kept := sampledKept(x, n, d, sc, c.step)
		m := len(kept) / d
		if want := (n - n/10 + c.step - 1) / c.step; sc != nil && m != want {
			t.Fatalf("screening %d: %d sampled kept rows, want %d", screenEpochs, m, want)
		}
		emb, err := run.group.EmbeddingsOf(kept, m, d)
		if err != nil {
			t.Fatal(err)
		}
		sizes := run.group.Sizes()
		rep := sizes[len(sizes)-1]
		c0, err := run.group.Center()
		if err != nil {
			t.Fatal(err)
		}
		for k := range seeds {
			for j := 0; j < rep; j++ {
				col := make([]float64, m)
				for i := range col {
					col[i] = float64(emb[(k*m+i)*rep+j])
				}
				sc := models.FitScale(col)
				if math.Abs(sc.Spread-1) > 1e-4 {
					t.Errorf("screening %d: member %d, coordinate %d: MAD %v over the training rows after standardising, want 1", screenEpochs, k, j, sc.Spread)
				}
				if math.Abs(sc.Median-float64(c0[k*rep+j])) > 1e-4 {
					t.Errorf("screening %d: member %d, coordinate %d: median %v over the training rows, center %v: want them equal", screenEpochs, k, j, sc.Median, c0[k*rep+j])
				}
			}
		}
		dist, rec, err := scoreRun(run, x, n, d)
		if err != nil {
			t.Fatal(err)
		}
		all, err := run.group.EmbeddingsOf(x, n, d)
		if err != nil {
			t.Fatal(err)
		}
		cen, err := run.group.Center()
		if err != nil {
			t.Fatal(err)
		}
		for k := range seeds {
			for i := 0; i < n; i++ {
				var want float64
				for j := 0; j < rep; j++ {
					v := float64(all[(k*n+i)*rep+j] - cen[k*rep+j])
					want += v * v
				}
				if math.Abs(dist[k][i]-want) > 1e-4*(1+want) {
					t.Fatalf("screening %d: member %d, row %d: distance %v, want %v", screenEpochs, k, i, dist[k][i], want)
				}
				if rec[k][i] != plainRec[k][i] {
					t.Fatalf("screening %d: member %d, row %d: reconstruction %v, %v without scaling", screenEpochs, k, i, rec[k][i], plainRec[k][i])
				}
			}
		}
	}
}

// sampledKept is every step-th of the rows of x (n x d) that sc keeps (all rows where sc
// is nil), in order: the training rows from which the final fit learns its output and
// reconstruction scales, as sampleRows takes them.
func sampledKept(x []float32, n, d int, sc *Screening, step int) []float32 {
	var kept []float32
	for i, j := 0, 0; i < n; i++ {
		if sc == nil || sc.Keep[i] {
			if j%step == 0 {
				kept = append(kept, x[i*d:(i+1)*d]...)
			}
			j++
		}
	}
	return kept
}

// fitWithAndWithout fits the members of seeds on x (n x d) by FitScreened with cfg, and
// again after on changes cfg: the first fit's scores of x, and the second fit's run and
// screening (the test closes the run).
func fitWithAndWithout(t *testing.T, x []float32, n, d int, cfg Config, seeds []uint64, on func(*Config)) (dist, rec [][]float64, run *Run, sc *Screening) {
	t.Helper()
	plain, _, err := FitScreened(x, n, d, cfg, seeds, nil)
	if err != nil {
		t.Fatal(err)
	}
	dist, rec, err = scoreRun(plain, x, n, d)
	plain.Close()
	if err != nil {
		t.Fatal(err)
	}
	on(&cfg)
	if run, sc, err = FitScreened(x, n, d, cfg, seeds, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(run.Close)
	return dist, rec, run, sc
}

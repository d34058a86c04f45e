package training

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// TestRobustReconstruction fits with Config.RobustReconstruction, with and without
// screening and with the residuals sampled from every 6th training row, and checks that
// Run.Score's reconstruction errors are (1/d) Σ_j log(1 + ((e_j − m_j) / (c·s_j))²) of
// each autoencoder's residuals, with m_j and s_j the median and the MAD (floored at a
// tenth of their median over the features) of the residuals over the sampled training
// rows, computed here independently; the distances are those of a fit without it.
func TestRobustReconstruction(t *testing.T) {
	const n, d = 400, 6
	x, _ := blobs(n, d, 0.05, 4)
	// A feature constant on the training rows except one: its MAD is 0, its deviation the
	// mean absolute deviation, and the floor decides its scale.
	for i := 0; i < n; i++ {
		x[i*d+5] = 0
	}
	x[7*d+5] = 4
	defer func(v int) { reconScaleValues = v }(reconScaleValues)
	for _, c := range []struct{ screenEpochs, values, step int }{{3, 1 << 21, 1}, {0, 1 << 21, 1}, {3, 60 * d, 6}} {
		reconScaleValues = c.values
		cfg := quickConfig()
		cfg.ScreenEpochs, cfg.Trim, cfg.ScreenScore = c.screenEpochs, 0.1, screenScore
		cfg.StandardiseOutput = true
		seeds := EnsembleSeeds(0, 2)
		plainDist, _, run, sc := fitWithAndWithout(t, x, n, d, cfg, seeds, func(cf *Config) { cf.RobustReconstruction = true })
		kept := sampledKept(x, n, d, sc, c.step)
		m := len(kept) / d
		// The scales are learnt with the autoencoders' plain residuals, which
		// SetReconstructionScale leaves as they are.
		res, err := run.pre.ResidualsOf(kept, m, d)
		if err != nil {
			t.Fatal(err)
		}
		all, err := run.pre.ResidualsOf(x, n, d)
		if err != nil {
			t.Fatal(err)
		}
		dist, rec, err := scoreRun(run, x, n, d)
		if err != nil {
			t.Fatal(err)
		}
		median := func(v []float64) float64 {
			s := slices.Clone(v)
			slices.Sort(s)
			if len(s)%2 == 1 {
				return s[len(s)/2]
			}
			return (s[len(s)/2-1] + s[len(s)/2]) / 2
		}
		for k, s := range run.seedOf {
			center, dev := make([]float64, d), make([]float64, d)
			for j := 0; j < d; j++ {
				col := make([]float64, m)
				for i := range col {
					col[i] = float64(res[(s*m+i)*d+j])
				}
				center[j] = median(col)
				abs := make([]float64, m)
				mean := 0.0
				for i, v := range col {
					abs[i] = math.Abs(v - center[j])
					mean += abs[i] / float64(m)
				}
				if dev[j] = median(abs); dev[j] == 0 {
					dev[j] = mean
				}
			}
			if j := d - 1; dev[j] >= 0.1*median(dev) {
				t.Fatalf("screening %d: member %d: the constant feature's deviation %v is not below the floor %v", c.screenEpochs, k, dev[j], 0.1*median(dev))
			}
			floor := 0.1 * median(dev)
			for i := 0; i < n; i++ {
				want := 0.0
				for j := 0; j < d; j++ {
					z := (float64(all[(s*n+i)*d+j]) - center[j]) / (ReconstructionWidth * max(dev[j], floor))
					want += math.Log1p(z*z) / d
				}
				if math.Abs(rec[k][i]-want) > 1e-4*(1+want) {
					t.Fatalf("screening %d: member %d, row %d: reconstruction %v, want %v", c.screenEpochs, k, i, rec[k][i], want)
				}
				if dist[k][i] != plainDist[k][i] {
					t.Fatalf("screening %d: member %d, row %d: distance %v, %v without robust reconstruction", c.screenEpochs, k, i, dist[k][i], plainDist[k][i])
				}
			}
		}
		// Row 7 leaves the constant feature: its error is far above the median row's.
		if sc != nil && !sc.Keep[7] {
			continue
		}
		for k := range rec {
			if med := median(rec[k]); !(rec[k][7] > 3*med) {
				t.Errorf("screening %d: member %d: the row off the constant feature scores %v, the median row %v", c.screenEpochs, k, rec[k][7], med)
			}
		}
	}
}

// TestPerMember checks perMember's layout on a function of the rows alone: with chunks of
// 3 rows (outputScaleChunkValues lowered) and of all of them, member k's value j of row i
// is f's, member after member.
func TestPerMember(t *testing.T) {
	const m, d, k, width = 10, 2, 2, 4
	x := make([]float32, m*d)
	for i := range x {
		x[i] = float32(i / d) // row i's values are i
	}
	value := func(k, row, j int) float32 { return float32(1000*k + 10*row + j) }
	defer func(v int) { outputScaleChunkValues = v }(outputScaleChunkValues)
	for _, limit := range []int{3 * k * width, 1 << 22} {
		outputScaleChunkValues = limit
		var calls []int
		f := func(x []float32, c, d int) ([]float32, error) {
			calls = append(calls, c)
			out := make([]float32, k*c*width)
			for kk := 0; kk < k; kk++ {
				for i := 0; i < c; i++ {
					for j := 0; j < width; j++ {
						out[(kk*c+i)*width+j] = value(kk, int(x[i*d]), j)
					}
				}
			}
			return out, nil
		}
		got, rows, err := perMember(x, d, k, width, Config{}, f)
		if err != nil {
			t.Fatal(err)
		}
		if rows != m || len(got) != k*m*width {
			t.Fatalf("limit %d: %d rows, %d values; want %d, %d", limit, rows, len(got), m, k*m*width)
		}
		for kk := 0; kk < k; kk++ {
			for i := 0; i < m; i++ {
				for j := 0; j < width; j++ {
					if v := got[(kk*m+i)*width+j]; v != value(kk, i, j) {
						t.Fatalf("limit %d: member %d, row %d, value %d: %v, want %v", limit, kk, i, j, v, value(kk, i, j))
					}
				}
			}
		}
		if want := map[int]string{3 * k * width: "[3 3 3 1]", 1 << 22: "[10]"}[limit]; fmt.Sprint(calls) != want {
			t.Errorf("limit %d: chunks %v, want %s", limit, calls, want)
		}
	}
}

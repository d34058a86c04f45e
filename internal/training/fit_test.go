package training

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/udocc/udocc/internal/dynamics"
	"github.com/udocc/udocc/internal/torch"
)

// blobs is n rows of d features: a Gaussian cluster with a share of scattered anomalies
// (labels 1), standardised by construction.
func blobs(n, d int, ratio float64, seed uint64) ([]float32, []int) {
	r := rand.New(rand.NewPCG(seed, 11))
	x := make([]float32, n*d)
	y := make([]int, n)
	for i := 0; i < n; i++ {
		scale := 0.5
		if r.Float64() < ratio {
			y[i], scale = 1, 3
		}
		for j := 0; j < d; j++ {
			x[i*d+j] = float32(scale * r.NormFloat64())
		}
	}
	return x, y
}

func quickConfig() Config {
	c := DefaultConfig()
	c.Hidden = []int{16, 8, 4}
	c.PretrainEpochs = 3
	c.Epochs = 6
	c.BatchSize = 64
	c.WarmUp = 2
	return c
}

func TestDeterministic(t *testing.T) {
	x, _ := blobs(300, 6, 0.1, 1)
	fit := func(seed uint64) []float64 {
		run, err := Fit(x, 300, 6, quickConfig(), Member{Seed: seed, Soft: true, Nu: 0.1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer run.Close()
		return run.Results[0].Scores
	}
	a, b, c := fit(5), fit(5), fit(6)
	same := true
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			t.Fatalf("row %d: %v then %v with the same seed", i, a[i], b[i])
		}
		same = same && a[i] == c[i]
	}
	if same {
		t.Fatal("seeds 5 and 6 gave the same scores")
	}
}

func TestSoftBoundaryLabels(t *testing.T) {
	x, _ := blobs(400, 5, 0.1, 2)
	run, err := Fit(x, 400, 5, quickConfig(), Member{Seed: 1, Soft: true, Nu: 0.1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	r := run.Results[0]
	flagged := 0
	for i, l := range r.Labels {
		if l != (r.Scores[i] > r.Threshold) {
			t.Fatalf("row %d: label %v disagrees with score %g and threshold %g", i, l, r.Scores[i], r.Threshold)
		}
		if l {
			flagged++
		}
	}
	// The labels leave about ν of the training rows outside; that they do is the
	// threshold's definition (the (1−ν) quantile), so what is checked is that the sphere
	// the network learned holds for rows it never saw: fresh rows of the same table fall
	// outside it about as often (a loose band: 2,000 rows, a network trained for a few
	// epochs on 400).
	if flagged == 0 || flagged == len(r.Labels) {
		t.Fatalf("sb with ν = 0.1 flagged %d of 400 rows", flagged)
	}
	fresh, _ := blobs(2000, 5, 0.1, 99)
	dist, err := run.group.DistancesOf(fresh, 2000, 5)
	if err != nil {
		t.Fatal(err)
	}
	out := 0
	for _, v := range dist {
		if float64(v) > r.Threshold {
			out++
		}
	}
	share := float64(out) / 2000
	t.Logf("outside the sphere: %.3f of fresh rows, %.3f of training rows", share, float64(flagged)/400)
	if share < 0.03 || share > 0.3 {
		t.Errorf("sb with ν = 0.1: %.3f of 2,000 fresh rows fall outside the learned sphere (training rows: %.3f)", share, float64(flagged)/400)
	}
	last := r.History[len(r.History)-1]
	if last.Radius <= 0 {
		t.Errorf("R was never updated after the warm-up: %g", last.Radius)
	}
	if r.History[0].Radius != 0 {
		t.Errorf("R moved during the warm-up: %g", r.History[0].Radius)
	}

	// The model's radius is the labels' sphere: R² is the threshold, and a saved network
	// brings it back, so labels of new rows use the same boundary.
	path := filepath.Join(t.TempDir(), "sb.pt")
	if err := run.Save(0, path); err != nil {
		t.Fatal(err)
	}
	g, err := torch.Load(path, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for name, grp := range map[string]*torch.Group{"the fitted": run.group, "the saved": g} {
		radius, err := grp.Radius()
		if err != nil {
			t.Fatal(err)
		}
		if r2 := float64(radius[0]) * float64(radius[0]); r2 != r.Threshold {
			t.Errorf("%s network's R² is %g, the labels' threshold %g", name, r2, r.Threshold)
		}
	}
}

// fixedMask is a selector that always returns the same mask.
type fixedMask struct{ mask []bool }

func (f fixedMask) Name() string { return "fixed" }
func (f fixedMask) Next(e int, s []float64) ([]bool, dynamics.Record, error) {
	return f.mask, dynamics.Record{Epoch: e}, nil
}
func (f fixedMask) Label(s []float64) ([]bool, float64, error) {
	return make([]bool, len(s)), math.Inf(1), nil
}

func TestMaskedTraining(t *testing.T) {
	n := 200
	x, _ := blobs(n, 4, 0.1, 3)
	half := make([]bool, n)
	for i := 0; i < n/2; i++ {
		half[i] = true
	}
	for _, src := range []ScoreSource{EvalScores, TrainScores} {
		cfg := quickConfig()
		cfg.Scores = src
		run, err := Fit(x, n, 4, cfg, Member{Seed: 1, Selector: fixedMask{half}}, nil)
		if err != nil {
			t.Fatalf("%s scores: %v", src, err)
		}
		h := run.Results[0].History
		if h[0].TrainSize != n || h[1].TrainSize != n/2 || h[5].TrainSize != n/2 {
			t.Errorf("%s scores: train sizes %d %d %d, want %d then %d", src, h[0].TrainSize, h[1].TrainSize, h[5].TrainSize, n, n/2)
		}
		run.Close()
	}
}

func TestErrors(t *testing.T) {
	x, _ := blobs(100, 3, 0.1, 4)
	nan := append([]float32(nil), x...)
	nan[7] = float32(math.NaN())
	cfg := quickConfig()
	badDevice := cfg
	badDevice.Device = "tpu"
	oc := Member{Seed: 1}
	cases := []struct {
		name string
		x    []float32
		d    int
		cfg  Config
		m    Member
		want string
	}{
		{"empty mask", x, 3, cfg, Member{Seed: 1, Selector: fixedMask{make([]bool, 100)}}, "has 0 rows"},
		{"one-row mask", x, 3, cfg, Member{Seed: 1, Selector: fixedMask{append([]bool{true}, make([]bool, 99)...)}}, "has 1 rows"},
		{"NaN in the input", nan, 3, cfg, oc, "row 3, column 2"}, // 1-based
		{"wrong shape", x, 4, cfg, oc, "not 100 x 4"},
		{"bad device", x, 3, badDevice, oc, "tpu"},
		{"sb without nu", x, 3, cfg, Member{Seed: 1, Soft: true}, "ν"},
		{"soft boundary with a selector", x, 3, cfg, Member{Seed: 1, Soft: true, Nu: 0.1, Selector: fixedMask{make([]bool, 100)}}, "takes no selector"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run, err := Fit(c.x, 100, c.d, c.cfg, c.m, nil)
			if err == nil {
				run.Close()
				t.Fatalf("no error, want one containing %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q, want one containing %q", err, c.want)
			}
		})
	}
}

func TestChunks(t *testing.T) {
	cases := []struct {
		n, size int
		want    []int
	}{
		{10, 4, []int{4, 4, 2}},
		{9, 4, []int{4, 5}}, // the trailing single row joins the last full minibatch
		{8, 4, []int{4, 4}},
		{1, 4, []int{1}},
		{0, 4, nil},
	}
	for _, c := range cases {
		got := chunkEnds(c.n, c.size, nil)
		if len(got) != len(c.want) {
			t.Fatalf("chunkEnds(%d, %d) = %d minibatches, want %v", c.n, c.size, len(got), c.want)
		}
		start := 0
		for i, end := range got {
			if end-start != c.want[i] {
				t.Errorf("chunkEnds(%d, %d)[%d] has %d rows, want %d", c.n, c.size, i, end-start, c.want[i])
			}
			start = end
		}
	}
}

// TestPretrainLR checks that pretraining uses PretrainLR when it is set and LR otherwise.
func TestPretrainLR(t *testing.T) {
	x, _ := blobs(200, 4, 0.1, 6)
	loss := func(pre float64) []float64 {
		cfg := quickConfig()
		cfg.PretrainLR = pre
		run, err := Fit(x, 200, 4, cfg, Member{Seed: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer run.Close()
		return run.Results[0].PretrainLoss
	}
	same, explicit, other := loss(0), loss(quickConfig().LR), loss(1e-2)
	for i := range same {
		if same[i] != explicit[i] {
			t.Fatalf("epoch %d: PretrainLR 0 gave %g, PretrainLR = LR gave %g", i+1, same[i], explicit[i])
		}
	}
	if other[len(other)-1] == same[len(same)-1] {
		t.Error("PretrainLR 1e-2 changed nothing")
	}
	bad := quickConfig()
	bad.PretrainLR = -1
	if err := bad.Validate(); err == nil {
		t.Error("a negative PretrainLR is valid")
	}
}

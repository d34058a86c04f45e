//go:build cuda

// GPU tests, built only with `go test -tags cuda` (docs/cuda.md). The tag means GPU tests
// were asked for, so without a visible CUDA device they fail rather than skip.

package torch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// cudaTolerance bounds the relative difference |cuda−cpu| / max(1e-3, |cpu|) of a loss or
// a distance after a few epochs. Weights, shuffles and plans are drawn on the host, so
// both devices start from the same numbers and see the same minibatches; what differs is
// the float32 summation order inside cuBLAS's matrix products and CUDA's reductions
// (BatchNorm statistics, losses), about 1e-7 relative per operation, which a few epochs
// of Adam grow to 1e-5..1e-4. 1e-3 leaves a margin of 10 over that and is still far below
// any difference that would change a ranking-based selection. TF32 is off for float32
// matrix products in libtorch by default; a process that turned it on would fail here.
const cudaTolerance = 1e-3

// needCUDA fails t when CUDA cannot be used, with the shim's reason.
func needCUDA(t testing.TB) {
	t.Helper()
	if !CUDACompiled() {
		t.Fatal("no CUDA device visible: the shim is linked against a libtorch without CUDA (build it with LIBTORCH set to a CUDA libtorch, docs/cuda.md)")
	}
	if CUDADeviceCount() == 0 {
		_, err := NewGroup([]int{1, 1}, 1, false, "cuda", []uint64{0})
		t.Fatalf("no CUDA device visible: %v", err)
	}
}

// relDiff is the largest |a[i]−b[i]| / max(1e-3, |b[i]|).
func relDiff[F float32 | float64](a, b []F) float64 {
	worst := 0.0
	for i := range b {
		x, y := float64(a[i]), float64(b[i])
		worst = math.Max(worst, math.Abs(x-y)/math.Max(1e-3, math.Abs(y)))
		if math.IsNaN(x) != math.IsNaN(y) {
			return math.Inf(1)
		}
	}
	return worst
}

func TestCUDADevices(t *testing.T) {
	needCUDA(t)
	count := CUDADeviceCount()
	t.Logf("libtorch %s, %d CUDA device(s)", Version(), count)
	for _, dev := range []string{"cuda", "cuda:0", fmt.Sprintf("cuda:%d", count-1)} {
		g, err := NewGroup([]int{3, 4, 2}, 2, true, dev, []uint64{1, 2})
		if err != nil {
			t.Fatalf("%s: %v", dev, err)
		}
		g.Close()
	}
	bad := fmt.Sprintf("cuda:%d", count)
	_, err := NewGroup([]int{3, 2}, 1, false, bad, []uint64{0})
	if want := fmt.Sprintf("only %d CUDA device(s) visible", count); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("%s: error %v, want one containing %q", bad, err, want)
	}
	// A model that exists, loaded on a device that does not: the error names the device.
	g, err := NewGroup([]int{3, 2}, 1, false, "cpu", []uint64{0})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.pt")
	err = g.Save(0, path)
	g.Close()
	if err != nil {
		t.Fatal(err)
	}
	_, err = Load(path, bad)
	if err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("load on %s: error %v, want one naming the device", bad, err)
	}
}

// mixedPlan is one epoch for 3 members over n rows that exercises every path of the shim:
// member 0 trains on all rows, member 1 on the even rows, member 2 on every third row and
// scores the others in score-only steps; all three shuffle with their own seed, so the
// first steps are dense (every member trains on a full minibatch) and the later ones are
// masked, with members sitting out.
func mixedPlan(r *rand.Rand, n, size int) *Plan {
	var rows [3][][]int32
	var train [3][]uint8
	for m := 0; m < 3; m++ {
		var in, out []int32
		for i := 0; i < n; i++ {
			if i%(m+1) == 0 {
				in = append(in, int32(i))
			} else {
				out = append(out, int32(i))
			}
		}
		r.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
		for i := 0; i < len(in); i += size {
			rows[m] = append(rows[m], in[i:min(i+size, len(in))])
			train[m] = append(train[m], 1)
		}
		if m == 2 {
			for i := 0; i < len(out); i += size {
				rows[m] = append(rows[m], out[i:min(i+size, len(out))])
				train[m] = append(train[m], 0)
			}
		}
	}
	steps := 0
	for m := range rows {
		steps = max(steps, len(rows[m]))
	}
	p := &Plan{Steps: steps, Width: size, Rows: make([]int32, 3*steps*size),
		Counts: make([]int32, 3*steps), Train: make([]uint8, 3*steps)}
	for i := range p.Rows {
		p.Rows[i] = int32(n)
	}
	for m := range rows {
		for s, rs := range rows[m] {
			at := m*steps + s
			copy(p.Rows[at*size:], rs)
			p.Counts[at], p.Train[at] = int32(len(rs)), train[m][s]
		}
	}
	return p
}

// trace is what a device run produced, in the order compared.
type trace struct {
	pretrainLoss, trainLoss []float64
	trainDist, dist, radius []float32
	center, weight          []float32
}

// runOn pretrains and fine-tunes three members on device with mixedPlan epochs: member 1
// with the soft-boundary loss and R updated after the second epoch, the others with the
// one-class loss; train-mode distances are collected every epoch.
func runOn(t *testing.T, device string, x []float32, n, d int) trace {
	t.Helper()
	g, err := NewGroup([]int{d, 16, 8, 4}, 3, true, device, []uint64{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	must(t, g.SetData(x, n, d))
	lr, wd := []float64{1e-3, 2e-3, 1e-3}, []float64{1e-6, 1e-6, 0}
	must(t, g.ResetAdam(Autoencoder, lr, wd))
	var tr trace
	r := rand.New(rand.NewPCG(9, 9))
	for e := 0; e < 3; e++ {
		l, err := g.PretrainEpoch(mixedPlan(r, n, 64))
		must(t, err)
		tr.pretrainLoss = append(tr.pretrainLoss, l...)
	}
	must(t, g.InitCenter(0.1))
	must(t, g.ResetAdam(Encoder, lr, wd))
	obj := Objective{Soft: []uint8{0, 1, 0}, Nu: []float64{0, 0.1, 0}, UpdateR: []uint8{0, 0, 0}}
	tr.trainDist = make([]float32, 3*n)
	for e := 0; e < 5; e++ {
		if e >= 2 {
			obj.UpdateR[1] = 1
		}
		l, err := g.TrainEpoch(mixedPlan(r, n, 64), obj, tr.trainDist)
		must(t, err)
		tr.trainLoss = append(tr.trainLoss, l...)
	}
	if tr.dist, err = g.Distances(); err != nil {
		t.Fatal(err)
	}
	if tr.radius, err = g.Radius(); err != nil {
		t.Fatal(err)
	}
	if tr.center, err = g.Center(); err != nil {
		t.Fatal(err)
	}
	if tr.weight, err = g.Param(1, "enc.0.weight"); err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestCUDAMatchesCPU runs the same three members, seeds and plans on both devices and
// compares every number the shim hands back.
func TestCUDAMatchesCPU(t *testing.T) {
	needCUDA(t)
	n, d := 300, 6
	x := synth(n, d, 5)
	cpu := runOn(t, "cpu", x, n, d)
	gpu := runOn(t, "cuda", x, n, d)
	for _, c := range []struct {
		name     string
		got, cpu []float64
	}{
		{"pretraining losses", gpu.pretrainLoss, cpu.pretrainLoss},
		{"fine-tuning losses", gpu.trainLoss, cpu.trainLoss},
	} {
		worst := relDiff(c.got, c.cpu)
		t.Logf("%s: largest relative difference %.2g", c.name, worst)
		if worst > cudaTolerance {
			t.Errorf("%s differ from cpu by %.3g (relative), tolerance %g", c.name, worst, cudaTolerance)
		}
	}
	for _, c := range []struct {
		name     string
		got, cpu []float32
	}{
		{"train-mode distances", gpu.trainDist, cpu.trainDist},
		{"eval-mode distances", gpu.dist, cpu.dist},
		{"radii", gpu.radius, cpu.radius},
		{"centers", gpu.center, cpu.center},
		{"first-layer weights", gpu.weight, cpu.weight},
	} {
		worst := relDiff(c.got, c.cpu)
		t.Logf("%s: largest relative difference %.2g", c.name, worst)
		if worst > cudaTolerance {
			t.Errorf("%s differ from cpu by %.3g (relative), tolerance %g", c.name, worst, cudaTolerance)
		}
	}
	if cpu.radius[1] <= 0 {
		t.Errorf("member 1's R was never updated: %g", cpu.radius[1])
	}
}

// newTrainedOn is newTrained on device.
func newTrainedOn(t *testing.T, device string, x []float32, n, d int) *Group {
	t.Helper()
	g, err := NewGroup([]int{d, 16, 8, 4}, 1, true, device, []uint64{3})
	if err != nil {
		t.Fatal(err)
	}
	must(t, g.SetData(x, n, d))
	must(t, g.ResetAdam(Autoencoder, []float64{1e-3}, []float64{1e-6}))
	for e := 0; e < 3; e++ {
		_, err := g.PretrainEpoch(fullPlan(1, n, 64))
		must(t, err)
	}
	must(t, g.InitCenter(0.1))
	must(t, g.ResetAdam(Encoder, []float64{1e-3}, []float64{1e-6}))
	obj := Objective{Soft: []uint8{0}, Nu: []float64{0}, UpdateR: []uint8{0}}
	for e := 0; e < 3; e++ {
		_, err := g.TrainEpoch(fullPlan(1, n, 64), obj, nil)
		must(t, err)
	}
	return g
}

// TestCUDASaveLoad saves a model trained on one device and loads it on the other: the
// tensors arrive bit for bit, and the distances agree up to the devices' float rounding
// of one eval-mode pass.
func TestCUDASaveLoad(t *testing.T) {
	needCUDA(t)
	n, d := 150, 4
	x := synth(n, d, 3)
	for _, c := range []struct{ train, load string }{{"cuda", "cpu"}, {"cpu", "cuda"}, {"cuda", "cuda"}} {
		t.Run(c.train+" to "+c.load, func(t *testing.T) {
			g := newTrainedOn(t, c.train, x, n, d)
			defer g.Close()
			want, err := g.Distances()
			must(t, err)
			path := filepath.Join(t.TempDir(), "model.pt")
			must(t, g.Save(0, path))
			h, err := Load(path, c.load)
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			for _, name := range []string{"enc.0.weight", "enc.0.running_var", "enc.2.weight", "dec.0.weight", "center", "radius"} {
				a, err := g.Param(0, name)
				must(t, err)
				b, err := h.Param(0, name)
				must(t, err)
				for i := range a {
					if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
						t.Fatalf("%s[%d]: %g saved on %s, %g loaded on %s", name, i, a[i], c.train, b[i], c.load)
					}
				}
			}
			got, err := h.DistancesOf(x, n, d)
			must(t, err)
			worst := relDiff(got, want)
			t.Logf("largest relative distance difference %.2g", worst)
			if worst > cudaTolerance {
				t.Errorf("distances after load differ by %.3g (relative), tolerance %g", worst, cudaTolerance)
			}
		})
	}
}

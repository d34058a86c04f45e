package torch

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// synth makes an n x d matrix of standard normal values.
func synth(n, d int, seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, 7))
	x := make([]float32, n*d)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	return x
}

// fullPlan is one epoch over all n rows for k members in order, minibatches of size.
func fullPlan(k, n, size int) *Plan {
	steps := (n + size - 1) / size
	p := &Plan{Steps: steps, Width: size, Rows: make([]int32, k*steps*size),
		Counts: make([]int32, k*steps), Train: make([]uint8, k*steps)}
	for m := 0; m < k; m++ {
		for s := 0; s < steps; s++ {
			at := m*steps + s
			c := 0
			for j := 0; j < size; j++ {
				row := s*size + j
				p.Rows[at*size+j] = int32(n)
				if row < n {
					p.Rows[at*size+j] = int32(row)
					c++
				}
			}
			p.Counts[at], p.Train[at] = int32(c), 1
		}
	}
	return p
}

func newTrained(t *testing.T, x []float32, n, d int) *Group {
	t.Helper()
	g, err := NewGroup([]int{d, 16, 8, 4}, 1, true, "cpu", []uint64{3})
	if err != nil {
		t.Fatal(err)
	}
	must(t, g.SetData(x, n, d))
	must(t, g.ResetAdam(Autoencoder, []float64{1e-3}, []float64{1e-6}))
	for e := 0; e < 3; e++ {
		if _, err := g.PretrainEpoch(fullPlan(1, n, 64)); err != nil {
			t.Fatal(err)
		}
	}
	must(t, g.InitCenter(0.1))
	must(t, g.ResetAdam(Encoder, []float64{1e-3}, []float64{1e-6}))
	obj := Objective{Soft: []uint8{0}, Nu: []float64{0}, UpdateR: []uint8{0}}
	for e := 0; e < 3; e++ {
		if _, err := g.TrainEpoch(fullPlan(1, n, 64), obj, nil); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestVersion checks Version against the libtorch this process loaded: the version its
// CMake package file declares (TorchConfigVersion.cmake, found beside the libtorch.so in
// /proc/self/maps: a system install's lib/…/cmake/Torch, a wheel's share/cmake/Torch).
// Where no such file is found, only the form major.minor.patch is checked.
func TestVersion(t *testing.T) {
	v := Version()
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		t.Fatalf("Version() = %q, want major.minor.patch", v)
	}
	for _, p := range parts {
		if _, err := strconv.Atoi(p); err != nil {
			t.Fatalf("Version() = %q, want numbers", v)
		}
	}
	if CUDADeviceCount() > 0 && !CUDACompiled() {
		t.Fatal("devices without CUDA support")
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skipf("no /proc/self/maps to find the loaded libtorch: %v", err)
	}
	var lib string
	for _, line := range strings.Split(string(maps), "\n") {
		if f := strings.Fields(line); len(f) >= 6 && strings.HasSuffix(f[5], "/libtorch.so") || len(f) >= 6 && strings.Contains(f[5], "/libtorch.so.") {
			lib = f[5]
			break
		}
	}
	if lib == "" {
		t.Skip("libtorch.so is not among the loaded libraries")
	}
	dir := filepath.Dir(lib)
	for _, c := range []string{filepath.Join(dir, "cmake", "Torch"), filepath.Join(dir, "..", "share", "cmake", "Torch")} {
		b, err := os.ReadFile(filepath.Join(c, "TorchConfigVersion.cmake"))
		if err != nil {
			continue
		}
		_, rest, ok := strings.Cut(string(b), `set(PACKAGE_VERSION "`)
		declared, _, ok2 := strings.Cut(rest, `"`)
		if !ok || !ok2 {
			t.Fatalf("%s: no PACKAGE_VERSION", c)
		}
		declared, _, _ = strings.Cut(declared, "+") // a wheel's "2.11.0+cu130"
		if declared != v {
			t.Errorf("Version() = %q, but the loaded %s declares %q", v, lib, declared)
		}
		return
	}
	t.Logf("no TorchConfigVersion.cmake beside %s: only the form checked", lib)
}

func TestTrainingLowersLoss(t *testing.T) {
	n, d := 400, 6
	x := synth(n, d, 1)
	g, err := NewGroup([]int{d, 16, 8, 4}, 1, true, "cpu", []uint64{1})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	must(t, g.SetData(x, n, d))
	must(t, g.ResetAdam(Autoencoder, []float64{1e-3}, []float64{1e-6}))
	var first, last float64
	for e := 0; e < 20; e++ {
		l, err := g.PretrainEpoch(fullPlan(1, n, 64))
		if err != nil {
			t.Fatal(err)
		}
		if e == 0 {
			first = l[0]
		}
		last = l[0]
	}
	if !(last < 0.8*first) {
		t.Errorf("pretraining loss %g -> %g did not fall by 20%%", first, last)
	}
	must(t, g.InitCenter(0.1))
	must(t, g.ResetAdam(Encoder, []float64{1e-3}, []float64{1e-6}))
	obj := Objective{Soft: []uint8{0}, Nu: []float64{0}, UpdateR: []uint8{0}}
	for e := 0; e < 20; e++ {
		l, err := g.TrainEpoch(fullPlan(1, n, 64), obj, nil)
		if err != nil {
			t.Fatal(err)
		}
		if e == 0 {
			first = l[0]
		}
		last = l[0]
	}
	if !(last < 0.5*first) {
		t.Errorf("one-class loss %g -> %g did not halve", first, last)
	}
}

// TestDistancesFromWeights recomputes ||φ(x)−c||² in Go from the saved tensors: bias-free
// Linear, eval-mode BatchNorm (eps 1e-4, no affine), LeakyReLU(0.01), bare last Linear.
func TestDistancesFromWeights(t *testing.T) {
	n, d := 200, 5
	x := synth(n, d, 2)
	g := newTrained(t, x, n, d)
	defer g.Close()
	got, err := g.Distances()
	if err != nil {
		t.Fatal(err)
	}
	sizes := g.Sizes()
	c, err := g.Param(0, "center")
	must(t, err)
	for i := 0; i < n; i++ {
		h := make([]float64, d)
		for j := range h {
			h[j] = float64(x[i*d+j])
		}
		for l := 0; l+1 < len(sizes); l++ {
			w, err := g.Param(0, "enc."+strconv.Itoa(l)+".weight")
			must(t, err)
			in, out := sizes[l], sizes[l+1]
			z := make([]float64, out)
			for o := 0; o < out; o++ {
				for j := 0; j < in; j++ {
					z[o] += h[j] * float64(w[j*out+o])
				}
			}
			if l+2 < len(sizes) {
				rm, _ := g.Param(0, "enc."+strconv.Itoa(l)+".running_mean")
				rv, _ := g.Param(0, "enc."+strconv.Itoa(l)+".running_var")
				for o := range z {
					z[o] = (z[o] - float64(rm[o])) / math.Sqrt(float64(rv[o])+1e-4)
					if z[o] < 0 {
						z[o] *= 0.01
					}
				}
			}
			h = z
		}
		var want float64
		for j, v := range h {
			want += (v - float64(c[j])) * (v - float64(c[j]))
		}
		if diff := math.Abs(float64(got[i]) - want); diff > 1e-4*math.Max(1, want) {
			t.Fatalf("row %d: shim %g, from weights %g", i, got[i], want)
		}
	}
}

func TestSaveLoad(t *testing.T) {
	n, d := 150, 4
	x := synth(n, d, 3)
	g := newTrained(t, x, n, d)
	defer g.Close()
	want, err := g.Distances()
	must(t, err)
	path := filepath.Join(t.TempDir(), "model.pt")
	must(t, g.Save(0, path))
	h, err := Load(path, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	got, err := h.DistancesOf(x, n, d)
	must(t, err)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("row %d: %g before save, %g after load", i, want[i], got[i])
		}
	}
	if s := h.Sizes(); len(s) != 4 || s[0] != d || s[3] != 4 {
		t.Errorf("loaded sizes %v", s)
	}
}

// errCUDAVisible tells TestErrors that its "cuda without cuda" case does not apply here.
var errCUDAVisible = errors.New("a CUDA device is visible")

func TestErrors(t *testing.T) {
	n, d := 50, 3
	x := synth(n, d, 4)
	cases := []struct {
		name string
		run  func() error
		want string
	}{
		{"bad device string", func() error {
			_, err := NewGroup([]int{d, 4}, 1, false, "gpu:x", []uint64{0})
			return err
		}, "gpu:x"},
		{"cuda without cuda", func() error {
			if CUDADeviceCount() > 0 {
				return errCUDAVisible
			}
			_, err := NewGroup([]int{d, 4}, 1, false, "cuda", []uint64{0})
			return err
		}, "device \"cuda\""},
		{"wrong feature count", func() error {
			g, err := NewGroup([]int{d, 4, 2}, 1, false, "cpu", []uint64{0})
			must(t, err)
			defer g.Close()
			return g.SetData(synth(n, d+1, 1), n, d+1)
		}, "expects 3"},
		{"NaN in the input", func() error {
			g, err := NewGroup([]int{d, 4, 2}, 1, false, "cpu", []uint64{0})
			must(t, err)
			defer g.Close()
			bad := append([]float32(nil), x...)
			bad[2*d+1] = float32(math.NaN())
			return g.SetData(bad, n, d)
		}, "row 2, column 1"},
		{"plan row out of range", func() error {
			g, err := NewGroup([]int{d, 4, 2}, 1, false, "cpu", []uint64{0})
			must(t, err)
			defer g.Close()
			must(t, g.SetData(x, n, d))
			must(t, g.ResetAdam(Encoder, []float64{1e-3}, []float64{0}))
			p := fullPlan(1, n, 16)
			p.Rows[3] = int32(n + 5)
			_, err = g.TrainEpoch(p, Objective{Soft: []uint8{0}, Nu: []float64{0}, UpdateR: []uint8{0}}, nil)
			return err
		}, "out of range"},
		{"corrupt model file", func() error {
			path := filepath.Join(t.TempDir(), "bad.pt")
			must(t, os.WriteFile(path, []byte("not a model"), 0o644))
			_, err := Load(path, "cpu")
			return err
		}, "torch:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.run()
			if err == errCUDAVisible {
				t.Skip("a CUDA device is visible") // the subtest's own t: Skip must not end the parent
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestPassengers checks that rows riding as passengers get train-mode distances and
// change nothing else: the losses and the network after the epoch are bit for bit those
// of the same plan without them.
func TestPassengers(t *testing.T) {
	n, d := 120, 4
	x := synth(n, d, 5)
	obj := Objective{Soft: []uint8{0}, Nu: []float64{0}, UpdateR: []uint8{0}}
	epoch := func(passengers bool) ([]float64, []float32, []float32) {
		g := newTrained(t, x, n, d)
		defer g.Close()
		// Two steps of 40 training rows (rows 0..79); rows 80..119 ride along when asked.
		p := &Plan{Steps: 2, Width: 60, Rows: make([]int32, 120), Counts: []int32{40, 40}, Train: []uint8{1, 1}}
		for i := range p.Rows {
			p.Rows[i] = int32(n)
		}
		for s := 0; s < 2; s++ {
			for j := 0; j < 40; j++ {
				p.Rows[s*60+j] = int32(s*40 + j)
			}
			if passengers {
				for j := 0; j < 20; j++ {
					p.Rows[s*60+40+j] = int32(80 + s*20 + j)
				}
			}
		}
		if passengers {
			p.Extra = []int32{20, 20}
		}
		td := make([]float32, n)
		loss, err := g.TrainEpoch(p, obj, td)
		must(t, err)
		dist, err := g.Distances()
		must(t, err)
		return loss, dist, td
	}
	l0, d0, _ := epoch(false)
	l1, d1, td := epoch(true)
	if l0[0] != l1[0] {
		t.Fatalf("loss %v without passengers, %v with", l0[0], l1[0])
	}
	for i := range d0 {
		if d0[i] != d1[i] {
			t.Fatalf("row %d: eval distance %g without passengers, %g with", i, d0[i], d1[i])
		}
	}
	for i, v := range td {
		if !(v > 0) || math.IsInf(float64(v), 0) {
			t.Fatalf("row %d: train-mode distance %g", i, v)
		}
	}
}

// TestErrorCodes checks that the shim's errors carry the code callers branch on, not
// only a text: a missing tensor is ErrNoTensor, libtorch's own errors (c10::Error: a
// malformed device, a file that is no model) are ErrLibtorch, and the shim's checks are
// plain *Error values of UDOCC_ERR_FAILED.
func TestErrorCodes(t *testing.T) {
	d := 3
	g, err := NewGroup([]int{d, 4, 2}, 1, false, "cpu", []uint64{0})
	must(t, err)
	defer g.Close()
	_, err = g.Param(0, "enc.1.running_mean") // the bare last layer has no BatchNorm
	if !errors.Is(err, ErrNoTensor) {
		t.Errorf("Param of a missing tensor: %v, want ErrNoTensor", err)
	}
	if _, err := g.Param(0, "enc.0.running_mean"); err != nil {
		t.Errorf("Param of a BatchNorm buffer: %v", err)
	}
	_, err = NewGroup([]int{d, 4}, 1, false, "gpu:x", []uint64{0})
	if !errors.Is(err, ErrLibtorch) {
		t.Errorf("a malformed device: %v, want ErrLibtorch", err)
	}
	path := filepath.Join(t.TempDir(), "bad.pt")
	must(t, os.WriteFile(path, []byte("not a model"), 0o644))
	if _, err := Load(path, "cpu"); !errors.Is(err, ErrLibtorch) {
		t.Errorf("loading a file that is no model: %v, want ErrLibtorch", err)
	}
	err = g.SetData(synth(5, d+1, 1), 5, d+1)
	var e *Error
	if !errors.As(err, &e) || e.Code != 1 || errors.Is(err, ErrNoTensor) || errors.Is(err, ErrLibtorch) {
		t.Errorf("a shim check: %#v, want an *Error of code 1 (UDOCC_ERR_FAILED) and no sentinel", err)
	}
}

//go:build cuda

// GPU tests, built only with `go test -tags cuda` (docs/cuda.md). The tag means GPU tests
// were asked for, so without a visible CUDA device they fail rather than skip.

package training

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/udocc/udocc/internal/torch"
)

// cudaTolerance bounds the relative score difference |cuda−cpu| / max(1e-3, |cpu|) of a
// fit on the same seed. Initial weights and every shuffle are drawn on the host, so both
// devices train on the same minibatches from the same start; they differ only in the
// float32 summation order of cuBLAS's matrix products and CUDA's reductions, about 1e-7
// relative per operation, grown by a few epochs of Adam to 1e-5..1e-4 (the CPU group
// equivalence test sees the same kind of rounding difference and holds 1e-4). 1e-3
// leaves a margin of 10. The ranking-based methods compare more strictly first: their
// per-epoch training sets must be the same size on both devices, since one row that
// crosses the threshold changes every later minibatch (reported as such, not as a score
// difference).
const cudaTolerance = 1e-3

// needCUDA fails t when CUDA cannot be used, with the shim's reason.
func needCUDA(t testing.TB) {
	t.Helper()
	if !torch.CUDACompiled() {
		t.Fatal("no CUDA device visible: the shim is linked against a libtorch without CUDA (build it with LIBTORCH set to a CUDA libtorch, docs/cuda.md)")
	}
	if torch.CUDADeviceCount() == 0 {
		_, err := torch.NewGroup([]int{1, 1}, 1, false, "cuda", []uint64{0})
		t.Fatalf("no CUDA device visible: %v", err)
	}
}

// compareRuns checks member k of a against member k of b (the CPU run): same training
// set sizes epoch by epoch, scores within cudaTolerance. It returns the worst difference.
func compareRuns(t *testing.T, label string, a, b *Run) float64 {
	t.Helper()
	worst := 0.0
	for k := range b.Results {
		ra, rb := a.Results[k], b.Results[k]
		for e := range rb.History {
			if ra.History[e].TrainSize != rb.History[e].TrainSize {
				t.Errorf("%s member %d (%s): epoch %d trained on %d rows on cuda, %d on cpu (a row crossed the selection threshold)",
					label, k, rb.Member.name(), e+1, ra.History[e].TrainSize, rb.History[e].TrainSize)
				break
			}
		}
		w := 0.0
		for i := range rb.Scores {
			w = math.Max(w, math.Abs(ra.Scores[i]-rb.Scores[i])/math.Max(1e-3, math.Abs(rb.Scores[i])))
			if math.IsNaN(ra.Scores[i]) {
				w = math.Inf(1)
			}
		}
		t.Logf("%s member %d (%s, seed %d): largest relative score difference %.2g", label, k, rb.Member.name(), rb.Member.Seed, w)
		if w > cudaTolerance {
			t.Errorf("%s member %d (%s): scores differ from cpu by %.3g (relative), tolerance %g", label, k, rb.Member.name(), w, cudaTolerance)
		}
		worst = math.Max(worst, w)
	}
	return worst
}

// fitOn fits members on device. On the CPU it takes the libtorch path (UDOCC_REFERENCE=1,
// read by the shim when a group is made): CUDA runs the same autograd graph, so the two
// differ by cuBLAS's and CUDA's summation order only. The CPU fast path, the default
// there, rounds differently again (it is held to the libtorch path by the torch package's
// TestFastMatchesReference), and over a few epochs of Adam the two roundings added up
// passed cudaTolerance (2e-3 and 7e-3 relative on one member each, H100, 2026-11-22).
func fitOn(t *testing.T, device string, x []float32, n, d int, cfg Config, members func() []Member) *Run {
	t.Helper()
	if device == "cpu" {
		t.Setenv("UDOCC_REFERENCE", "1")
	}
	cfg.Device = device
	run, err := FitGroup(x, n, d, cfg, members(), nil)
	if err != nil {
		t.Fatalf("%s: %v", device, err)
	}
	return run
}

// TestCUDAMatchesCPU fits one model of every method on both devices with the same seed,
// with eval-mode scores and, for sb, also with train-mode scores (the shim's scatter of
// train distances).
func TestCUDAMatchesCPU(t *testing.T) {
	needCUDA(t)
	const n, d = 300, 6
	x, _ := blobs(n, d, 0.1, 9)
	for _, method := range Methods {
		for _, src := range []ScoreSource{EvalScores, TrainScores} {
			if src == TrainScores && method != "sb" && method != "proposed" {
				continue
			}
			t.Run(fmt.Sprintf("%s/%s", method, src), func(t *testing.T) {
				cfg := quickConfig()
				cfg.Scores = src
				members := func() []Member {
					opt := MethodOptions{}
					if UsesRatio(method) {
						opt.Ratio = 0.1
					}
					m, err := NewMember(method, 7, n, opt)
					if err != nil {
						t.Fatal(err)
					}
					return []Member{m}
				}
				cpu := fitOn(t, "cpu", x, n, d, cfg, members)
				defer cpu.Close()
				gpu := fitOn(t, "cuda", x, n, d, cfg, members)
				defer gpu.Close()
				compareRuns(t, method, gpu, cpu)
			})
		}
	}
}

// TestCUDAGroupAllMethods is the benchmark grid's shape on CUDA: K = 10 members, every
// method on two seeds, trained in lockstep in one group, against the same group on the
// CPU. Each member is then saved from the CUDA run and loaded on the CPU, where its
// distances must agree with the scores the CUDA run reported.
func TestCUDAGroupAllMethods(t *testing.T) {
	needCUDA(t)
	const n, d = 1000, 12
	x, _ := blobs(n, d, 0.08, 21)
	cfg := quickConfig()
	cfg.Hidden = []int{32, 16, 8}
	cfg.PretrainEpochs, cfg.Epochs, cfg.WarmUp = 5, 10, 3
	members := func() []Member {
		var ms []Member
		for _, seed := range []uint64{0, 1} {
			for _, method := range Methods {
				opt := MethodOptions{}
				if UsesRatio(method) {
					opt.Ratio = 0.08
				}
				m, err := NewMember(method, seed, n, opt)
				if err != nil {
					t.Fatal(err)
				}
				ms = append(ms, m)
			}
		}
		return ms
	}
	gpu := fitOn(t, "cuda", x, n, d, cfg, members)
	defer gpu.Close()
	if len(gpu.Results) != 2*len(Methods) {
		t.Fatalf("%d results, want %d", len(gpu.Results), 2*len(Methods))
	}
	t.Logf("cuda: pretraining %.2f s, fine-tuning %.2f s", gpu.PretrainSeconds, gpu.FinetuneSeconds)
	cpu := fitOn(t, "cpu", x, n, d, cfg, members)
	defer cpu.Close()
	t.Logf("cpu: pretraining %.2f s, fine-tuning %.2f s", cpu.PretrainSeconds, cpu.FinetuneSeconds)
	compareRuns(t, "group", gpu, cpu)

	x32 := make([]float32, len(x))
	for i, v := range x {
		x32[i] = float32(v)
	}
	dir := t.TempDir()
	for k, r := range gpu.Results {
		path := filepath.Join(dir, fmt.Sprintf("member-%d.pt", k))
		if err := gpu.Save(k, path); err != nil {
			t.Fatal(err)
		}
		g, err := torch.Load(path, "cpu")
		if err != nil {
			t.Fatal(err)
		}
		got, err := g.DistancesOf(x32, n, d)
		g.Close()
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for i, s := range r.Scores {
			worst = math.Max(worst, math.Abs(float64(got[i])-s)/math.Max(1e-3, math.Abs(s)))
		}
		if worst > cudaTolerance {
			t.Errorf("member %d (%s): saved on cuda, loaded on cpu, distances differ by %.3g (relative), tolerance %g", k, r.Member.name(), worst, cudaTolerance)
		}
	}
}

//go:build cuda

package bench

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/udocc/udocc/internal/torch"
)

// TestCUDAGrid runs the tiny grid with every method on cuda and on the CPU and compares
// the runs: every key once on each device, ROCAUC within 1e-2 (a few epochs of float32
// reductions in another order; the training-level tolerances are in training's cuda
// tests). Run with go test -tags cuda on a machine with a CUDA libtorch and a device.
func TestCUDAGrid(t *testing.T) {
	if torch.CUDADeviceCount() == 0 {
		t.Fatal("no CUDA device visible: the cuda tag asks for GPU tests")
	}
	dir := tinyData(t)
	results := map[string]*Results{}
	for _, device := range []string{"cpu", "cuda"} {
		o := tinyOptions(dir, t.TempDir())
		o.Methods = []string{"sb", "oc", "otsu", "tar", "proposed", "proposed:paper"}
		o.Train.Device = device
		sum, err := Run(context.Background(), o)
		if err != nil {
			t.Fatalf("%s: %v", device, err)
		}
		if sum.Trained != 24 || sum.Failed != 0 {
			t.Fatalf("%s: summary %+v, want 24 trained", device, sum)
		}
		res, err := ReadResults(filepath.Join(o.Out, ResultsFile))
		if err != nil {
			t.Fatal(err)
		}
		results[device] = res
	}
	cpu := map[string]float64{}
	for _, l := range results["cpu"].Lines {
		cpu[fmt.Sprintf("%s/%s/%d", l.Dataset, l.Method, l.Seed)] = float64(l.ROCAUC)
	}
	for _, l := range results["cuda"].Lines {
		key := fmt.Sprintf("%s/%s/%d", l.Dataset, l.Method, l.Seed)
		want, ok := cpu[key]
		if !ok {
			t.Fatalf("%s ran on cuda only", key)
		}
		if got := float64(l.ROCAUC); math.Abs(got-want) > 1e-2 {
			t.Errorf("%s: ROCAUC %.4f on cuda, %.4f on cpu", key, got, want)
		}
	}
}

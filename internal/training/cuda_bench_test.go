//go:build cuda

package training

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/udocc/udocc/internal/torch"
)

// epochShapes are the benchmark grid's two largest tables, as synthetic data of the same
// size, with the architectures udocc uses for them (mnist's preset, the default).
var epochShapes = []struct {
	name   string
	n, d   int
	hidden []int
}{
	{"mnist", 7603, 100, []int{64, 32, 16}},
	{"satellite", 6435, 36, []int{32, 16, 8}},
}

// epoch runs one epoch as the training loop does: the host draws the plan, the shim
// trains; a fine-tuning epoch also copies back the eval-mode distances and the radii.
func epoch(g *torch.Group, pl *planner, rngs []*rand.Rand, pretrain bool, obj torch.Objective) error {
	if pretrain {
		_, err := g.PretrainEpoch(plans(pl, rngs))
		return err
	}
	if _, err := g.TrainEpoch(plans(pl, rngs), obj, nil); err != nil {
		return err
	}
	if _, err := g.Distances(); err != nil {
		return err
	}
	_, err := g.Radius()
	return err
}

// BenchmarkCUDAEpoch times one pretraining and one fine-tuning epoch (minibatches of 128,
// Adam) of K = 1, 10 and 50 members on mnist- and satellite-sized data, on the CPU and on
// CUDA; ms/epoch is wall time including the host's plan and the copies back, samples/s
// counts K·n rows per epoch. Every setup runs one untimed epoch first (CUDA context,
// cuBLAS handles, the caching allocator). Run with -test.bench CUDAEpoch.
func BenchmarkCUDAEpoch(b *testing.B) {
	for _, s := range epochShapes {
		for _, phase := range []string{"pretrain", "finetune"} {
			for _, device := range []string{"cpu", "cuda"} {
				for _, k := range []int{1, 10, 50} {
					name := fmt.Sprintf("data=%s/phase=%s/device=%s/k=%d", s.name, phase, device, k)
					b.Run(name, func(b *testing.B) {
						if device == "cuda" {
							needCUDA(b)
						}
						pretrain := phase == "pretrain"
						g, rngs := epochGroup(b, s.n, s.d, s.hidden, k, pretrain, device)
						defer g.Close()
						obj := torch.Objective{Soft: make([]uint8, k), Nu: make([]float64, k), UpdateR: make([]uint8, k)}
						pl := newPlanner(s.n, 128, k)
						if err := epoch(g, pl, rngs, pretrain, obj); err != nil {
							b.Fatal(err)
						}
						b.ResetTimer()
						for i := 0; i < b.N; i++ {
							if err := epoch(g, pl, rngs, pretrain, obj); err != nil {
								b.Fatal(err)
							}
						}
						secs := b.Elapsed().Seconds() / float64(b.N)
						b.ReportMetric(secs*1e3, "ms/epoch")
						b.ReportMetric(float64(k*s.n)/secs, "samples/s")
					})
				}
			}
		}
	}
}

package training

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/scale"
	"github.com/udocc/udocc/internal/torch"
)

// epochGroup sets up k members on device for one phase: with a decoder and the
// autoencoder's Adam for pretraining, else the encoder's with the center set. The CPU
// runs on one thread, the CLI's default.
func epochGroup(b *testing.B, n, d int, hidden []int, k int, pretrain bool, device string) (*torch.Group, []*rand.Rand) {
	b.Helper()
	torch.SetNumThreads(1)
	x32, _ := blobs(n, d, 0.05, 1)
	seeds := make([]uint64, k)
	rngs := make([]*rand.Rand, k)
	for i := range seeds {
		seeds[i] = uint64(i)
		rngs[i] = rand.New(rand.NewPCG(seeds[i], finetuneStream))
	}
	g, err := torch.NewGroup(append([]int{d}, hidden...), k, pretrain, device, seeds)
	if err != nil {
		b.Fatal(err)
	}
	phase := torch.Encoder
	if pretrain {
		phase = torch.Autoencoder
	}
	for _, err := range []error{
		g.SetData(x32, n, d),
		g.InitCenter(0.1),
		g.ResetAdam(phase, fill(k, 1e-3), fill(k, 1e-6)),
	} {
		if err != nil {
			g.Close()
			b.Fatal(err)
		}
	}
	return g, rngs
}

// plans draws one epoch over all n rows for every member, as the training loop does.
func plans(pl *planner, rngs []*rand.Rand) *torch.Plan {
	for i, r := range rngs {
		pl.draw(i, r, nil, false)
	}
	return pl.layout()
}

// BenchmarkFinetuneEpoch is one fine-tuning epoch (training plus the eval-mode scoring
// of all rows) on 7603 x 100 with 64-32-16, one thread, for groups of K models trained
// in lockstep. ms/epoch is the group's time; ms/model-epoch divides it by K.
func BenchmarkFinetuneEpoch(b *testing.B) {
	for _, k := range []int{1, 10, 50} {
		b.Run(fmt.Sprintf("K=%d", k), func(b *testing.B) {
			g, rngs := epochGroup(b, 7603, 100, []int{64, 32, 16}, k, false, "cpu")
			defer g.Close()
			pl := newPlanner(g.N(), 128, k)
			obj := torch.Objective{Soft: make([]uint8, k), Nu: make([]float64, k), UpdateR: make([]uint8, k)}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := g.TrainEpoch(plans(pl, rngs), obj, nil); err != nil {
					b.Fatal(err)
				}
				if _, err := g.Distances(); err != nil {
					b.Fatal(err)
				}
			}
			ms := float64(b.Elapsed().Microseconds()) / 1000 / float64(b.N)
			b.ReportMetric(ms, "ms/epoch")
			b.ReportMetric(ms/float64(k), "ms/model-epoch")
		})
	}
}

// BenchmarkPretrainEpoch is one autoencoder epoch on 7603 x 100 with 64-32-16.
func BenchmarkPretrainEpoch(b *testing.B) {
	g, rngs := epochGroup(b, 7603, 100, []int{64, 32, 16}, 1, true, "cpu")
	defer g.Close()
	pl := newPlanner(g.N(), 128, 1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := g.PretrainEpoch(plans(pl, rngs)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/epoch")
}

// speedShapes are the tables bench/speed.sh times: d = 20 with 32-16-8 from 10^3 to 10^7
// rows, and the mnist shape.
var speedShapes = []struct {
	n, d   int
	hidden []int
}{
	{1000, 20, []int{32, 16, 8}},
	{10000, 20, []int{32, 16, 8}},
	{100000, 20, []int{32, 16, 8}},
	{1000000, 20, []int{32, 16, 8}},
	{10000000, 20, []int{32, 16, 8}},
	{7603, 100, []int{64, 32, 16}},
}

// BenchmarkSpeed times one pretraining epoch and one fine-tuning epoch (training plus
// the eval-mode scoring of all rows, as PyTorch's baseline does) per table shape, for
// K = 1 and K = 10 models in lockstep, one thread. bench/speed.sh runs it beside a plain
// PyTorch loop; select shapes with -bench 'Speed/n=1000,'.
func BenchmarkSpeed(b *testing.B) {
	for _, s := range speedShapes {
		for _, k := range []int{1, 10} {
			for _, pretrain := range []bool{true, false} {
				phase := "finetune"
				if pretrain {
					phase = "pretrain"
				}
				name := fmt.Sprintf("n=%d,d=%d/K=%d/%s", s.n, s.d, k, phase)
				b.Run(name, func(b *testing.B) {
					g, rngs := epochGroup(b, s.n, s.d, s.hidden, k, pretrain, "cpu")
					defer g.Close()
					ms := timeEpochs(b, epochOf(g, rngs, pretrain))
					b.ReportMetric(ms, "ms/epoch")
					b.ReportMetric(ms/float64(k), "ms/model-epoch")
				})
			}
		}
	}
}

// timeEpochs runs b.N epochs after one untimed one (a fit runs many, and the first also
// faults in the planner's and the shim's buffers) and returns the milliseconds an epoch.
func timeEpochs(b *testing.B, epoch func() error) float64 {
	if err := epoch(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := epoch(); err != nil {
			b.Fatal(err)
		}
	}
	return float64(b.Elapsed().Microseconds()) / 1000 / float64(b.N)
}

// BenchmarkThreads times one pretraining and one fine-tuning epoch (training plus the
// eval-mode scoring of every row) of the default ensemble's group, K = 5 members, on
// 1, 2, 4, 8 and 16 threads (torch.SetNumThreads), for 10^5 and 10^6 rows of 20 columns:
// the per-epoch part of bench/scaling.sh. Results do not depend on the thread count.
func BenchmarkThreads(b *testing.B) {
	for _, n := range []int{100000, 1000000} {
		for _, threads := range []int{1, 2, 4, 8, 16} {
			for _, pretrain := range []bool{true, false} {
				phase := "finetune"
				if pretrain {
					phase = "pretrain"
				}
				b.Run(fmt.Sprintf("n=%d/threads=%d/%s", n, threads, phase), func(b *testing.B) {
					g, rngs := epochGroup(b, n, 20, []int{32, 16, 8}, EnsembleSize, pretrain, "cpu")
					defer g.Close()
					torch.SetNumThreads(threads)
					defer torch.SetNumThreads(1)
					b.ReportMetric(timeEpochs(b, epochOf(g, rngs, pretrain)), "ms/epoch")
				})
			}
		}
	}
}

// BenchmarkPlanner is the host's share of an epoch: drawing and laying out the
// minibatches of one member over 10^6 rows, as the training loop does every epoch.
func BenchmarkPlanner(b *testing.B) {
	const n = 1000000
	pl := newPlanner(n, 128, 1)
	rngs := []*rand.Rand{rand.New(rand.NewPCG(1, finetuneStream))}
	plans(pl, rngs) // the first epoch sizes the buffers
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		plans(pl, rngs)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/epoch")
}

// BenchmarkBorrowedEpoch is the cost of reading the table as a fit does, from the
// caller's raw rows standardised on every read (torch.Group.BorrowData with a scaler),
// against a standardised copy (SetData): one pretraining and one fine-tuning epoch
// (training plus the eval-mode scoring of every row) of one member on 10^6 x 20 with
// 32-16-8, one thread.
func BenchmarkBorrowedEpoch(b *testing.B) {
	const n, d = 1000000, 20
	x, _ := blobs(n, d, 0.05, 1)
	sc, err := scale.Fit(&data.Dataset{Name: "blobs", X: x, N: n, D: d})
	if err != nil {
		b.Fatal(err)
	}
	std := make([]float32, len(x))
	sc.Standardise(std, x)
	for _, borrowed := range []bool{false, true} {
		for _, pretrain := range []bool{true, false} {
			name := map[bool]string{false: "copied", true: "borrowed"}[borrowed] + "/" +
				map[bool]string{false: "finetune", true: "pretrain"}[pretrain]
			b.Run(name, func(b *testing.B) {
				torch.SetNumThreads(1)
				g, err := torch.NewGroup([]int{d, 32, 16, 8}, 1, pretrain, "cpu", []uint64{1})
				if err != nil {
					b.Fatal(err)
				}
				defer g.Close()
				if borrowed {
					err = g.BorrowData(x, n, d, nil, sc.Mean, sc.Scale)
				} else {
					err = g.SetData(std, n, d)
				}
				phase := torch.Encoder
				if pretrain {
					phase = torch.Autoencoder
				}
				for _, e := range []error{err, g.InitCenter(0.1), g.ResetAdam(phase, fill(1, 1e-3), fill(1, 1e-6))} {
					if e != nil {
						b.Fatal(e)
					}
				}
				rngs := []*rand.Rand{rand.New(rand.NewPCG(1, finetuneStream))}
				epoch := epochOf(g, rngs, pretrain)
				if err := epoch(); err != nil { // untimed: faults in the buffers
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := epoch(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/epoch")
			})
		}
	}
}

// epochOf returns one epoch of g as the benchmarks time it: a pretraining epoch, or a
// fine-tuning epoch with the eval pass that scores every row, over minibatches of 128
// drawn from rngs (one per member).
func epochOf(g *torch.Group, rngs []*rand.Rand, pretrain bool) func() error {
	pl := newPlanner(g.N(), 128, g.K())
	if pretrain {
		return func() error {
			_, err := g.PretrainEpoch(plans(pl, rngs))
			return err
		}
	}
	k := g.K()
	obj := torch.Objective{Soft: make([]uint8, k), Nu: make([]float64, k), UpdateR: make([]uint8, k)}
	dist := make([]float32, k*g.N())
	return func() error {
		if _, err := g.TrainEpoch(plans(pl, rngs), obj, nil); err != nil {
			return err
		}
		return g.DistancesTo(dist)
	}
}

// BenchmarkFineTuneSAD is Deep SAD's fine-tuning as a fit with answers runs it
// (method.DefaultSAD: 60 epochs over the answered rows and 2,048 others, minibatches of
// 128): the default ensemble's five encoders, each a group of its own, on 2,088 rows of
// 36 columns (40 answered), on 1 and 2 threads. The encoders train one a task, so two
// threads take about 3/5 of one's time (three encoders' worth against five).
func BenchmarkFineTuneSAD(b *testing.B) {
	const n, d = 2088, 36
	x, y := blobs(n, d, 0.05, 1)
	sc, err := scale.Fit(&data.Dataset{Name: "blobs", N: n, D: d, X: x})
	if err != nil {
		b.Fatal(err)
	}
	labels := make([]int8, n)
	for i := range 40 {
		labels[i] = 1
		if y[i] == 1 {
			labels[i] = -1
		}
	}
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			torch.SetNumThreads(threads)
			defer torch.SetNumThreads(1)
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				encs := make([]*torch.Group, EnsembleSize)
				closeAll := func() {
					for _, g := range encs {
						if g != nil {
							g.Close()
						}
					}
				}
				for k := range encs {
					g, err := torch.NewGroup([]int{d, 32, 16, 8}, 1, false, "cpu", []uint64{uint64(k)})
					if err != nil {
						closeAll()
						b.Fatal(err)
					}
					encs[k] = g
					if err := errors.Join(g.SetData(x, n, d), g.InitCenter(0.1), g.DropData()); err != nil {
						closeAll()
						b.Fatal(err)
					}
				}
				r := rand.New(rand.NewPCG(1, 0x5ad))
				b.StartTimer()
				err := FineTuneSAD(encs, x, n, d, sc, labels, 10, 0.01, 60, 128, r)
				b.StopTimer()
				closeAll() // each iteration's encoders, not all b.N iterations' at the end
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package project

import (
	"math/rand/v2"
	"testing"

	"github.com/udocc/udocc/internal/torch"
)

// gaussSample is m rows of d standard normal values, as float64 and float32.
func gaussSample(m, d int) ([]float64, []float32) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, m*d)
	xs := make([]float32, m*d)
	for i := range x {
		x[i] = rng.NormFloat64()
		xs[i] = float32(x[i])
	}
	return x, xs
}

// The shapes of the corpus's wide tables: an MVTec-AD ViT embedding (fewer rows than
// columns: Woodbury), a CIFAR-10 one and InternetAds (more: Cholesky).
var gaussShapes = []struct {
	name string
	m, d int
}{{"480x1000", 480, 1000}, {"2048x512", 2048, 512}, {"1966x1555", 1966, 1555}}

func BenchmarkGaussianFit(b *testing.B) {
	defer torch.WithThreads(2)() // the CLI's default count
	for _, s := range gaussShapes {
		x, _ := gaussSample(s.m, s.d)
		b.Run(s.name, func(b *testing.B) {
			c := make([]float64, len(x))
			for i := 0; i < b.N; i++ {
				copy(c, x) // FitGaussian centres its rows in place
				if _, err := FitGaussian(c, s.m, s.d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// gaussFitted is the Gaussian of an m × d sample, and the sample as float32.
func gaussFitted(b *testing.B, m, d int) (*Gaussian, []float32) {
	x, xs := gaussSample(m, d)
	g, err := FitGaussian(x, m, d)
	if err != nil {
		b.Fatal(err)
	}
	return g, xs
}

func BenchmarkGaussianScore(b *testing.B) {
	defer torch.WithThreads(2)() // the CLI's default count
	for _, s := range gaussShapes {
		g, xs := gaussFitted(b, s.m, s.d)
		out := make([]float64, s.m)
		b.Run(s.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := g.Score(out, xs, s.m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkGaussianShapley(b *testing.B) {
	defer torch.WithThreads(2)() // the CLI's default count
	for _, s := range gaussShapes {
		g, xs := gaussFitted(b, s.m, s.d)
		const rows = 64 // a block of flagged rows
		out := make([]float64, rows*s.d)
		base := make([]float32, s.d)
		b.Run(s.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := g.Shapley(out, xs[:rows*s.d], rows, base); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGaussianScoreOne is a served request of one row: its block of the shim's
// product is paid for whole (torch.RowsProduct).
func BenchmarkGaussianScoreOne(b *testing.B) {
	defer torch.WithThreads(2)() // the CLI's default count
	for _, s := range gaussShapes {
		g, xs := gaussFitted(b, s.m, s.d)
		out := make([]float64, 1)
		b.Run(s.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := g.Score(out, xs[:s.d], 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkProjectionFit is the principal components' fit (32 of them, as the default
// reads a wide table) on the Gaussian's shapes.
func BenchmarkProjectionFit(b *testing.B) {
	defer torch.WithThreads(2)() // the CLI's default count
	for _, s := range gaussShapes {
		x, _ := gaussSample(s.m, s.d)
		b.Run(s.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Fit(x, s.m, s.d, 32, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

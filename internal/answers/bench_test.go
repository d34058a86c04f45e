package answers

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkSharpen is Fit on 286,048 rows of 10 columns (covertype's shape)
// with 40 answers, as fit --labels runs them, and with the nearest answered row of each
// kind in place of the shipped rule's three.
func BenchmarkSharpen(b *testing.B) {
	const n, d = 286_048, 10
	rng := rand.New(rand.NewPCG(1, 2))
	x, scores := make([]float32, n*d), make([]float64, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	for i := range scores {
		scores[i] = rng.Float64()
	}
	var ans []Answer
	for i := 0; i < 40; i++ {
		ans = append(ans, Answer{Row: i * 997, Anomaly: i%5 == 0})
	}
	nearest := DefaultRule
	nearest.K = 1
	for _, c := range []struct {
		name string
		rule Rule
	}{{"shipped", DefaultRule}, {"nearest", nearest}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := Fit(x, n, d, scores, ans, c.rule); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

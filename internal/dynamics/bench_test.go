package dynamics

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkSearch times the δ search of Eq. (5) with the ranks given: Crossings and the
// argmin, with the median tie rule (its second pass is the slowest of the three). Ranks
// of epoch e are a random re-ranking of epoch e−1, so memory access is random.
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{1_000_000, 10_000_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			prev, cur := perm(rng, n), perm(rng, n)
			for b.Loop() {
				if _, err := Search(prev, cur, TieMedian); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}

// BenchmarkProposedNext times one epoch of the proposed selector on n = 10⁶ scores:
// ranking (a sort), the search, δ̄ and the mask.
func BenchmarkProposedNext(b *testing.B) {
	const n = 1_000_000
	rng := rand.New(rand.NewPCG(3, 4))
	epochs := make([][]float64, 2)
	for e := range epochs {
		epochs[e] = make([]float64, n)
		for i := range epochs[e] {
			epochs[e][i] = rng.ExpFloat64()
		}
	}
	p, err := NewProposed(n, ProposedOptions{})
	if err != nil {
		b.Fatal(err)
	}
	e := 0
	for b.Loop() {
		e++
		if _, _, err := p.Next(e, epochs[e%2]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/epoch")
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}

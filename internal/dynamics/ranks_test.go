package dynamics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// ranksSlow is the definition: 1 + the number of rows ordered before row i, where a row
// comes first when its score is lower, or equal with a lower index. O(n²).
func ranksSlow(scores []float64) []int {
	ranks := make([]int, len(scores))
	for i, s := range scores {
		ranks[i] = 1
		for j, o := range scores {
			if compareScores(o, s) < 0 || compareScores(o, s) == 0 && j < i {
				ranks[i]++
			}
		}
	}
	return ranks
}

// compareScores orders numbers ascending with NaN after +Inf: the ranking's order.
func compareScores(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	xn, yn := math.IsNaN(x), math.IsNaN(y)
	switch {
	case xn && !yn:
		return 1
	case !xn && yn:
		return -1
	}
	return 0
}

func TestRanks(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name   string
		scores []float64
		want   []int
	}{
		{"empty", nil, []int{}},
		{"one row", []float64{3}, []int{1}},
		{"ascending, rank 1 lowest", []float64{0.1, 0.5, 0.3}, []int{1, 3, 2}},
		{"equal scores by row index", []float64{2, 1, 2, 1}, []int{3, 1, 4, 2}},
		{"collapsed scores give the identity", []float64{0, 0, 0, 0}, []int{1, 2, 3, 4}},
		{"NaN after +Inf", []float64{nan, inf, -inf, nan, 0}, []int{4, 3, 1, 5, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Ranks(tt.scores); !slices.Equal(got, tt.want) {
				t.Errorf("Ranks(%v) = %v, want %v", tt.scores, got, tt.want)
			}
			checkRanks32(t, 0, tt.scores, tt.want)
		})
	}
}

func TestRanksMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for rep := range 300 {
		n := 1 + rng.IntN(200)
		levels := 1 + rng.IntN(2*n) // few levels: many equal scores
		scores := make([]float64, n)
		for i := range scores {
			scores[i] = float64(rng.IntN(levels)) / 7
			if rng.IntN(50) == 0 {
				scores[i] = math.NaN()
			}
		}
		got, want := Ranks(scores), ranksSlow(scores)
		if !slices.Equal(got, want) {
			t.Fatalf("rep %d: Ranks(%v) = %v, want %v", rep, scores, got, want)
		}
		checkRanks32(t, rep, scores, want)
	}
}

// TestRanksSignsAndSpecials checks the radix sort's key on the values where float bits
// and numeric order part: negative numbers, -0 against +0, the infinities and NaNs with
// either sign bit, in random mixes with ties, including n above one byte's 256 buckets.
func TestRanksSignsAndSpecials(t *testing.T) {
	negNaN := math.Float64frombits(math.Float64bits(math.NaN()) | 1<<63)
	pool := []float64{math.Copysign(0, -1), 0, -1, 1, -1e-300, 1e-300, -2.5, 2.5, 1e300, -1e300,
		math.Inf(1), math.Inf(-1), math.NaN(), negNaN, math.SmallestNonzeroFloat64, -math.MaxFloat64}
	rng := rand.New(rand.NewPCG(3, 4))
	for rep := range 200 {
		n := 1 + rng.IntN(600)
		scores := make([]float64, n)
		for i := range scores {
			if rng.IntN(3) == 0 {
				scores[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
			} else {
				scores[i] = pool[rng.IntN(len(pool))]
			}
		}
		got, want := Ranks(scores), ranksSlow(scores)
		if !slices.Equal(got, want) {
			t.Fatalf("rep %d: Ranks(%v) = %v, want %v", rep, scores, got, want)
		}
		checkRanks32(t, rep, scores, want)
	}
}

// checkRanks32 checks that Ranks32 gives want, rank for rank.
func checkRanks32(t *testing.T, rep int, scores []float64, want []int) {
	t.Helper()
	got := Ranks32(scores)
	if len(got) != len(want) {
		t.Fatalf("rep %d: Ranks32 gave %d ranks for %d scores", rep, len(got), len(want))
	}
	for i := range want {
		if int(got[i]) != want[i] {
			t.Fatalf("rep %d: Ranks32(%v)[%d] = %d, want %d", rep, scores, i, got[i], want[i])
		}
	}
}

// BenchmarkRanks32 ranks 10^6 scores as a table's outputs do.
func BenchmarkRanks32(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	scores := make([]float64, 1_000_000)
	for i := range scores {
		scores[i] = rng.NormFloat64()
	}
	b.ResetTimer()
	for range b.N {
		Ranks32(scores)
	}
}

// BenchmarkRanks ranks 10^6 scores, one epoch's host work at that size.
func BenchmarkRanks(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	scores := make([]float64, 1_000_000)
	for i := range scores {
		scores[i] = float64(float32(rng.ExpFloat64()))
	}
	b.ResetTimer()
	for range b.N {
		Ranks(scores)
	}
}

package dynamics

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
)

// crossingsSlow counts the sets of Eq. (4) literally, one δ at a time: O(n²).
func crossingsSlow(prev, cur []int) []int {
	n := len(prev)
	counts := make([]int, n+1)
	for d := 0; d <= n; d++ {
		for i := range prev {
			nToA := prev[i] < d && cur[i] >= d
			aToN := prev[i] >= d && cur[i] < d
			if nToA || aToN {
				counts[d]++
			}
		}
	}
	return counts
}

// argminSlow returns every δ in [2, n−1] at which counts[δ]/(δ(n−δ)) is minimal, and
// the minimum, in exact rational arithmetic.
func argminSlow(counts []int) ([]int, *big.Rat) {
	n := len(counts) - 1
	var tied []int
	var best *big.Rat
	for d := 2; d <= n-1; d++ {
		v := big.NewRat(int64(counts[d]), int64(d*(n-d)))
		switch {
		case best == nil || v.Cmp(best) < 0:
			best, tied = v, []int{d}
		case v.Cmp(best) == 0:
			tied = append(tied, d)
		}
	}
	return tied, best
}

// perm returns a random ranking of n rows.
func perm(rng *rand.Rand, n int) []int {
	r := rng.Perm(n)
	for i := range r {
		r[i]++
	}
	return r
}

// nearby returns r with `swaps` random swaps of ranks at most `reach` apart: the small
// re-rankings of a network that has nearly converged, which leave many zero counts.
func nearby(rng *rand.Rand, r []int, swaps, reach int) []int {
	n := len(r)
	pos := make([]int, n+1) // pos[rank] = row
	for i, k := range r {
		pos[k] = i
	}
	out := slices.Clone(r)
	for range swaps {
		a := 1 + rng.IntN(n)
		b := min(n, a+rng.IntN(reach+1))
		i, j := pos[a], pos[b]
		out[i], out[j] = out[j], out[i]
		pos[a], pos[b] = j, i
	}
	return out
}

// TestEq5ByHand works Eqs. (4)–(5) by hand on six rows A..F (rows 0..5).
func TestEq5ByHand(t *testing.T) {
	tests := []struct {
		name      string
		prev, cur []int
		counts    []int
		minScaled float64
		ties      int
		smallest  int
		largest   int
		median    int
	}{
		{
			// r^{e−1} = A1 B2 C3 D4 E5 F6, r^e = A2 B1 C3 D6 E4 F5.
			// δ=2: N^{e−1} = {A}, N^e = {B}: N→N ∅, N→A {A}, A→N {B}, A→A {C,D,E,F};
			//      2/(2·4) = 0.25.
			// δ=3: N^{e−1} = N^e = {A,B}: N→A = A→N = ∅; 0/(3·3) = 0.
			// δ=4: N^{e−1} = N^e = {A,B,C}: 0/(4·2) = 0.
			// δ=5: N^{e−1} = {A,B,C,D}, N^e = {A,B,C,E}: N→A {D}, A→N {E}; 2/(5·1) = 0.4.
			// δ=6: N→A {D}, A→N {F}: count 2, area 6·0 = 0, outside the search.
			// Minimum 0 at δ ∈ {3, 4}: two ties.
			name:   "swaps at both ends, tie in the middle",
			prev:   []int{1, 2, 3, 4, 5, 6},
			cur:    []int{2, 1, 3, 6, 4, 5},
			counts: []int{0, 0, 2, 0, 0, 2, 2},
			ties:   2, smallest: 3, largest: 4, median: 3,
		},
		{
			// Reversal: row i goes from rank i to 7−i and crosses every δ in
			// (min, max]. δ=2: {A}→A, {F}→N: 2, 2/8 = 0.25; δ=3: 4, 4/9; δ=4: 6, 6/8;
			// δ=5: 4, 4/5; δ=6: 2. Every count is the bound 2·min(δ−1, n−δ+1), yet the
			// scaling makes δ=2 the unique minimum: the ends still win under chaos.
			name:      "reversal",
			prev:      []int{1, 2, 3, 4, 5, 6},
			cur:       []int{6, 5, 4, 3, 2, 1},
			counts:    []int{0, 0, 2, 4, 6, 4, 2},
			minScaled: 0.25,
			ties:      1, smallest: 2, largest: 2, median: 2,
		},
		{
			// r^{e−1} = A3 B1 C6 D2 E4 F5, r^e = A1 B2 C6 D3 E5 F4 (rows shuffled).
			// Intervals (min, max]: A (1,3], B (1,2], D (2,3], E (4,5], F (4,5].
			// δ=2: N^{e−1} = {B}, N^e = {A}: N→A {B}, A→N {A}: 2/8 = 0.25.
			// δ=3: N^{e−1} = {B,D}, N^e = {A,B}: N→A {D}, A→N {A}: 2/9.
			// δ=4: N^{e−1} = N^e = {A,B,D}: 0/8 = 0.
			// δ=5: N^{e−1} = {A,B,D,E}, N^e = {A,B,D,F}: N→A {E}, A→N {F}: 2/5.
			// Unique minimum 0 at δ = 4: D_N = rows below 4 in both epochs = {A,B,D}.
			name:   "unique interior minimum",
			prev:   []int{3, 1, 6, 2, 4, 5},
			cur:    []int{1, 2, 6, 3, 5, 4},
			counts: []int{0, 0, 2, 2, 0, 2, 0},
			ties:   1, smallest: 4, largest: 4, median: 4,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Crossings(tt.prev, tt.cur); !slices.Equal(got, tt.counts) {
				t.Fatalf("Crossings = %v, want %v", got, tt.counts)
			}
			for rule, want := range map[TieRule]int{TieSmallest: tt.smallest, TieLargest: tt.largest, TieMedian: tt.median} {
				res, err := Search(tt.prev, tt.cur, rule)
				if err != nil {
					t.Fatal(err)
				}
				if res.Delta != want || res.Ties != tt.ties || res.MinScaled != tt.minScaled {
					t.Errorf("%v: got %+v, want δ=%d ties=%d min=%v", rule, res, want, tt.ties, tt.minScaled)
				}
			}
		})
	}
}

func TestCrossingsMatchesEq4(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	sizes := []int{1, 2, 3, 4, 5, 6, 7, 10, 31, 100, 1000, 2500}
	for _, n := range sizes {
		reps := max(1, 2000/n)
		for rep := range reps {
			prev := perm(rng, n)
			pairs := map[string][]int{
				"random":   perm(rng, n),
				"nearby":   nearby(rng, prev, 1+rng.IntN(n), 1+rng.IntN(3)),
				"same":     slices.Clone(prev),
				"reversed": nil,
			}
			rev := make([]int, n)
			for i, r := range prev {
				rev[i] = n + 1 - r
			}
			pairs["reversed"] = rev
			for kind, cur := range pairs {
				got := Crossings(prev, cur)
				want := crossingsSlow(prev, cur)
				if !slices.Equal(got, want) {
					t.Fatalf("n=%d rep=%d %s: Crossings = %v, want %v", n, rep, kind, got, want)
				}
				for d, c := range got {
					bound := 0
					if d >= 2 {
						bound = 2 * min(d-1, n-d+1)
					}
					if c%2 != 0 || c > bound {
						t.Fatalf("n=%d %s: count %d at δ=%d: want even and ≤ %d", n, kind, c, d, bound)
					}
					switch {
					case kind == "same" && c != 0:
						t.Fatalf("n=%d: unchanged ranks cross δ=%d %d times", n, d, c)
					case kind == "reversed" && c != bound:
						t.Fatalf("n=%d: reversal crosses δ=%d %d times, want the maximum %d", n, d, c, bound)
					}
				}
				if n >= 3 {
					checkSearch(t, fmt.Sprintf("n=%d %s", n, kind), got)
				}
			}
		}
	}
}

// checkSearch compares SearchCounts with the exact brute force for every tie rule.
func checkSearch(t *testing.T, name string, counts []int) {
	t.Helper()
	tied, best := argminSlow(counts)
	bestF, _ := best.Float64()
	want := map[TieRule]int{TieSmallest: tied[0], TieLargest: tied[len(tied)-1], TieMedian: tied[(len(tied)-1)/2]}
	for rule, d := range want {
		res, err := SearchCounts(counts, rule)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Delta != d || res.Ties != len(tied) || res.MinScaled != bestF {
			t.Fatalf("%s %v: got %+v, want δ=%d ties=%d min=%v", name, rule, res, d, len(tied), bestF)
		}
	}
}

func TestSearchCountsTies(t *testing.T) {
	tests := []struct {
		name   string
		counts []int // n = 8: areas δ(8−δ) for δ = 2..7 are 12, 15, 16, 15, 12, 7
		want   [3]int
		ties   int
	}{
		{"three zeros", []int{0, 0, 0, 4, 0, 9, 0, 5, 0}, [3]int{2, 6, 4}, 3},
		{"two zeros, lower median", []int{0, 0, 0, 4, 0, 9, 2, 5, 0}, [3]int{2, 4, 2}, 2},
		{"equal non-zero rationals 3/12 = 4/16 = 3/12", []int{0, 0, 3, 15, 4, 15, 3, 7, 0}, [3]int{2, 6, 4}, 3},
		{"every δ ties", make([]int, 9), [3]int{2, 7, 4}, 6},
		{"n = 3 has one δ", []int{0, 0, 2, 0}, [3]int{2, 2, 2}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i, rule := range []TieRule{TieSmallest, TieLargest, TieMedian} {
				res, err := SearchCounts(tt.counts, rule)
				if err != nil {
					t.Fatal(err)
				}
				if res.Delta != tt.want[i] || res.Ties != tt.ties {
					t.Errorf("%v: δ=%d ties=%d, want δ=%d ties=%d", rule, res.Delta, res.Ties, tt.want[i], tt.ties)
				}
			}
		})
	}
}

func TestSearchCountsErrors(t *testing.T) {
	tests := []struct {
		name   string
		counts []int
		ties   TieRule
		want   error
	}{
		{"no rows", nil, TieSmallest, ErrTooFewRows},
		{"n = 2 leaves no δ in [2, n−1]", []int{0, 0, 0}, TieSmallest, ErrTooFewRows},
		{"unknown tie rule", []int{0, 0, 0, 0}, TieRule(7), ErrOption},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := SearchCounts(tt.counts, tt.ties); !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestCompareScaledExact checks the 128-bit comparison against big.Rat at n = 10⁷, where
// the cross products overflow int64, on random pairs and on exact ties.
func TestCompareScaledExact(t *testing.T) {
	const n = 10_000_000
	rng := rand.New(rand.NewPCG(7, 8))
	for range 20000 {
		a, b := 2+rng.IntN(n-2), 2+rng.IntN(n-2)
		ca, cb := rng.IntN(n+1), rng.IntN(n+1)
		if rng.IntN(4) == 0 { // an exact tie: counts proportional to the areas
			g := int(new(big.Int).GCD(nil, nil, big.NewInt(int64(a*(n-a))), big.NewInt(int64(b*(n-b)))).Int64())
			ca, cb = a*(n-a)/g, b*(n-b)/g
		}
		want := big.NewRat(int64(ca), int64(a*(n-a))).Cmp(big.NewRat(int64(cb), int64(b*(n-b))))
		if got := compareScaled(ca, a, cb, b, n); got != want {
			t.Fatalf("compareScaled(%d/(%d·%d), %d/(%d·%d)) = %d, want %d", ca, a, n-a, cb, b, n-b, got, want)
		}
	}
}

func TestCrossingsPanics(t *testing.T) {
	tests := []struct {
		name      string
		prev, cur []int
	}{
		{"lengths differ", []int{1, 2}, []int{1}},
		{"rank 0", []int{1, 2}, []int{0, 2}},
		{"rank above n", []int{1, 3}, []int{1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			Crossings(tt.prev, tt.cur)
		})
	}
}

func TestScaledCurve(t *testing.T) {
	got := ScaledCurve([]int{0, 0, 2, 0, 0, 2, 2})
	want := []float64{math.NaN(), math.NaN(), 0.25, 0, 0, 0.4, math.NaN()}
	for d := range want {
		if got[d] != want[d] && !(math.IsNaN(got[d]) && math.IsNaN(want[d])) {
			t.Errorf("δ=%d: %v, want %v", d, got[d], want[d])
		}
	}
}

func TestParseTieRule(t *testing.T) {
	for _, rule := range []TieRule{TieSmallest, TieLargest, TieMedian} {
		if got, err := ParseTieRule(rule.String()); err != nil || got != rule {
			t.Errorf("ParseTieRule(%q) = %v, %v", rule.String(), got, err)
		}
	}
	if _, err := ParseTieRule("first"); !errors.Is(err, ErrOption) {
		t.Errorf("ParseTieRule(first): err = %v, want ErrOption", err)
	}
	if s := TieRule(9).String(); s != "TieRule(9)" {
		t.Errorf("TieRule(9).String() = %q", s)
	}
}

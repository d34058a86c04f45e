package dynamics

import (
	"fmt"
	"math"
	"math/bits"
)

// Crossings returns, for every rank threshold δ = 0..n, the number of rows whose ranking
// changes significantly between two epochs: counts[δ] = |D_{N→A}^{e,δ}| + |D_{A→N}^{e,δ}|,
// the numerator of Eq. (5) with the sets of Eq. (4). prev and cur are r^{e−1} and r^e,
// each a permutation of 1..n.
//
// A row whose rank goes from a to b lies in D_{N→A} for a < δ ≤ b and in D_{A→N} for
// b < δ ≤ a, so it is counted exactly for δ ∈ (min(a,b), max(a,b)]. One +1/−1 per row in
// a difference array and a prefix sum give every δ at once: O(n) time and memory.
//
// Because |N| = δ−1 in both epochs, |D_{N→A}| = |D_{A→N}|: every count is even and at
// most 2·min(δ−1, n−δ+1); counts[0] = counts[1] = 0. Crossings panics if the lengths
// differ or a rank lies outside [1, n].
func Crossings(prev, cur []int) []int {
	n := len(prev)
	if len(cur) != n {
		panic(fmt.Sprintf("dynamics: Crossings: %d ranks in epoch e−1, %d in epoch e", n, len(cur)))
	}
	// diff has one extra slot for max = n; counts[δ] = Σ_{d ≤ δ} diff[d].
	diff := make([]int, n+2)
	for i, a := range prev {
		b := cur[i]
		if a < 1 || a > n || b < 1 || b > n {
			panic(fmt.Sprintf("dynamics: Crossings: row %d: ranks (%d, %d) outside [1, %d]", i, a, b, n))
		}
		lo, hi := min(a, b), max(a, b)
		diff[lo+1]++
		diff[hi+1]--
	}
	sum := 0
	for d := range n + 1 {
		sum += diff[d]
		diff[d] = sum
	}
	return diff[:n+1]
}

// ScaledCurve returns the objective of Eq. (5) for δ = 0..n: counts[δ] / (δ·(n−δ)) where
// n = len(counts)−1, NaN outside the searched range [2, n−1] (see Search). counts is a
// Crossings result, or a sum of them over epochs: the scale does not depend on the epoch,
// so the scaled sum is the sum of the scaled curves (the paper's Fig. 3).
func ScaledCurve(counts []int) []float64 {
	n := len(counts) - 1
	curve := make([]float64, len(counts))
	for d := range curve {
		if d < 2 || d > n-1 {
			curve[d] = math.NaN()
			continue
		}
		curve[d] = float64(counts[d]) / float64(d*(n-d))
	}
	return curve
}

// TieRule says which δ Eq. (5) returns when several δ share the minimum.
type TieRule int

const (
	// TieSmallest takes the smallest tied δ, as an argmin that keeps the first hit does.
	TieSmallest TieRule = iota
	// TieLargest takes the largest tied δ.
	TieLargest
	// TieMedian takes the lower median of the tied δ: the ⌈k/2⌉-th smallest of k.
	TieMedian
)

var tieNames = [...]string{TieSmallest: "smallest", TieLargest: "largest", TieMedian: "median"}

func (t TieRule) valid() bool { return t >= 0 && int(t) < len(tieNames) }

// String returns the rule's flag spelling: "smallest", "largest" or "median".
func (t TieRule) String() string {
	if !t.valid() {
		return fmt.Sprintf("TieRule(%d)", int(t))
	}
	return tieNames[t]
}

// ParseTieRule is the inverse of TieRule.String.
func ParseTieRule(s string) (TieRule, error) {
	for t, name := range tieNames {
		if s == name {
			return TieRule(t), nil
		}
	}
	return 0, fmt.Errorf("dynamics: tie rule %q: %w", s, ErrOption)
}

// SearchResult is the outcome of one threshold search.
type SearchResult struct {
	Delta     int     // δ^{e*} in [2, n−1]: ranks below it are pseudo-normal
	MinScaled float64 // the minimum of the objective, Eq. (5) for the paper's rule
	Ties      int     // how many δ in [2, n−1] share that minimum exactly (≥ 1)
}

// Search runs the threshold search of Eq. (5) on the ranks of two adjacent epochs:
// SearchCounts(Crossings(prev, cur), ties).
func Search(prev, cur []int, ties TieRule) (SearchResult, error) {
	return SearchCounts(Crossings(prev, cur), ties)
}

// SearchCounts returns the δ in [2, n−1] that minimises counts[δ] / (δ·(n−δ)), Eq. (5),
// where n = len(counts)−1 and counts is a Crossings result (or a sum of them).
//
// The paper searches δ ∈ {2, …, n}; δ = n has area δ·(n−δ) = 0, so it is left out, and
// δ = 1 (an empty N, count 0) would always win, so it is left out too; n < 3 leaves no δ
// and returns ErrTooFewRows. Values are compared exactly as rationals (128-bit cross
// products), so ties are real ties, not rounding accidents; ties picks among them. O(n),
// no allocation.
func SearchCounts(counts []int, ties TieRule) (SearchResult, error) {
	n := len(counts) - 1
	if n < 3 {
		return SearchResult{}, fmt.Errorf("dynamics: δ search over %d rows: %w", max(n, 0), ErrTooFewRows)
	}
	if !ties.valid() {
		return SearchResult{}, fmt.Errorf("dynamics: %v: %w", ties, ErrOption)
	}
	best, first, last, k := 2, 2, 2, 1
	for d := 3; d <= n-1; d++ {
		switch c := compareScaled(counts[d], d, counts[best], best, n); {
		case c < 0:
			best, first, last, k = d, d, d, 1
		case c == 0:
			last = d
			k++
		}
	}
	res := SearchResult{MinScaled: float64(counts[best]) / float64(best*(n-best)), Ties: k}
	switch ties {
	case TieSmallest:
		res.Delta = first
	case TieLargest:
		res.Delta = last
	case TieMedian:
		want := (k + 1) / 2
		for d := first; d <= last; d++ {
			if compareScaled(counts[d], d, counts[best], best, n) == 0 {
				if want--; want == 0 {
					res.Delta = d
					break
				}
			}
		}
	}
	return res, nil
}

// compareScaled compares ca/(a(n−a)) with cb/(b(n−b)) exactly, for counts ca, cb ≥ 0.
// The cross products reach n³/4, beyond 64 bits for n ≳ 2.6·10⁶, hence 128-bit products.
func compareScaled(ca, a, cb, b, n int) int {
	ah, al := bits.Mul64(uint64(ca), uint64(b*(n-b)))
	bh, bl := bits.Mul64(uint64(cb), uint64(a*(n-a)))
	switch {
	case ah < bh || ah == bh && al < bl:
		return -1
	case ah > bh || al > bl:
		return 1
	}
	return 0
}

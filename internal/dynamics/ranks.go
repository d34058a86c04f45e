package dynamics

import "math"

// Ranks returns the ranking r_i of every score in ascending order (Section IV-A): a
// permutation of 1..n in which rank 1 is the most normal row (lowest score) and rank n
// the most anomalous.
//
// Equal scores are ranked by row index, the lower index first, so the ranking is a
// deterministic function of the scores. A network whose scores have collapsed to one
// value therefore yields the identity ranking in every epoch. NaN ranks after every
// number (NaNs among themselves by row index); the selectors reject non-finite scores
// before ranking.
//
// It runs every epoch on every row, so it is an O(n) radix sort rather than a comparison
// sort: least significant byte first over sortKey, stable, starting from row order, so
// equal keys keep the lower index first.
func Ranks(scores []float64) []int {
	n := len(scores)
	if n == 0 {
		return []int{}
	}
	keys, keys2 := make([]uint64, n), make([]uint64, n)
	order, tmp := make([]int, n), make([]int, n)
	var counts [8][256]int
	for i, s := range scores {
		k := sortKey(s)
		keys[i], order[i] = k, i
		for p := range counts {
			counts[p][byte(k>>(8*p))]++
		}
	}
	for p := range counts {
		c := &counts[p]
		if c[byte(keys[0]>>(8*p))] == n {
			continue // every key has this byte: the pass would not move a row
		}
		sum := 0
		for b, m := range c {
			c[b], sum = sum, sum+m
		}
		for i, k := range keys {
			b := byte(k >> (8 * p))
			keys2[c[b]], tmp[c[b]] = k, order[i]
			c[b]++
		}
		keys, keys2 = keys2, keys
		order, tmp = tmp, order
	}
	ranks := tmp
	for r, i := range order {
		ranks[i] = r + 1
	}
	return ranks
}

// sortKey maps a score to a uint64 whose unsigned order is the ranking's order: the IEEE
// 754 bits with the sign bit set for positive numbers and every bit flipped for negative
// ones; -0 maps as +0 (they are equal scores) and every NaN to the largest key, after +Inf.
func sortKey(x float64) uint64 {
	if math.IsNaN(x) {
		return math.MaxUint64
	}
	if x == 0 {
		x = 0 // -0 == +0
	}
	b := math.Float64bits(x)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// Ranks32 is Ranks at a quarter of its memory, for a table's outputs: two int32 buffers
// (8 bytes a row, one of them returned) instead of Ranks' keys and orders (32 bytes a
// row). Each pass reads the keys through the order, out of row order, so it is slower
// than Ranks (which runs every epoch); it runs once per output. At 10^7 rows Ranks'
// buffers were the peak of a whole fit's memory. The ranking is Ranks' own, rank for
// rank; n must fit an int32.
func Ranks32(scores []float64) []int32 {
	n := len(scores)
	if n == 0 {
		return []int32{}
	}
	if n > math.MaxInt32 {
		panic("dynamics: Ranks32 of more than 2^31-1 scores") // a programming error: callers hold at most a table's rows
	}
	order, tmp := make([]int32, n), make([]int32, n)
	var counts [8][256]int
	for i, s := range scores {
		k := sortKey(s)
		order[i] = int32(i)
		for p := range counts {
			counts[p][byte(k>>(8*p))]++
		}
	}
	first := sortKey(scores[0])
	for p := range counts {
		c := &counts[p]
		if c[byte(first>>(8*p))] == n {
			continue // every key has this byte: the pass would not move a row
		}
		sum := 0
		for b, m := range c {
			c[b], sum = sum, sum+m
		}
		for _, i := range order {
			b := byte(sortKey(scores[i]) >> (8 * p))
			tmp[c[b]] = i
			c[b]++
		}
		order, tmp = tmp, order
	}
	ranks := tmp
	for r, i := range order {
		ranks[i] = int32(r + 1)
	}
	return ranks
}

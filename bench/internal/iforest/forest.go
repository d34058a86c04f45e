package iforest

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
)

// Sentinel errors, wrapped with details; branch with errors.Is.
var (
	// ErrShape reports a matrix whose length is not n·d, or n < 2, or d < 1.
	ErrShape = errors.New("bad matrix shape")
	// ErrNonFinite reports a NaN or infinite value in the data.
	ErrNonFinite = errors.New("value is NaN or infinite")
	// ErrOptions reports a negative option.
	ErrOptions = errors.New("invalid options")
)

// Options configures Fit. The zero value is the papers' setting with seed 0.
type Options struct {
	// Trees is the number of isolation trees t; 0 means 100.
	Trees int
	// Subsample is the subsample size ψ of each tree, capped at n; 0 means
	// 256.
	Subsample int
	// Seed seeds the PCG generator that draws subsamples and splits.
	Seed uint64
}

// DefaultOptions returns t = 100, ψ = 256, seed 0.
func DefaultOptions() Options { return Options{Trees: 100, Subsample: 256} }

// Validate reports negative trees or subsample sizes.
func (o Options) Validate() error {
	if o.Trees < 0 || o.Subsample < 0 {
		return fmt.Errorf("iforest: trees %d, subsample %d: %w", o.Trees, o.Subsample, ErrOptions)
	}
	return nil
}

// Forest is a fitted isolation forest.
type Forest struct {
	d     int
	psi   int     // subsample size ψ
	norm  float64 // c(ψ)
	trees [][]node
}

// node is one node of an isolation tree, stored in a flat slice with the
// root first. An external node has feature −1 and keeps its size.
type node struct {
	feature     int32
	left, right int32
	size        int32
	split       float64
}

// eulerGamma is the Euler–Mascheroni constant γ of H(i) ≈ ln i + γ.
const eulerGamma = 0.5772156649

// averagePathLength is c(n) = 2H(n−1) − 2(n−1)/n, the average path length
// of an unsuccessful search in a binary search tree of n points (Eq. 1 of
// the 2008 paper), with H(i) ≈ ln i + γ; c(1) = 0, and c(2) = 1 exactly,
// where the approximation of H(1) = 1 by γ would be poor (scikit-learn does
// the same).
func averagePathLength(n int) float64 {
	switch {
	case n <= 1:
		return 0
	case n == 2:
		return 1
	}
	m := float64(n)
	return 2*(math.Log(m-1)+eulerGamma) - 2*(m-1)/m
}

// Fit grows the forest on the n×d row-major matrix x.
func Fit(x []float64, n, d int, opts Options) (*Forest, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if n < 2 || d < 1 || len(x) != n*d {
		return nil, fmt.Errorf("iforest: %d values for %d×%d: %w", len(x), n, d, ErrShape)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("iforest: row %d, column %d: %v: %w", i/d+1, i%d+1, v, ErrNonFinite)
		}
	}
	t, psi := opts.Trees, opts.Subsample
	if t == 0 {
		t = 100
	}
	if psi == 0 {
		psi = 256
	}
	psi = min(psi, n)
	f := &Forest{d: d, psi: psi, norm: averagePathLength(psi), trees: make([][]node, t)}
	b := builder{
		x:     x,
		d:     d,
		limit: bits.Len(uint(psi - 1)), // ⌈log₂ ψ⌉
		rng:   rand.New(rand.NewPCG(opts.Seed, 0x1f0e57)),
	}
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	for k := range f.trees {
		// A partial Fisher–Yates shuffle draws ψ rows without replacement.
		for i := range psi {
			j := i + b.rng.IntN(n-i)
			perm[i], perm[j] = perm[j], perm[i]
		}
		rows := append([]int(nil), perm[:psi]...)
		b.nodes = nil
		b.grow(rows, 0)
		f.trees[k] = b.nodes
	}
	return f, nil
}

// builder holds what growing one tree needs.
type builder struct {
	x     []float64
	d     int
	limit int
	rng   *rand.Rand
	nodes []node
	lo    []float64
	hi    []float64
}

// grow appends the iTree of rows at depth e (Algorithm 2 of the 2008 paper)
// and returns its index. The split attribute is drawn uniformly among the
// attributes that are not constant on rows: an attribute the paper's
// uniform draw would pick but could not split on would only add a level.
// A node with no such attribute is external.
func (b *builder) grow(rows []int, e int) int32 {
	id := int32(len(b.nodes))
	b.nodes = append(b.nodes, node{feature: -1, size: int32(len(rows))})
	if e >= b.limit || len(rows) <= 1 {
		return id
	}
	b.lo, b.hi = b.lo[:0], b.hi[:0]
	for j := range b.d {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, r := range rows {
			v := b.x[r*b.d+j]
			lo, hi = min(lo, v), max(hi, v)
		}
		b.lo, b.hi = append(b.lo, lo), append(b.hi, hi)
	}
	varying := 0
	for j := range b.d {
		if b.lo[j] < b.hi[j] {
			varying++
		}
	}
	if varying == 0 {
		return id
	}
	q := 0
	for pick := b.rng.IntN(varying); ; q++ {
		if b.lo[q] < b.hi[q] {
			if pick == 0 {
				break
			}
			pick--
		}
	}
	// p uniform in (lo, hi]; a draw of exactly lo would leave the left empty.
	lo, hi := b.lo[q], b.hi[q]
	p := lo
	for p <= lo {
		p = lo + b.rng.Float64()*(hi-lo)
	}
	// Partition rows in place: x_q < p to the left.
	i := 0
	for k, r := range rows {
		if b.x[r*b.d+q] < p {
			rows[i], rows[k] = rows[k], rows[i]
			i++
		}
	}
	left := b.grow(rows[:i], e+1)
	right := b.grow(rows[i:], e+1)
	b.nodes[id] = node{feature: int32(q), split: p, left: left, right: right, size: int32(len(rows))}
	return id
}

// pathLength is h(x) of Algorithm 3: the edges from the root to x's
// external node plus c(size) for the unbuilt subtree of its size rows.
func pathLength(tree []node, row []float64) float64 {
	k, e := int32(0), 0
	for tree[k].feature >= 0 {
		nd := tree[k]
		if row[nd.feature] < nd.split {
			k = nd.left
		} else {
			k = nd.right
		}
		e++
	}
	return float64(e) + averagePathLength(int(tree[k].size))
}

// Score returns s(x) = 2^(−E[h(x)]/c(ψ)) (Eq. 2 of the 2008 paper) for the
// m rows of the row-major matrix x, which must have the forest's d
// columns; scores lie in (0, 1), higher being more anomalous. It panics on
// a length other than m·d.
func (f *Forest) Score(x []float64, m int) []float64 {
	if len(x) != m*f.d {
		panic(fmt.Sprintf("iforest: %d values for %d rows of %d columns", len(x), m, f.d))
	}
	s := make([]float64, m)
	for i := range s {
		row := x[i*f.d : (i+1)*f.d]
		var sum float64
		for _, t := range f.trees {
			sum += pathLength(t, row)
		}
		s[i] = math.Exp2(-sum / float64(len(f.trees)) / f.norm)
	}
	return s
}

// Dim returns the number of columns d the forest was fitted on.
func (f *Forest) Dim() int { return f.d }

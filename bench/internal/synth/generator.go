package synth

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// Random streams of the PCG generator, one per use, so that a table's
// anomalies do not depend on what else was generated before.
const (
	streamNormals uint64 = 1       // the MaxNormals subsample
	streamFitRows uint64 = 2       // the MaxFitRows subsample
	streamMixture uint64 = 16      // + K: the k-means++ start of a K-component fit
	streamTable   uint64 = 1 << 32 // + a hash of (kind, ratio): a table
)

// Generator makes semi-synthetic tables from the normal rows of one real
// data set: it measures the normals once (and fits their Gaussian mixture
// on first need), then Table generates any kind and ratio cheaply. It is
// safe for concurrent use.
type Generator struct {
	n, d     int
	x        []float64 // the n×d normals kept in every table, row-major
	seed     uint64
	opts     Options  // defaults filled in
	base     string   // the base data set's name, for Dataset
	features []string // the base data set's feature names, nil for x1…xd

	mean, scale []float64 // per feature: mean and population std (0 if constant)
	lo, hi      []float64 // per feature: min and max
	bandwidth   []float64 // per feature: Scott's KDE bandwidth

	fitOnce sync.Once
	mix     *mixture
	fitErr  error
}

// NewGenerator returns a Generator over n normal rows of d features
// (normals is row-major, n·d values, all finite; it is copied). The seed
// fixes the MaxNormals subsample and the mixture fit.
func NewGenerator(normals []float64, n, d int, seed uint64, opts Options) (*Generator, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if n < 1 || d < 1 || len(normals) != n*d {
		return nil, fmt.Errorf("synth: %d values for %d×%d normals: %w", len(normals), n, d, ErrInput)
	}
	for k, v := range normals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("synth: normal row %d, column %d is %v: %w", k/d+1, k%d+1, v, ErrInput)
		}
	}
	g := &Generator{d: d, seed: seed, opts: opts.withDefaults()}
	rows := subsample(n, opts.MaxNormals, rand.New(rand.NewPCG(seed, streamNormals)))
	g.n = len(rows)
	g.x = make([]float64, 0, g.n*d)
	for _, i := range rows {
		g.x = append(g.x, normals[i*d:(i+1)*d]...)
	}
	g.measure()
	return g, nil
}

// subsample returns the sorted indices of a uniform random subset of limit
// of 0…n−1, or all of them when limit is 0 or at least n.
func subsample(n, limit int, rng *rand.Rand) []int {
	if limit == 0 || limit >= n {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	idx := rng.Perm(n)[:limit]
	slices.Sort(idx)
	return idx
}

// measure computes the per-feature statistics of the kept normals.
func (g *Generator) measure() {
	n, d := g.n, g.d
	g.mean, g.scale = make([]float64, d), make([]float64, d)
	g.lo, g.hi = make([]float64, d), make([]float64, d)
	g.bandwidth = make([]float64, d)
	for j := 0; j < d; j++ {
		lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
		for i := 0; i < n; i++ {
			v := g.x[i*d+j]
			lo, hi, sum = min(lo, v), max(hi, v), sum+v
		}
		g.lo[j], g.hi[j] = lo, hi
		if lo == hi {
			g.mean[j] = lo // scale and bandwidth stay 0: a constant column stays constant
			continue
		}
		m := sum / float64(n)
		var ss float64
		for i := 0; i < n; i++ {
			t := g.x[i*d+j] - m
			ss += t * t
		}
		g.mean[j], g.scale[j] = m, math.Sqrt(ss/float64(n))
		// Scott's rule for one dimension, h = σ̂·n^(−1/5) with the sample
		// (n−1) standard deviation, as scipy's gaussian_kde behind the
		// copulas GaussianKDE that ADBench uses.
		g.bandwidth[j] = math.Sqrt(ss/float64(n-1)) * math.Pow(float64(n), -0.2)
	}
}

// Normals returns the number of normal rows in every table.
func (g *Generator) Normals() int { return g.n }

// Components returns the number of mixture components BIC chose, fitting
// the mixture if no table needed it yet.
func (g *Generator) Components() (int, error) {
	m, err := g.mixture()
	if err != nil {
		return 0, err
	}
	return m.components(), nil
}

// mixture fits, once, the Gaussian mixture of the standardised normals (at
// most MaxFitRows of them), choosing K by BIC.
func (g *Generator) mixture() (*mixture, error) {
	g.fitOnce.Do(func() {
		rows := subsample(g.n, g.opts.MaxFitRows, rand.New(rand.NewPCG(g.seed, streamFitRows)))
		z := mat.NewDense(len(rows), g.d, nil)
		for r, i := range rows {
			zr := z.RawRowView(r)
			for j := range zr {
				zr[j] = g.standardise(j, g.x[i*g.d+j])
			}
		}
		cfg := emConfig{maxIter: g.opts.MaxIter, tol: g.opts.Tol, reg: g.opts.Reg}
		g.mix, g.fitErr = selectMixture(z, g.opts.MaxComponents, g.seed, cfg)
		if g.fitErr != nil {
			g.fitErr = fmt.Errorf("synth: fitting the mixture: %w", g.fitErr)
		}
	})
	return g.mix, g.fitErr
}

// standardise maps x_j to (x_j − mean_j)/scale_j; a constant column maps
// to 0.
func (g *Generator) standardise(j int, v float64) float64 {
	if g.scale[j] == 0 {
		return 0
	}
	return (v - g.mean[j]) / g.scale[j]
}

// Table returns a table of the normals plus AnomalyCount(Normals(), ratio)
// anomalies of the given kind, its rows shuffled: x is row-major
// (Normals()+anomalies)×d, y is 1 for the anomalies. The same generator,
// kind, ratio and seed give the same table.
func (g *Generator) Table(kind Kind, ratio float64, seed uint64) (x []float64, y []int, err error) {
	x, y, _, err = g.TableCauses(kind, ratio, seed)
	return x, y, err
}

// TableCauses is Table, and for the Shifted kind the features each anomaly was made
// from: causes[i] lists row i's shifted features (0-based, increasing), nil for a normal
// row and for every row of the other kinds.
func (g *Generator) TableCauses(kind Kind, ratio float64, seed uint64) (x []float64, y []int, causes [][]int, err error) {
	if err := validate(kind, ratio); err != nil {
		return nil, nil, nil, err
	}
	a := AnomalyCount(g.n, ratio)
	rng := rand.New(rand.NewPCG(seed, streamTable+tableHash(kind, ratio)))
	var (
		anomalies []float64
		made      [][]int // the shifted anomalies' features
	)
	switch kind {
	case Local, Clustered:
		m, err := g.mixture()
		if err != nil {
			return nil, nil, nil, err
		}
		anomalies = g.fromMixture(m, kind, a, rng)
	case Global:
		anomalies = g.global(a, rng)
	case Dependency:
		anomalies = g.dependency(a, rng)
	case Shifted:
		anomalies, made = g.shifted(a, rng)
	}
	total := g.n + a
	x, y = make([]float64, total*g.d), make([]int, total)
	if made != nil {
		causes = make([][]int, total)
	}
	for dst, src := range rng.Perm(total) {
		row := x[dst*g.d : (dst+1)*g.d]
		if src < g.n {
			copy(row, g.x[src*g.d:(src+1)*g.d])
			continue
		}
		copy(row, anomalies[(src-g.n)*g.d:(src-g.n+1)*g.d])
		y[dst] = 1
		if made != nil {
			causes[dst] = made[src-g.n]
		}
	}
	return x, y, causes, nil
}

// tableHash separates the random streams of the tables of one seed.
func tableHash(kind Kind, ratio float64) uint64 {
	h := fnv.New64a()
	h.Write([]byte(kind))
	var b [8]byte
	bits := math.Float64bits(ratio)
	for i := range b {
		b[i] = byte(bits >> (8 * i))
	}
	h.Write(b[:])
	return h.Sum64() >> 32
}

// Generate returns one table of spec's kind and ratio over n normal rows of
// d features; it is NewGenerator(normals, n, d, spec.Seed, opts) followed
// by Table(spec.Kind, spec.Ratio, spec.Seed). To make several tables from
// the same normals, use a Generator, which fits the mixture once.
func Generate(normals []float64, n, d int, spec Spec, opts Options) (x []float64, y []int, err error) {
	if err := spec.Validate(); err != nil {
		return nil, nil, err
	}
	g, err := NewGenerator(normals, n, d, spec.Seed, opts)
	if err != nil {
		return nil, nil, err
	}
	return g.Table(spec.Kind, spec.Ratio, spec.Seed)
}

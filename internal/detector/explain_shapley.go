package detector

import (
	"context"
	"encoding/binary"
	"hash/fnv"
	"math"
	"math/rand/v2"

	"github.com/udocc/udocc/data"
)

// shapley sets out's Features to the Shapley values of the rows of sub (row r of sub is
// out[r]'s row, whose Score and Base are set): the value of a coalition S of features is
// the score of the row with the features outside S set to median, the normal rows'. A
// feature whose value is the median's changes no coalition's score, so its value is 0
// and the game is played by the row's other features, its active ones. For at most
// CheapExactShapleyFeatures active features (ExactShapleyFeatures where exact) and
// samples 0 the values are exact, from the 2^k
// coalitions' scores; otherwise they are estimated from samples permutations
// (DefaultShapleySamples for 0), in antithetic pairs (a permutation and its reverse), each
// of which walks the row's active features from the baseline to the row one at a time
// and credits each feature with what its move adds to the score. Either way the values
// sum to Score − Base (to the scores' rounding: the walk's ends are the two). The scored
// rows go through Model.ScoreDataset in blocks of at most explainBudget values (or one
// row's coalitions or pair of walks), ctx checked between blocks; the permutations are
// drawn from the row's values (rowSeed), so that a row's values depend neither on the
// other rows explained with it nor on its place among them: the CLI and a server
// explain the same row alike.
//
// A model that mixes the Gaussian of its columns into its score (Ensemble.GaussianWeight
// g) plays the sum of two games, and Shapley values add over a sum: the networks' part
// is played as above on the networks' own scores, each credit scaled as the score scales
// them ((1 − g)/s_N), and the Gaussian's part is exact (gaussianShapley). Scoring every
// coalition through the Gaussian would cost its matrix once a scored row.
func (m *Model) shapley(ctx context.Context, out []Attribution, sub *data.Dataset, median []float32, samples int, exact bool) (err error) {
	d := sub.D
	// The networks' game: its value is the model's score, or with a Gaussian the
	// networks' scores on the score's scale; lo and hi are its values of the baseline and
	// of row r.
	scale, value := 1.0, func(ds *data.Dataset) ([]float64, error) {
		v, _, err := m.scoreDataset(ctx, ds, false)
		return v, err
	}
	lo, hi := func(r int) float64 { return out[r].Base }, func(r int) float64 { return out[r].Score }
	if g := m.GaussianWeight(); g > 0 {
		scale = (1 - g) / m.meta.Ensemble.NetworksScale.Spread
		value = func(ds *data.Dataset) ([]float64, error) { return m.networkScores(ctx, ds) }
		ends, err := value(&data.Dataset{Name: sub.Name, N: sub.N + 1, D: d, X: append(append([]float32(nil), sub.X...), median...)})
		if err != nil {
			return err
		}
		lo, hi = func(int) float64 { return ends[sub.N] }, func(r int) float64 { return ends[r] }
		defer func() { // the Gaussian's exact part, added once the networks' game is played
			if err == nil {
				err = m.gaussianShapley(out, sub, median)
			}
		}()
	}
	exactUpTo := CheapExactShapleyFeatures
	if exact {
		exactUpTo = ExactShapleyFeatures
	}
	pairs := DefaultShapleySamples / 2
	if samples > 0 {
		pairs = max(2, (samples+1)/2)
	}
	type unit struct {
		r, q   int   // row, and its pair of permutations (-1: the exact coalitions)
		active []int // the row's active features
		perms  [2][]int
		rows   int // the unit's scored rows
	}
	active := func(r int) []int {
		var a []int
		for j, v := range sub.X[r*d : (r+1)*d] {
			if v != median[j] {
				a = append(a, j)
			}
		}
		return a
	}
	var sumsq [][]float64 // per sampled row, the squares of its pairs' mean credits
	r, q, act := 0, 0, active(0)
	var units []unit
	// A block's scored rows: under explainBudget values before its last unit, whose rows
	// are a row's coalitions or one pair of walks. Sized once, so that building them
	// never copies them to grow.
	unitMax := d * max(2*(d-1), 1<<min(d, exactUpTo))
	x := make([]float32, 0, min(explainBudget, len(out)*pairs*unitMax)+unitMax)
	for r < len(out) {
		if err := ctx.Err(); err != nil {
			return err
		}
		units, x = units[:0], x[:0]
		for r < len(out) && (len(units) == 0 || len(x) < explainBudget) {
			row := sub.X[r*d : (r+1)*d]
			k := len(act)
			if samples == 0 && k <= exactUpTo {
				units = append(units, unit{r: r, q: -1, active: act, rows: 1 << k})
				x = appendCoalitions(x, row, median, act)
			} else {
				if q == 0 {
					if sumsq == nil {
						sumsq = make([][]float64, len(out))
					}
					sumsq[r] = make([]float64, d)
				}
				pi := rand.New(rand.NewPCG(rowSeed(row), uint64(q)+1)).Perm(k)
				u := unit{r: r, q: q, active: act, rows: 2 * max(k-1, 0)}
				u.perms[0], u.perms[1] = make([]int, k), make([]int, k)
				for i, p := range pi {
					u.perms[0][i], u.perms[1][k-1-i] = act[p], act[p]
				}
				units = append(units, u)
				x = appendWalk(x, row, median, u.perms[0])
				x = appendWalk(x, row, median, u.perms[1])
				if q++; q < pairs {
					continue
				}
			}
			r, q = r+1, 0
			if r < len(out) {
				act = active(r)
			}
		}
		var v []float64
		if len(x) > 0 {
			var err error
			if v, err = value(&data.Dataset{Name: sub.Name, N: len(x) / d, D: d, X: x}); err != nil {
				return err
			}
		}
		at := 0
		for _, u := range units {
			vu := v[at : at+u.rows]
			at += u.rows
			a := &out[u.r]
			if u.q < 0 {
				phi := make([]float64, len(u.active))
				exactValues(phi, vu, len(u.active))
				for i, j := range u.active {
					a.Features[j] = scale * phi[i]
				}
				continue
			}
			k := len(u.active)
			c := make([]float64, d) // the pair's mean credit per feature
			for w, p := range u.perms {
				walk := vu[w*max(k-1, 0) : (w+1)*max(k-1, 0)]
				prev := lo(u.r)
				for i, j := range p {
					next := hi(u.r)
					if i < k-1 {
						next = walk[i]
					}
					c[j] += scale * (next - prev) / 2
					prev = next
				}
			}
			for _, j := range u.active {
				a.Features[j] += c[j] / float64(pairs)
				sumsq[u.r][j] += c[j] * c[j]
			}
		}
	}
	n := float64(pairs)
	for r, sq := range sumsq {
		if sq == nil {
			continue
		}
		a := &out[r]
		a.StdErr = make([]float64, d)
		for j, mean := range a.Features {
			v := (sq[j] - n*mean*mean) / (n - 1)
			a.StdErr[j] = math.Sqrt(max(v, 0) / n)
		}
	}
	return nil
}

// appendCoalitions appends to x the 2^k rows of the coalitions of row's k active
// features: coalition s (bit i set where active[i] is in it) is row with the active
// features outside s set to median's.
func appendCoalitions(x, row, median []float32, active []int) []float32 {
	for s := 0; s < 1<<len(active); s++ {
		at := len(x)
		x = append(x, row...)
		for i, j := range active {
			if s&(1<<i) == 0 {
				x[at+j] = median[j]
			}
		}
	}
	return x
}

// appendWalk appends to x the len(p)−1 rows between the baseline and row along the order
// p of row's active features: row k has the features p[0..k] set to row's, the others
// to median's (the inactive ones are the median's in row too).
func appendWalk(x, row, median []float32, p []int) []float32 {
	if len(p) < 2 {
		return x
	}
	d, at := len(row), len(x)
	x = append(x, median...)
	for k, j := range p[:len(p)-1] {
		if k > 0 {
			x = append(x, x[at:at+d]...)
			at += d
		}
		x[at+j] = row[j]
	}
	return x
}

// exactValues sets phi to the Shapley values of the game whose value of coalition s is
// v[s] (bit j of s set where feature j is in it; v has 2^d values):
// φ_j = Σ_{S∌j} |S|!(d−|S|−1)!/d! · (v(S∪{j}) − v(S)).
func exactValues(phi, v []float64, d int) {
	w := make([]float64, d) // w[s] = 1/(d·C(d−1, s))
	for s := range w {
		c := 1.0
		for i := 0; i < s; i++ {
			c = c * float64(d-1-i) / float64(i+1)
		}
		w[s] = 1 / (float64(d) * c)
	}
	for j := range phi {
		phi[j] = 0
	}
	for s := 0; s < 1<<d; s++ {
		size := bitsSet(s)
		for j := 0; j < d; j++ {
			if s&(1<<j) == 0 {
				phi[j] += w[size] * (v[s|1<<j] - v[s])
			}
		}
	}
}

// bitsSet is the number of bits set in s.
func bitsSet(s int) int {
	n := 0
	for ; s != 0; s &= s - 1 {
		n++
	}
	return n
}

// rowSeed is the FNV-1a hash of a row's float32 bits: the seed of its permutations.
func rowSeed(row []float32) uint64 {
	h := fnv.New64a()
	var b [4]byte
	for _, v := range row {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
		h.Write(b[:])
	}
	return h.Sum64()
}

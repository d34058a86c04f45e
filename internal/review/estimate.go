package review

import (
	"math"
	"slices"
	"sort"
	"sync"
)

// Calibrate computes the posterior count, its 80 % interval and the cut from the
// answers.
//
// The model: the chance that the row of rank i is an anomaly is a non-increasing
// logistic curve of x = ln(i/n),
//
//	p(x) = r / (1 + exp(-s (c - x))),
//
// with location c, slope s ≥ 0 and ceiling r. (c, s, r) range over a grid (gridFor);
// ranks are grouped into about 300 log-spaced bins and a row's x is its bin's centre.
// Each grid point implies a share q = Σ_i p(x_i) / n, and the prior is the label-free
// count's ln(q) ~ N(ln Prior.Share, σ²), σ read from Prior's 80 % interval as ±1.2816 σ.
// The posterior over the grid is
//
//	w(c, s, r) ∝ exp(-(ln q - ln Prior.Share)² / 2σ²) · Π_design p(x_j)^y_j (1 - p(x_j))^(1-y_j),
//
// the product over the rows the design asked (Round ≥ 1). The design is ignorable (see
// Next), so this is the full likelihood. Rows the user answered outside the design
// (Round 0) may have been picked for their label, which would bias the curve, so they do
// not enter the likelihood: they are known rows, and the count at a grid point is
//
//	T(c, s, r) = Σ_known y_j + Σ_unknown p(x_i),
//
// the known anomalies plus the curve's expectation over the rows not answered (the
// finite-population form of the Horvitz–Thompson total, each unknown row predicted by
// the model; Särndal, Swensson and Wretman 1992, §6.7). The count is the posterior median
// of T and the interval its 10 % and 90 % quantiles, rounded out to whole rows. The count
// is at least the anomalies answered (and at least 1 while a row is unanswered); with
// every row answered it is exact.
//
// The cut: E(c) = Σ_{i ≤ c} ē_i, with ē_i the answer for a known row and the posterior
// mean of p(x_i) otherwise, and T̄ = E(n). At a cut c the estimated precision is E(c)/c,
// recall E(c)/T̄ and F1 2E(c)/(c + T̄). The candidate cuts are the bins' ends and the ranks
// of the anomalies answered.
func Calibrate(n int, answers []Answer, prior Prior, target Target) (Estimate, error) {
	kn, err := check(n, answers)
	if err != nil {
		return Estimate{}, err
	}
	pr, mu, sd, err := prior.resolve()
	if err != nil {
		return Estimate{}, err
	}
	if err := target.check(); err != nil {
		return Estimate{}, err
	}
	est := Estimate{N: n, Answers: len(kn.label), Anomalies: kn.anom, Prior: pr}
	g := gridFor(n)
	G := len(g.share)

	// Known rows by bin: their answers and counts.
	rows := make([]cutRow, 0, len(kn.label))
	for r, y := range kn.label {
		rows = append(rows, cutRow{r, g.binOf(r), y})
	}
	slices.SortFunc(rows, func(a, b cutRow) int { return a.rank - b.rank })

	// Log posterior over the grid.
	lp := make([]float64, G)
	for j := range G {
		z := (math.Log(max(g.share[j], 1e-300)) - mu) / sd
		lp[j] = -0.5 * z * z
	}
	for _, kr := range rows {
		if !kn.design[kr.rank] {
			continue // the user's row: known, not in the likelihood
		}
		col := g.p[kr.bin*G : (kr.bin+1)*G]
		for j, p := range col {
			p = min(max(p, 1e-9), 1-1e-9)
			if kr.y {
				lp[j] += math.Log(p)
			} else {
				lp[j] += math.Log1p(-p)
			}
		}
	}
	w := make([]float64, G)
	top := slices.Max(lp)
	var sum float64
	for j := range G {
		w[j] = math.Exp(lp[j] - top)
		sum += w[j]
	}
	for j := range w {
		w[j] /= sum
	}

	// T at each grid point, and its posterior quantiles.
	T := make([]float64, G)
	for j := range G {
		T[j] = float64(n) * g.share[j]
	}
	for _, kr := range rows {
		col := g.p[kr.bin*G : (kr.bin+1)*G]
		y := 0.0
		if kr.y {
			y = 1
		}
		for j, p := range col {
			T[j] += y - p
		}
	}
	order := make([]int, G)
	for j := range order {
		order[j] = j
	}
	sort.Slice(order, func(a, b int) bool { return T[order[a]] < T[order[b]] })
	cw := make([]float64, G)
	acc := 0.0
	for i, j := range order {
		acc += w[j]
		cw[i] = acc
	}
	quantile := func(q float64) float64 {
		i := sort.SearchFloat64s(cw, q)
		return T[order[min(i, G-1)]]
	}
	count, lo, hi := quantile(0.5), quantile(0.1), quantile(0.9)
	a := float64(kn.anom)
	if len(kn.label) == n {
		count, lo, hi = a, a, a
	} else {
		count = max(count, a, 1)
		lo = math.Floor(max(lo, a))
		hi = math.Ceil(max(hi, a))
		lo, hi = min(max(lo, 0.5), count), max(hi, count)
	}
	est.Count = count
	est.Share = count / float64(n)
	est.Low, est.High = lo/float64(n), hi/float64(n)

	// Posterior mean of p in each bin, for the cut.
	pbar := make([]float64, len(g.lo))
	for b := range pbar {
		col := g.p[b*G : (b+1)*G]
		s := 0.0
		for j, p := range col {
			s += w[j] * p
		}
		pbar[b] = s
	}
	est.Cut, est.Precision, est.Recall, est.F1 = g.cut(pbar, rows, target)
	return est, nil
}

// cutRow is a known row: its rank, bin and answer.
type cutRow struct {
	rank, bin int
	y         bool
}

// cut picks the cut for target from each bin's expected rate pbar and the known rows
// (sorted by rank); see Calibrate.
func (g *grid) cut(pbar []float64, rows []cutRow, target Target) (cut int, prec, rec, f1 float64) {
	// Candidate cuts: the bins' ends and the ranks of known anomalies.
	cands := slices.Clone(g.hi)
	for _, kr := range rows {
		if kr.y {
			cands = append(cands, kr.rank)
		}
	}
	slices.Sort(cands)
	cands = slices.Compact(cands)
	// E(c) for each candidate: whole bins, the part of c's bin, known rows' corrections.
	cumBin := make([]float64, len(pbar)+1) // expected anomalies in bins < b
	for b := range pbar {
		cumBin[b+1] = cumBin[b] + pbar[b]*float64(g.hi[b]-g.lo[b])
	}
	E := make([]float64, len(cands))
	k := 0
	corr := 0.0
	for i, c := range cands {
		for k < len(rows) && rows[k].rank <= c {
			y := 0.0
			if rows[k].y {
				y = 1
			}
			corr += y - pbar[rows[k].bin]
			k++
		}
		b := g.binOf(c)
		E[i] = cumBin[b] + pbar[b]*float64(c-g.lo[b]) + corr
	}
	total := E[len(E)-1]
	at := func(i int) (int, float64, float64, float64) {
		c := float64(cands[i])
		e := max(E[i], 0)
		if total <= 0 {
			return cands[i], 0, 0, 0
		}
		return cands[i], e / c, min(1, e/total), 2 * e / (c + total)
	}
	best := 0
	switch {
	case target.Precision > 0:
		best = -1
		for i := range cands {
			if _, p, _, _ := at(i); p >= target.Precision {
				best = i // the largest cut meeting the precision
			}
		}
		if best < 0 {
			bp := -1.0
			for i := range cands {
				if _, p, _, _ := at(i); p > bp {
					best, bp = i, p
				}
			}
		}
	case target.Recall > 0:
		best = len(cands) - 1
		for i := range cands {
			if _, _, r, _ := at(i); r >= target.Recall {
				best = i
				break
			}
		}
	default:
		bf := -1.0
		for i := range cands {
			if _, _, _, f := at(i); f > bf {
				best, bf = i, f
			}
		}
	}
	return at(best)
}

func (t Target) check() error {
	switch {
	case t.Precision != 0 && t.Recall != 0:
		return &ArgError{Arg: "target", Value: t.Precision, Want: "Precision or Recall, not both"}
	case t.Precision < 0 || t.Precision > 1 || math.IsNaN(t.Precision):
		return &ArgError{Arg: "target.Precision", Value: t.Precision, Want: "a precision in (0, 1]"}
	case t.Recall < 0 || t.Recall > 1 || math.IsNaN(t.Recall):
		return &ArgError{Arg: "target.Recall", Value: t.Recall, Want: "a recall in (0, 1]"}
	}
	return nil
}

// grid is the curves of the posterior for a table of n rows: the rank bins and, for
// each bin b and grid point j, p[b·G + j], the curve's chance at the bin's centre.
type grid struct {
	n      int
	lo, hi []int     // bin b holds ranks lo[b]+1..hi[b]
	x      []float64 // ln(centre rank / n)
	p      []float64 // len(lo) × G, bin-major
	share  []float64 // q at each grid point
}

// The grid: c from -ln n - 1 to 1 in gridC steps (the curve's half-point anywhere from
// above the top row to beyond the last), s = 0 (a constant rate) or from 0.1 to 20
// geometrically, r on a fixed ladder.
const (
	gridBins = 300
	gridC    = 48
	gridS    = 20
)

var gridR = []float64{0.05, 0.1, 0.2, 0.35, 0.5, 0.7, 0.85, 1.0}

var (
	gridMu    sync.Mutex
	gridCache = map[int]*grid{}
)

// gridFor returns the grid for n rows, cached (a few n at a time).
func gridFor(n int) *grid {
	gridMu.Lock()
	defer gridMu.Unlock()
	if g, ok := gridCache[n]; ok {
		return g
	}
	if len(gridCache) >= 4 {
		clear(gridCache)
	}
	g := newGrid(n)
	gridCache[n] = g
	return g
}

func newGrid(n int) *grid {
	g := &grid{n: n}
	// Bin edges: round(geomspace(1, n+1, gridBins)), distinct.
	var edges []int
	ratio := math.Log(float64(n+1)) / float64(gridBins-1)
	for i := range gridBins {
		e := int(math.Round(math.Exp(ratio * float64(i))))
		if i == gridBins-1 {
			e = n + 1
		}
		if len(edges) == 0 || e > edges[len(edges)-1] {
			edges = append(edges, e)
		}
	}
	for i := 0; i+1 < len(edges); i++ {
		lo, hi := edges[i]-1, edges[i+1]-1
		g.lo = append(g.lo, lo)
		g.hi = append(g.hi, hi)
		g.x = append(g.x, math.Log((float64(lo+hi)/2+0.5)/float64(n)))
	}
	var cs, ss []float64
	c0, c1 := -math.Log(float64(n))-1, 1.0
	for i := range gridC {
		cs = append(cs, c0+(c1-c0)*float64(i)/float64(gridC-1))
	}
	ss = append(ss, 0)
	for i := range gridS {
		ss = append(ss, 0.1*math.Pow(200, float64(i)/float64(gridS-1)))
	}
	type point struct{ c, s, r float64 }
	var pts []point
	for _, c := range cs {
		for _, s := range ss {
			for _, r := range gridR {
				pts = append(pts, point{c, s, r})
			}
		}
	}
	G := len(pts)
	B := len(g.lo)
	g.p = make([]float64, B*G)
	g.share = make([]float64, G)
	for b := range B {
		cnt := float64(g.hi[b] - g.lo[b])
		for j, pt := range pts {
			z := min(max(pt.s*(pt.c-g.x[b]), -50), 50)
			p := pt.r / (1 + math.Exp(-z))
			g.p[b*G+j] = p
			g.share[j] += p * cnt
		}
	}
	for j := range g.share {
		g.share[j] /= float64(n)
	}
	return g
}

// binOf is the bin holding rank (1-based).
func (g *grid) binOf(rank int) int {
	b, _ := slices.BinarySearch(g.hi, rank) // first hi ≥ rank: bin holds lo < rank ≤ hi
	return b
}

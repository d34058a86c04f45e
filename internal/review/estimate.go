package review

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/udocc/udocc/internal/parallel"
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
// Each grid point implies a share q = Σ_i p(x_i) / n. The prior has two parts: the
// label-free count's ln(q) ~ t_ν(ln Prior.Share, λσ), a Student t of ν = 3 degrees of
// freedom (Method.PriorDF), σ read from Prior's 80 % interval as ±1.2816 σ and λ the
// learned scale (Method.PriorScale); and a weight π(s, r) for the curve's shape, learned
// on the corpus's labelled tables (DefaultCurve, LearnCurve); c is uniform on its grid.
// The t's heavy tails let the answers overrule a label-free count far from the truth,
// which a normal prior resists (Gelman et al., BDA3 §17.2; chosen on the corpus,
// bench/review/results.md). With z = (ln q - ln Prior.Share) / λσ, the posterior over
// the grid is
//
//	w(c, s, r) ∝ π(s, r) · (1 + z²/ν)^(-(ν+1)/2) · Π_design p(x_j)^y_j (1 - p(x_j))^(1-y_j),
//
// the product over the rows the design asked (Round ≥ 1): a Bayesian grid posterior
// (Gelman et al., BDA3 §3.7 and §5.3). The design is ignorable (see Next), so this is
// the full likelihood. Rows the user answered outside the design (Round 0) may have been
// picked for their label, which would bias the curve, so they do not enter the
// likelihood: they are known rows, and the count at a grid point is
//
//	T(c, s, r) = Σ_known y_j + Σ_unknown B_i,   B_i ~ Bernoulli(p(x_i)),
//
// the known anomalies plus the unanswered rows' count (the finite-population total, each
// unknown row predicted by the model: the model-assisted form of the Horvitz–Thompson
// total; Särndal, Swensson and Wretman 1992, §6.7). Its mean at a grid point is
// Σ_known y + Σ_unknown p and its variance Σ_unknown p(1-p); the count's posterior is the
// mixture over the grid of normals with those moments. The count is its median and the
// interval its 10 % and 90 % quantiles, rounded out to whole rows. The count is at least
// the anomalies answered (and at least 1 while a row is unanswered); with every row
// answered it is exact.
//
// The cut: at a cut c and grid point j, E_j(c) = Σ_{i ≤ c} e_ij, e_ij the answer for a
// known row and p_j(x_i) otherwise. The cut maximises the posterior-expected F1,
// Σ_j w_j 2E_j(c)/(c + T_j), with precision Σ_j w_j E_j(c)/c and recall
// Σ_j w_j E_j(c)/T_j read the same way (T_j the grid point's expected count); the
// candidate cuts are the bins' ends and the ranks of the anomalies answered.
func Calibrate(n int, answers []Answer, prior Prior, target Target) (Estimate, error) {
	return Method{}.Calibrate(n, answers, prior, target)
}

// Method holds the design's and the estimator's settings; the zero Method is the one
// Next and Calibrate use. The other settings are kept for the study that chose them
// (bench/review), each named for what it turns off.
type Method struct {
	// Curve is the prior weight of each (slope, ceiling) pair of the grid (CurvePairs
	// of them, slope-major); nil: DefaultCurve, learned on the corpus. FlatCurve gives
	// all pairs alike (the prototype's).
	Curve []float64
	// PriorScale multiplies the share prior's σ; 0: the scale learned with DefaultCurve.
	PriorScale float64
	// PriorDF is the share prior's degrees of freedom ν in ln(share); 0: DefaultPriorDF,
	// +Inf: the normal. Next's design reads the normal whatever it is.
	PriorDF float64
	// NoNoise reads the count's quantiles from the grid's expected counts alone,
	// leaving out the binomial spread of the unanswered rows around them (a normal with
	// variance Σ p(1-p) at each grid point).
	NoNoise bool
	// MeanCut picks the cut of the highest F1 of the posterior-mean curve, instead of
	// the cut of the highest posterior-expected F1 (with precision and recall read as
	// posterior expectations too).
	MeanCut bool
	// Strata are the design's strata's upper ends, ascending shares of the rows, the
	// last 1; nil: the top 0.1 %, 0.2 %, 0.5 %, 1 %, 2 %, 5 %, 10 %, 20 %, 50 % and the
	// rest. PrototypeStrata are the prototype's.
	Strata []float64
	// FirstPass is the share of the top ranks whose strata each get a first row (where no
	// row has been asked yet) before the rest of a round is allocated: 0 means
	// DefaultFirstPass, a negative share none (the whole round is allocated), 1 every
	// stratum (the prototype's).
	FirstPass float64
	// Neyman allocates the rows of a round (after the first row of each stratum) by the
	// greedy Neyman allocation on the strata's rates (the prototype's ADAPT), instead of
	// where they most reduce the expected posterior variance of ln(count) (modelAllocate).
	Neyman bool
}

// DefaultFirstPass is Method.FirstPass where it is 0: the first round shows the top 1 %
// of the ranks (one row in each of its strata), whatever the count needs, so that the
// user sees the rows the model flags first.
const DefaultFirstPass = 0.01

// DefaultPriorDF is the share prior's degrees of freedom where Method.PriorDF is 0.
const DefaultPriorDF = 3

// FlatCurve is the curve prior of all pairs alike.
func FlatCurve() []float64 {
	c := make([]float64, CurvePairs)
	for i := range c {
		c[i] = 1 / float64(CurvePairs)
	}
	return c
}

// settings resolves m's defaults: its curve prior and prior scale.
func (m Method) settings() (curve []float64, scale float64, err error) {
	curve, scale = m.Curve, m.PriorScale
	if curve == nil {
		curve = defaultCurve().Weights
	}
	if len(curve) != CurvePairs {
		return nil, 0, &ArgError{Arg: "len(Method.Curve)", Value: float64(len(curve)), Want: fmt.Sprintf("%d weights", CurvePairs)}
	}
	if scale == 0 {
		scale = defaultCurve().PriorScale
	}
	if !(scale > 0) {
		return nil, 0, &ArgError{Arg: "Method.PriorScale", Value: scale, Want: "a scale > 0 (0: the default)"}
	}
	return curve, scale, nil
}

// Calibrate is Calibrate with m's settings.
func (m Method) Calibrate(n int, answers []Answer, prior Prior, target Target) (Estimate, error) {
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
	curve, scale, err := m.settings()
	if err != nil {
		return Estimate{}, err
	}
	est := Estimate{N: n, Answers: len(kn.label), Anomalies: kn.anom, Prior: pr}
	df := m.PriorDF
	if df == 0 {
		df = DefaultPriorDF
	}
	if !(df > 0) {
		return Estimate{}, &ArgError{Arg: "Method.PriorDF", Value: df, Want: "degrees of freedom > 0 (0: the default, +Inf: the normal)"}
	}
	ps := posterior(n, kn, mu, sd*scale, df, curve)
	g, live, w, T, V, rows := ps.g, ps.live, ps.w, ps.T, ps.V, ps.rows
	G := len(g.share)
	var count, lo, hi float64
	if !m.NoNoise {
		count, lo, hi = mixQuantiles(live, w, T, V, float64(n))
	} else {
		count, lo, hi = gridQuantiles(live, w, T)
	}
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

	if !m.MeanCut {
		est.Cut, est.Precision, est.Recall, est.F1 = g.expectedCut(live, w, T, rows, target)
		return est, nil
	}
	// Posterior mean of p in each bin, for the cut.
	pbar := make([]float64, len(g.lo))
	for b := range pbar {
		col := g.p[b*G : (b+1)*G]
		s := 0.0
		for _, j := range live {
			s += w[j] * col[j]
		}
		pbar[b] = s
	}
	est.Cut, est.Precision, est.Recall, est.F1 = g.cut(pbar, rows, target)
	return est, nil
}

// post is the posterior over the grid: the weights w, the points that carry them
// (live), and at each live point the count T and the variance V of the unanswered
// rows' count; rows are the known rows by rank.
type post struct {
	g       *grid
	live    []int
	w, T, V []float64
	rows    []cutRow
}

// posterior computes the posterior of the curve given the design's answers in kn, with
// the share prior ln q ~ t_df(mu, sd) (df = +Inf: N(mu, sd²)) and the curve prior curve
// (see Calibrate).
func posterior(n int, kn *known, mu, sd, df float64, curve []float64) *post {
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
		if math.IsInf(df, 1) {
			lp[j] = -0.5 * z * z
		} else {
			lp[j] = -(df + 1) / 2 * math.Log1p(z*z/df)
		}
		lp[j] += math.Log(max(curve[j%CurvePairs], 1e-300))
	}
	// Design answers by bin: a bin's m answers, a of them anomalies, add
	// a ln p + (m-a) ln(1-p).
	var ab, mb = map[int]float64{}, map[int]float64{}
	for _, kr := range rows {
		if !kn.design[kr.rank] {
			continue // the user's row: known, not in the likelihood
		}
		mb[kr.bin]++
		if kr.y {
			ab[kr.bin]++
		}
	}
	bins := slices.Sorted(maps.Keys(mb)) // a fixed order: the sums are then bit-identical
	for _, b := range bins {
		cnt, a := mb[b], ab[b]
		lnp, ln1p := g.logs(b)
		for j := range lp {
			lp[j] += a*lnp[j] + (cnt-a)*ln1p[j]
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
	// The grid points that carry the posterior: the heaviest ones holding all but
	// liveTail of its weight (the rest is dropped from the sums below).
	live := make([]int, G)
	for j := range live {
		live[j] = j
	}
	slices.SortFunc(live, func(a, b int) int { return cmp.Compare(w[b], w[a]) })
	acc := 0.0
	for i, j := range live {
		acc += w[j]
		if acc >= 1-liveTail {
			live = live[:i+1]
			break
		}
	}
	slices.Sort(live)

	// T at each grid point (and the variance of the unanswered rows' count).
	T := make([]float64, G)
	V := make([]float64, G)
	for _, j := range live {
		T[j] = float64(n) * g.share[j]
		V[j] = g.vari[j]
	}
	for _, kr := range rows {
		col := g.p[kr.bin*G : (kr.bin+1)*G]
		y := 0.0
		if kr.y {
			y = 1
		}
		for _, j := range live {
			p := col[j]
			T[j] += y - p
			V[j] -= p * (1 - p)
		}
	}
	return &post{g: g, live: live, w: w, T: T, V: V, rows: rows}
}

// gridQuantiles is the 50 %, 10 % and 90 % quantiles of T under the weights w.
func gridQuantiles(live []int, w, T []float64) (med, lo, hi float64) {
	order := slices.Clone(live)
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(T[a], T[b]) })
	cw := make([]float64, len(order))
	acc := 0.0
	for i, j := range order {
		acc += w[j]
		cw[i] = acc
	}
	q := func(p float64) float64 {
		i := sort.SearchFloat64s(cw, p*acc)
		return T[order[min(i, len(order)-1)]]
	}
	return q(0.5), q(0.1), q(0.9)
}

// mixQuantiles is the 50 %, 10 % and 90 % quantiles of the mixture Σ w_j N(T_j, V_j),
// found by bisection on [0, n].
func mixQuantiles(live []int, w, T, V []float64, n float64) (med, lo, hi float64) {
	tot := 0.0
	for _, j := range live {
		tot += w[j]
	}
	cdf := func(t float64) float64 {
		s := 0.0
		for _, j := range live {
			sd := math.Sqrt(max(V[j], 1e-12))
			s += w[j] * 0.5 * math.Erfc(-(t-T[j])/(sd*math.Sqrt2))
		}
		return s / tot
	}
	// The quantiles lie within 6 sd of the points' counts.
	a0, b0 := math.Inf(1), math.Inf(-1)
	for _, j := range live {
		sd := math.Sqrt(max(V[j], 0))
		a0, b0 = min(a0, T[j]-6*sd), max(b0, T[j]+6*sd)
	}
	a0, b0 = max(a0, 0), min(b0, n)
	q := func(p float64) float64 {
		a, b := a0, b0
		for b-a > 0.01 {
			mid := (a + b) / 2
			if cdf(mid) < p {
				a = mid
			} else {
				b = mid
			}
		}
		return (a + b) / 2
	}
	return q(0.5), q(0.1), q(0.9)
}

// expectedCut picks the cut for target with precision, recall and F1 read as posterior
// expectations: at a cut c and grid point j, E_j(c) = Σ_{i ≤ c} e_ij (the answer for a
// known row, p_j(x_i) otherwise); precision Σ_j w_j E_j(c)/c, recall Σ_j w_j E_j(c)/T_j,
// F1 Σ_j w_j 2E_j(c)/(c + T_j).
func (g *grid) expectedCut(live []int, w, T []float64, rows []cutRow, target Target) (cut int, prec, rec, f1 float64) {
	G := len(g.share)
	cands := g.cands(rows)
	P := make([]float64, len(cands))
	R := make([]float64, len(cands))
	F := make([]float64, len(cands))
	candBin := make([]int, len(cands))
	for i, c := range cands {
		candBin[i] = g.binOf(c)
	}
	// Bins outer, grid points inner: g.p is bin-major.
	cum := make([]float64, len(live))  // expected anomalies in whole bins before bin b
	corr := make([]float64, len(live)) // known rows up to c: answer less expectation
	b, k := 0, 0
	for i, c := range cands {
		for ; b < candBin[i]; b++ {
			col, cnt := g.p[b*G:(b+1)*G], float64(g.hi[b]-g.lo[b])
			for l, j := range live {
				cum[l] += col[j] * cnt
			}
		}
		for ; k < len(rows) && rows[k].rank <= c; k++ {
			col := g.p[rows[k].bin*G : (rows[k].bin+1)*G]
			y := 0.0
			if rows[k].y {
				y = 1
			}
			for l, j := range live {
				corr[l] += y - col[j]
			}
		}
		col, part := g.p[b*G:(b+1)*G], float64(c-g.lo[b])
		fc := float64(c)
		for l, j := range live {
			e := max(0, cum[l]+col[j]*part+corr[l])
			P[i] += w[j] * e / fc
			if T[j] > 0 {
				R[i] += w[j] * min(1, e/T[j])
				F[i] += w[j] * 2 * e / (fc + T[j])
			}
		}
	}
	tot := 0.0
	for _, j := range live {
		tot += w[j]
	}
	for i := range cands {
		P[i], R[i], F[i] = P[i]/tot, R[i]/tot, F[i]/tot
	}
	best := pick(cands, P, R, F, target)
	return cands[best], P[best], R[best], F[best]
}

// pick chooses the candidate for target from the estimated precision, recall and F1.
func pick(cands []int, P, R, F []float64, target Target) int {
	best := 0
	switch {
	case target.Precision > 0:
		best = -1
		for i := range cands {
			if P[i] >= target.Precision {
				best = i // the largest cut meeting the precision
			}
		}
		if best < 0 {
			best = 0
			for i := range cands {
				if P[i] > P[best] {
					best = i
				}
			}
		}
	case target.Recall > 0:
		best = len(cands) - 1
		for i := range cands {
			if R[i] >= target.Recall {
				best = i
				break
			}
		}
	default:
		for i := range cands {
			if F[i] > F[best] {
				best = i
			}
		}
	}
	return best
}

// cutRow is a known row: its rank, bin and answer.
type cutRow struct {
	rank, bin int
	y         bool
}

// cands is the candidate cuts: the bins' ends and the ranks of known anomalies.
func (g *grid) cands(rows []cutRow) []int {
	cands := slices.Clone(g.hi)
	for _, kr := range rows {
		if kr.y {
			cands = append(cands, kr.rank)
		}
	}
	slices.Sort(cands)
	return slices.Compact(cands)
}

// cut picks the cut for target from each bin's expected rate pbar and the known rows
// (sorted by rank); see Calibrate.
func (g *grid) cut(pbar []float64, rows []cutRow, target Target) (cut int, prec, rec, f1 float64) {
	cands := g.cands(rows)
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
		E[i] = max(0, cumBin[b]+pbar[b]*float64(c-g.lo[b])+corr)
	}
	total := E[len(E)-1]
	P := make([]float64, len(cands))
	R := make([]float64, len(cands))
	F := make([]float64, len(cands))
	for i, c := range cands {
		if total > 0 {
			P[i], R[i], F[i] = E[i]/float64(c), min(1, E[i]/total), 2*E[i]/(float64(c)+total)
		}
	}
	best := pick(cands, P, R, F, target)
	return cands[best], P[best], R[best], F[best]
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
	vari   []float64 // Σ_i p(x_i)(1 - p(x_i)) at each grid point

	logOnce []sync.Once
	logP    [][]float64 // bin b: ln p then ln(1-p) for every grid point (logs)
}

// The grid: c from -ln n - 1 to 1 in gridC steps (the curve's half-point anywhere from
// above the top row to beyond the last), s = 0 (a constant rate) or from 0.1 to 20
// geometrically, r on a fixed ladder.
const (
	gridBins = 300
	gridC    = 48
	gridS    = 20
)

var gridR = [...]float64{0.05, 0.1, 0.2, 0.35, 0.5, 0.7, 0.85, 1.0}

// CurvePairs is the number of (slope, ceiling) pairs of the grid: the slopes 0 and gridS
// from 0.1 to 20, times the ceilings gridR. The pairs are slope-major: pair i has the
// slope i / CurveCeilings and the ceiling i % CurveCeilings.
const CurvePairs = (gridS + 1) * CurveCeilings

// CurveCeilings is the number of ceilings r of the grid.
const CurveCeilings = len(gridR)

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
	g.vari = make([]float64, G)
	// The curves' chances bin by bin on the process's threads, then their sums in bin
	// order: the same floats whatever the threads.
	parallel.For(B, runtime.GOMAXPROCS(0), func(b int) {
		for j, pt := range pts {
			z := min(max(pt.s*(pt.c-g.x[b]), -50), 50)
			g.p[b*G+j] = pt.r / (1 + math.Exp(-z))
		}
	})
	for b := range B {
		cnt := float64(g.hi[b] - g.lo[b])
		for j, p := range g.p[b*G : (b+1)*G] {
			g.share[j] += p * cnt
			g.vari[j] += p * (1 - p) * cnt
		}
	}
	for j := range g.share {
		g.share[j] /= float64(n)
	}
	g.logOnce = make([]sync.Once, B)
	g.logP = make([][]float64, B)
	return g
}

// liveTail is the posterior weight left out of the sums over the grid.
const liveTail = 1e-3

// logs is ln p and ln(1-p) (p clipped to [1e-9, 1-1e-9]) at bin b for every grid
// point, computed on first use.
func (g *grid) logs(b int) (lnp, ln1p []float64) {
	g.logOnce[b].Do(func() {
		G := len(g.share)
		l := make([]float64, 2*G)
		for j, p := range g.p[b*G : (b+1)*G] {
			p = min(max(p, 1e-9), 1-1e-9)
			l[j], l[G+j] = math.Log(p), math.Log1p(-p)
		}
		g.logP[b] = l
	})
	G := len(g.share)
	return g.logP[b][:G], g.logP[b][G:]
}

// binOf is the bin holding rank (1-based).
func (g *grid) binOf(rank int) int {
	b, _ := slices.BinarySearch(g.hi, rank) // first hi ≥ rank: bin holds lo < rank ≤ hi
	return b
}

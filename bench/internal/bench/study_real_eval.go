package bench

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/udocc/udocc/internal/atomicfile"
	"github.com/udocc/udocc/internal/parallel"
	"github.com/udocc/udocc/internal/stats"
	"github.com/udocc/udocc/internal/threshold"
)

// A candidate count is judged on the real group by the share of rows it flags against
// the fit's true share of anomalies, and by the F1 of flagging that many of the highest
// final scores against the F1 of flagging the true count (the oracle) on the same scores.

// realCase is one fit of the real group with every candidate's label-free share.
type realCase struct {
	r      RealRecord
	n      int
	ratios map[string]float64    // candidate → share of rows flagged
	ivals  map[string][2]float64 // candidate → 80 % interval of the share, where it has one
	tp     []int                 // tp[k]: anomalies among the k highest final scores
	pos    int                   // anomalies
}

// memberRules are the rules applied to every member's distances and reconstruction
// errors for the members' robust combination.
var memberRules = []string{"kmeans", "otsu", "iqr", "mad"}

// realCases computes every label-free candidate on every fit whose raw file is in dir,
// jobs fits at a time.
func realCases(recs []RealRecord, dir string, jobs int) []*realCase {
	out := make([]*realCase, len(recs))
	eachIndex(len(recs), jobs, func(i int) {
		if raw, err := readRaw(dir, recs[i]); err == nil {
			out[i] = cachedCase(dir, recs[i], raw)
		}
	})
	var kept []*realCase
	for _, c := range out {
		if c != nil {
			kept = append(kept, c)
		}
	}
	return kept
}

// rankOnly is a case of the fit with its final scores' ranking against the labels and
// no candidates yet.
func rankOnly(r RealRecord, raw realRaw) *realCase {
	n := len(raw.Scores)
	c := &realCase{r: r, n: n, ratios: map[string]float64{}, ivals: map[string][2]float64{}}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(raw.Scores[b], raw.Scores[a]) })
	c.tp = make([]int, n+1)
	for k, i := range idx {
		c.tp[k+1] = c.tp[k] + int(raw.Y[i])
	}
	c.pos = c.tp[n]
	return c
}

// newRealCase computes every label-free candidate of a fit.
func newRealCase(r RealRecord, raw realRaw) *realCase {
	n := len(raw.Scores)
	c := rankOnly(r, raw)
	share := func(xs []float64, rule threshold.Rule) (float64, bool) {
		s, err := threshold.ShareOf(rule, xs)
		return s, err == nil
	}
	var own, larger []float64
	for _, rule := range threshold.All() {
		name := rule.Name()
		s, ok := share(raw.Scores, rule)
		if !ok {
			continue
		}
		c.ratios["rule/"+name] = s
		own = append(own, s)
		if len(raw.Screen) == n {
			if sc, ok := share(raw.Screen, rule); ok {
				c.ratios[ScreenRule(name)] = sc
				c.ratios[LargerRule(name)] = max(s, sc)
				larger = append(larger, max(s, sc))
			}
		}
	}
	c.ratios["fixed-10%"] = 0.10
	c.setMedLog("medlog/rules", own)
	c.setMedLog("medlog/larger", larger)
	var members []float64
	for _, xs := range append(append([][]float32(nil), raw.Dist...), raw.Rec...) {
		v := widen(xs)
		for _, name := range memberRules {
			rule, _ := threshold.ByName(name)
			if s, ok := share(v, rule); ok {
				members = append(members, s)
			}
		}
	}
	c.setMedLog("medlog/members", members)
	c.setMedLog("medlog/all", append(append(slices.Clone(own), larger...), members...))
	var cols [][]float64
	for _, xs := range append(append([][]float32(nil), raw.Dist...), raw.Rec...) {
		cols = append(cols, widen(xs))
	}
	for name, g := range gammaVariants {
		if p, err := g.Estimate(cols); err == nil {
			c.ratios[name] = p.Mean
			c.ivals[name] = [2]float64{p.Quantile(0.1), p.Quantile(0.9)}
		}
	}
	return c
}

// gammaVariants are the γGMM candidates on the members' distances and reconstruction
// errors: the paper's prior, and a wider one that allows shares up to one half.
var gammaVariants = map[string]threshold.GammaGMM{
	"gammagmm/paper": {},
	"gammagmm/wide":  {HighGamma: 0.3, Limit: 0.5},
}

func widen(xs []float32) []float64 {
	out := make([]float64, len(xs))
	for i, v := range xs {
		out[i] = float64(v)
	}
	return out
}

// floorShare is a share of at least one row of n, so that its logarithm is finite.
func floorShare(s float64, n int) float64 { return max(s, 1/float64(n)) }

// setMedLog sets candidate name to the median of shares in log space, with the 10th and
// 90th percentiles (in log space) as its interval.
func (c *realCase) setMedLog(name string, shares []float64) {
	if len(shares) == 0 {
		return
	}
	logs := make([]float64, len(shares))
	for i, s := range shares {
		logs[i] = math.Log(floorShare(s, c.n))
	}
	slices.Sort(logs)
	c.ratios[name] = math.Exp(stats.Quantile(logs, 0.5))
	c.ivals[name] = [2]float64{math.Exp(stats.Quantile(logs, 0.1)), math.Exp(stats.Quantile(logs, 0.9))}
}

// flagged is the rows a share flags: round(share·n), at most n − 1.
func (c *realCase) flagged(share float64) int {
	return min(int(share*float64(c.n)+0.5), c.n-1)
}

// selected is the share of rows candidate name flags, in whole rows, at least one.
func (c *realCase) selected(name string) (float64, bool) {
	s, ok := c.ratios[name]
	if !ok {
		return 0, false
	}
	return floorShare(float64(c.flagged(s))/float64(c.n), c.n), true
}

// f1 is the F1 of flagging the k highest final scores.
func (c *realCase) f1(k int) float64 {
	if k+c.pos == 0 {
		return 0
	}
	return 2 * float64(c.tp[k]) / float64(k+c.pos)
}

// candStats are one candidate's criteria over a set of fits.
type candStats struct {
	fits, within   int
	meanLog        float64
	tablesBeyond4  int // tables where most fits are off by more than ×4
	fitsBeyond4    int
	meanF1, oracle float64
	paperWithin    float64 // paper sets: mean over seeds of the sets within ×1.5 (of 10)
	paperLog       float64
	covered, ivals int
	medWidth       float64 // median high/low of the interval
}

func statsFor(cases []*realCase, name string) (candStats, bool) {
	var st candStats
	var logs, f1s, ors, plogs, widths []float64
	pw := map[uint64]int{}
	seeds := map[uint64]bool{}
	beyond := map[string][2]int{}
	for _, c := range cases {
		s, ok := c.selected(name)
		if !ok {
			continue
		}
		st.fits++
		l := threshold.LogRatioError(s, c.r.TrueRatio)
		logs = append(logs, l)
		within := threshold.WithinFactor(s, c.r.TrueRatio, 1.5)
		if within {
			st.within++
		}
		b := beyond[c.r.Table]
		b[1]++
		if l > math.Log(4) {
			st.fitsBeyond4++
			b[0]++
		}
		beyond[c.r.Table] = b
		f1s = append(f1s, c.f1(c.flagged(s)))
		ors = append(ors, c.f1(c.pos))
		if c.r.Group == "paper" {
			plogs = append(plogs, l)
			seeds[c.r.Seed] = true
			if within {
				pw[c.r.Seed]++
			}
		}
		if iv, ok := c.ivals[name]; ok {
			st.ivals++
			if c.r.TrueRatio >= iv[0] && c.r.TrueRatio <= iv[1] {
				st.covered++
			}
			widths = append(widths, floorShare(iv[1], c.n)/floorShare(iv[0], c.n))
		}
	}
	if st.fits == 0 {
		return st, false
	}
	for _, b := range beyond {
		if 2*b[0] > b[1] {
			st.tablesBeyond4++
		}
	}
	st.meanLog, st.meanF1, st.oracle = mean(logs), mean(f1s), mean(ors)
	if len(seeds) > 0 {
		tot := 0
		for s := range seeds {
			tot += pw[s]
		}
		st.paperWithin = float64(tot) / float64(len(seeds))
		st.paperLog = mean(plogs)
	}
	if len(widths) > 0 {
		st.medWidth = stats.Median(widths)
	}
	return st, true
}

// candidateNames are every candidate in the cases, sorted.
func candidateNames(cases []*realCase) []string {
	return sortedKeys(cases, func(c *realCase) map[string]float64 { return c.ratios })
}

// statsRow formats a candidate's criteria as a table row.
func statsRow(name string, st candStats) string {
	iv := "—"
	if st.ivals > 0 {
		iv = fmt.Sprintf("%.0f %% / ×%.2f", 100*float64(st.covered)/float64(st.ivals), st.medWidth)
	}
	return fmt.Sprintf("| %s | %.0f %% (%d of %d) | %.2f | %d (%d fits) | %.3f / %.3f = %.2f | %.1f of 10 / %.2f | %s |",
		name, 100*float64(st.within)/float64(st.fits), st.within, st.fits, st.meanLog, st.tablesBeyond4, st.fitsBeyond4,
		st.meanF1, st.oracle, st.meanF1/st.oracle, st.paperWithin, st.paperLog, iv)
}

// candidatesVersion names the set of label-free candidates newRealCase computes; a
// cache of them (OUT/raw/TABLE-SEED.cand.json) of another version is computed again.
const candidatesVersion = "2"

type candCache struct {
	Version string                `json:"version"`
	Ratios  map[string]float64    `json:"ratios"`
	Ivals   map[string][2]float64 `json:"intervals"`
}

// cachedCase is newRealCase, its label-free candidates read from the cache beside the
// raw file when there is one of this version, and written there otherwise.
func cachedCase(dir string, r RealRecord, raw realRaw) *realCase {
	path := strings.TrimSuffix(rawPath(dir, r.Table, r.Seed), ".gob") + ".cand.json"
	var cc candCache
	if b, err := os.ReadFile(path); err == nil && json.Unmarshal(b, &cc) == nil && cc.Version == candidatesVersion {
		c := rankOnly(r, raw)
		c.ratios, c.ivals = cc.Ratios, cc.Ivals
		return c
	}
	c := newRealCase(r, raw)
	if b, err := json.Marshal(candCache{candidatesVersion, c.ratios, c.ivals}); err == nil {
		atomicfile.WriteBytes(path, b) // a cache: a failure to write it costs only time
	}
	return c
}

// calibrationMax is the largest share a calibration gives (threshold.Calibration.Max).
const calibrationMax = 0.5

// lotoFit is a calibration learned from other tables: ln(share) = c[0] + Σ c[j]·ln(feature j).
type lotoFit []float64

func (c *realCase) features(feats []string) ([]float64, bool) {
	x := []float64{1}
	for _, f := range feats {
		s, ok := c.ratios[f]
		if !ok {
			return nil, false
		}
		x = append(x, math.Log(floorShare(s, c.n)))
	}
	return x, true
}

// fitCalibration fits ln(true share) on the features' logarithms over cases, each table
// weighing as much as any other whatever its number of fits, by least absolute
// deviations (iteratively reweighted least squares, 50 rounds) with a small ridge on the
// slopes.
func fitCalibration(cases []*realCase, feats []string) lotoFit {
	per := map[string]int{}
	for _, c := range cases {
		per[c.r.Table]++
	}
	// Each case's features, ln(true share) and its table's fits, read once for the 50
	// rounds (where every round read them twice).
	type row struct {
		x      []float64
		y, per float64 // ln(true share); the fits of the case's table
	}
	rows := make([]row, 0, len(cases))
	for _, c := range cases {
		if x, ok := c.features(feats); ok {
			rows = append(rows, row{x, math.Log(c.r.TrueRatio), float64(per[c.r.Table])})
		}
	}
	d := len(feats) + 1
	w := make([]float64, len(rows))
	for i := range w {
		w[i] = 1
	}
	var coef []float64
	for round := 0; round < 50; round++ {
		a := make([][]float64, d)
		for i := range a {
			a[i] = make([]float64, d+1)
		}
		for i, r := range rows {
			wi := w[i] / r.per
			for p := 0; p < d; p++ {
				a[p][d] += wi * r.x[p] * r.y
				for q := 0; q < d; q++ {
					a[p][q] += wi * r.x[p] * r.x[q]
				}
			}
		}
		for p := 1; p < d; p++ {
			a[p][p] += 1e-3
		}
		coef = solveLinear(a)
		for i, r := range rows {
			w[i] = 1 / max(math.Abs(dot(coef, r.x)-r.y), 1e-3)
		}
	}
	return coef
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// solveLinear solves the augmented system a (d rows of d+1) by Gaussian elimination with
// partial pivoting.
func solveLinear(a [][]float64) []float64 {
	d := len(a)
	for col := 0; col < d; col++ {
		p := col
		for i := col + 1; i < d; i++ {
			if math.Abs(a[i][col]) > math.Abs(a[p][col]) {
				p = i
			}
		}
		a[col], a[p] = a[p], a[col]
		for i := 0; i < d; i++ {
			if i == col || a[col][col] == 0 {
				continue
			}
			f := a[i][col] / a[col][col]
			for j := col; j <= d; j++ {
				a[i][j] -= f * a[col][j]
			}
		}
	}
	out := make([]float64, d)
	for i := range out {
		if a[i][i] != 0 {
			out[i] = a[i][d] / a[i][i]
		}
	}
	return out
}

// without is cases less those of table.
func casesWithout(cases []*realCase, tables ...string) []*realCase {
	var out []*realCase
	for _, c := range cases {
		if !slices.Contains(tables, c.r.Table) {
			out = append(out, c)
		}
	}
	return out
}

// calibrationResiduals are the leave-one-table-out residuals ln(true) − ln(predicted)
// of the calibration on feats over cases: each table's fits predicted from the others.
func calibrationResiduals(cases []*realCase, feats []string) []float64 {
	var out []float64
	names, _ := realCaseTables(cases)
	for _, t := range names {
		coef := fitCalibration(casesWithout(cases, t), feats)
		for _, c := range cases {
			if c.r.Table != t {
				continue
			}
			if x, ok := c.features(feats); ok {
				out = append(out, math.Log(c.r.TrueRatio)-dot(coef, x))
			}
		}
	}
	return out
}

func realCaseTables(cases []*realCase) ([]string, map[string]bool) {
	seen := map[string]bool{}
	var names []string
	for _, c := range cases {
		if !seen[c.r.Table] {
			seen[c.r.Table] = true
			names = append(names, c.r.Table)
		}
	}
	return names, seen
}

// addCalibrated adds candidate name, the calibration on feats, to every case, leave one
// table out: a table's share and its 80 % interval come from a calibration fitted on the
// other tables alone, the interval from the 10th and 90th percentiles of the other
// tables' own leave-one-table-out residuals.
func addCalibrated(cases []*realCase, name string, feats []string) {
	names, _ := realCaseTables(cases)
	// Each table's calibration and band, fitted without it, one table per core (the
	// nested leave-one-table-out fits are the report's slowest part); the cases take
	// them after, so that no fit reads a case while one is written.
	type fitted struct {
		coef   lotoFit
		lo, hi float64
	}
	fits := make([]fitted, len(names))
	parallel.For(len(names), runtime.GOMAXPROCS(0), func(i int) {
		train := casesWithout(cases, names[i])
		res := calibrationResiduals(train, feats)
		slices.Sort(res)
		fits[i] = fitted{fitCalibration(train, feats), stats.Quantile(res, 0.1), stats.Quantile(res, 0.9)}
	})
	for i, t := range names {
		coef, lo, hi := fits[i].coef, fits[i].lo, fits[i].hi
		for _, c := range cases {
			if c.r.Table != t {
				continue
			}
			if x, ok := c.features(feats); ok {
				// As threshold.Calibration.Share: the share capped at one half, the interval
				// about the capped share.
				p := min(math.Exp(dot(coef, x)), calibrationMax)
				c.ratios[name] = p
				c.ivals[name] = [2]float64{min(p*math.Exp(lo), 1), min(p*math.Exp(hi), 1)}
			}
		}
	}
}

// addBestSingle adds candidate name, the meta-choice, leave one table out: each table's
// share is that of the unlearned candidate of the lowest mean |ln(selected/true)| over
// the other tables.
func addBestSingle(cases []*realCase, name string, pool []string) map[string]string {
	names, _ := realCaseTables(cases)
	chose := map[string]string{}
	for _, t := range names {
		train := casesWithout(cases, t)
		best, bestV := "", math.Inf(1)
		for _, p := range pool {
			if st, ok := statsFor(train, p); ok && st.meanLog < bestV {
				best, bestV = p, st.meanLog
			}
		}
		chose[t] = best
		for _, c := range cases {
			if c.r.Table == t {
				if s, ok := c.ratios[best]; ok {
					c.ratios[name] = s
				}
			}
		}
	}
	return chose
}

// GeoName is the study's name of the geometric mean of candidates' shares.
func GeoName(cands ...string) string { return "geo/" + strings.Join(cands, "+") }

// addGeo adds the geometric mean of candidates' shares (each at least one row's) as
// GeoName(cands...), to every case that has them all.
func addGeo(cases []*realCase, cands ...string) {
	for _, c := range cases {
		var shares []float64
		for _, k := range cands {
			if s, ok := c.ratios[k]; ok {
				shares = append(shares, s)
			}
		}
		if len(shares) == len(cands) {
			if g, err := threshold.GeoShare(shares, c.n); err == nil {
				c.ratios[GeoName(cands...)] = g
			}
		}
	}
}

// logResiduals are ln(true share / selected share) of candidate name over cases.
func logResiduals(cases []*realCase, name string) []float64 {
	var out []float64
	for _, c := range cases {
		if s, ok := c.selected(name); ok {
			out = append(out, math.Log(c.r.TrueRatio/s))
		}
	}
	slices.Sort(out)
	return out
}

// addResidualInterval gives candidate name an 80 % interval, leave one table out: a
// table's interval is its selected share times e^q10 and e^q90, q the 10th and 90th
// percentiles of ln(true / selected) over the other tables' fits.
func addResidualInterval(cases []*realCase, name string) {
	names, _ := realCaseTables(cases)
	for _, t := range names {
		res := logResiduals(casesWithout(cases, t), name)
		if len(res) == 0 {
			continue
		}
		lo, hi := stats.Quantile(res, 0.1), stats.Quantile(res, 0.9)
		for _, c := range cases {
			if s, ok := c.selected(name); ok && c.r.Table == t {
				c.ivals[name] = [2]float64{min(s*math.Exp(lo), 1), min(s*math.Exp(hi), 1)}
			}
		}
	}
}

// addBestPair adds candidate name, the meta-choice among pairs, leave one table out:
// each table's share is the geometric mean of the pair of pool's candidates whose mean
// has the lowest mean |ln(selected/true)| over the other tables.
func addBestPair(cases []*realCase, name string, pool []string) map[string]string {
	for i := range pool {
		for j := i + 1; j < len(pool); j++ {
			addGeo(cases, pool[i], pool[j])
		}
	}
	names, _ := realCaseTables(cases)
	chose := map[string]string{}
	for _, t := range names {
		train := casesWithout(cases, t)
		best, bestV := "", math.Inf(1)
		for i := range pool {
			for j := i + 1; j < len(pool); j++ {
				g := GeoName(pool[i], pool[j])
				if st, ok := statsFor(train, g); ok && st.meanLog < bestV {
					best, bestV = g, st.meanLog
				}
			}
		}
		chose[t] = best
		for _, c := range cases {
			if s, ok := c.ratios[best]; ok && c.r.Table == t {
				c.ratios[name] = s
			}
		}
	}
	// Only the picks stay as candidates of their own.
	picked := map[string]bool{}
	for _, g := range chose {
		picked[g] = true
	}
	for _, c := range cases {
		for i := range pool {
			for j := i + 1; j < len(pool); j++ {
				if g := GeoName(pool[i], pool[j]); !picked[g] {
					delete(c.ratios, g)
				}
			}
		}
	}
	return chose
}

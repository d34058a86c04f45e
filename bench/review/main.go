// Command review measures the count from answers (internal/review) on the corpus's
// tables: each table's default fit (bench/review/fit.sh) gives the scores and the
// label-free prior, answers are taken from the table's y as a user would give them,
// through the same Next and Calibrate the CLI uses, and the figures are averaged per
// source group first, then over groups. It writes bench/review/results.md.
//
//	bench/review/fit.sh /work/shared/data      # once: the 71 default fits
//	GOFLAGS=-tags=udocc_shimlib go run ./bench/review -data /work/shared/data -learn-curve internal/review/curve.json
package main

import (
	"flag"
	"fmt"
	"github.com/udocc/udocc/bench/internal/fitdir"
	"io"
	"log"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/udocc/udocc/bench/internal/bench"
	"github.com/udocc/udocc/internal/review"
)

// table is one table's fit: scores and labels in row order, and in rank order.
type table struct {
	name, group string
	n, T        int       // rows, anomalies
	scores      []float64 // row order
	yRow        []bool    // row order
	y           []bool    // rank order: y[i] is rank i+1
	prior       review.Prior
	auc         float64
	flagged     int       // the fit's label-free cut
	f1          []float64 // f1[c-1]: F1 of flagging ranks 1..c
	oracle      float64
}

func main() {
	dataDir := flag.String("data", envOr("UDOCC_DATA", "../shared/data"), "the corpus (GROUPS.csv)")
	fitsDir := flag.String("fits", "bench/review/fits", "the default fits, from bench/review/fit.sh")
	out := flag.String("out", "bench/review/results.md", "the report")
	reps := flag.Int("reps", 20, "repeats per table and number of answers")
	respReps := flag.Int("resp-reps", 8, "repeats per resampled copy for the response")
	variantList := flag.String("variants", defaultVariants, "the estimators measured (see variants)")
	only := flag.String("only", "", "only tables whose name contains this (a quick look; the report is then partial)")
	finalFlag := flag.String("final", final, "the variant (or family) the report details")
	learnCurve := flag.String("learn-curve", "", "also learn the curve prior of the final family on every table, its mixing proportion chosen on every group, and write it to this file (internal/review/curve.json)")
	flag.Parse()
	final = *finalFlag

	tabs, err := loadTables(*dataDir, *fitsDir, *only)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("%d tables", len(tabs))
	vars, families := variants(tabs, strings.Split(*variantList, ","))
	res := run(tabs, vars, *reps, *respReps)
	chosen := map[string]map[string]string{}
	for name, fam := range families {
		chosen[name] = chooseLOGO(res, tabs, fam, name)
	}
	if *learnCurve != "" {
		if err := writeCurve(*learnCurve, tabs, res, families[final]); err != nil {
			log.Fatal(err)
		}
	}
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	report(f, tabs, res, vars, families, chosen, *reps, *respReps)
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %s", *out)
}

// variants is the estimators measured, named by their settings joined by +: md (the
// model design), curveF (a curve prior learned on the other groups, mixed with all-alike
// weights in the proportion F), priorL (the share prior's σ times L), tN (the share prior
// a Student t of N degrees of freedom; t0 the normal), noise, ef1; port is none of them.
// Four settings read the table's labels, so they are bounds, not estimators: oracleC
// takes the curve prior from the table's own posterior given all its labels
// (CurvePosterior), mixed with all-alike weights in the proportion F; oracleCs and
// oracleCr take only the slope's or the ceiling's marginal from it, the other's
// conditional from the held-out prior; oracleS centres the share prior on the true
// share. seq asks one row a round, each answer seen before the next row is chosen.
// Variants that differ only in F, L or N form a family, among which one is chosen for
// each held-out group; the family's name has curve(LOGO), prior(LOGO) and t(LOGO) in
// their places.
func variants(tabs []*table, names []string) ([]variant, map[string][]string) {
	posts := map[string][]float64{} // table: CurvePosterior of its labels
	postOf := func(t *table) []float64 {
		if posts[t.name] == nil {
			posts[t.name] = review.CurvePosterior(t.y)
		}
		return posts[t.name]
	}
	size := map[string]int{}
	for _, t := range tabs {
		size[t.group]++
	}
	learned := map[float64]map[string][]float64{} // flat, held-out group: curve
	curveFor := func(flat float64, group string) []float64 {
		if learned[flat] == nil {
			learned[flat] = map[string][]float64{}
		}
		if c, ok := learned[flat][group]; ok {
			return c
		}
		var ps [][]float64
		var ws []float64
		for _, o := range tabs {
			if o.group != group {
				ps = append(ps, postOf(o))
				ws = append(ws, 1/float64(size[o.group]))
			}
		}
		c := review.LearnCurve(ps, ws, flat)
		learned[flat][group] = c
		return c
	}
	var vars []variant
	families := map[string][]string{}
	for _, name := range names {
		// The prototype's settings; each token turns one of ours on.
		m := review.Method{Neyman: true, NoNoise: true, MeanCut: true, Curve: review.FlatCurve(), PriorScale: 1, PriorDF: math.Inf(1),
			Strata: review.PrototypeStrata(), FirstPass: 1}
		flat, stratName := -1.0, "strat3"
		var seq, oracleS bool
		oracleC := "" // "C", "Cs" or "Cr": see variants' doc
		var fam []string
		for _, tok := range strings.Split(name, "+") {
			switch {
			case tok == "port":
			case tok == "seq":
				seq = true
			case tok == "oracleC" || tok == "oracleCs" || tok == "oracleCr":
				oracleC = strings.TrimPrefix(tok, "oracle")
			case tok == "oracleS":
				oracleS = true
			case tok == "md":
				m.Neyman = false
			case tok == "noise":
				m.NoNoise = false
			case tok == "ef1":
				m.MeanCut = false
			case strings.HasPrefix(tok, "t"): // tN: the estimator's share prior a Student t of N degrees of freedom (t0: the normal); the design's stays normal
				f, err := strconv.ParseFloat(strings.TrimPrefix(tok, "t"), 64)
				if err != nil {
					log.Fatalf("variant %s: %v", name, err)
				}
				m.PriorDF = f
				if f == 0 {
					m.PriorDF = math.Inf(1)
				}
				tok = "t(LOGO)"
			case strings.HasPrefix(tok, "first"): // firstS: a first row in each stratum of the top share S (first0: none, first1: every stratum)
				f, err := strconv.ParseFloat(strings.TrimPrefix(tok, "first"), 64)
				if err != nil {
					log.Fatalf("variant %s: %v", name, err)
				}
				m.FirstPass = f
				if f == 0 {
					m.FirstPass = -1 // none
				}
				tok = "first(LOGO)"
			case strings.HasPrefix(tok, "strat"): // the design's strata: strat2 ours (×2–2.5 apart), strat3 the prototype's (×3), strat1.5, strat2b (×2 from 0.05 %), strat10 (×10)
				switch tok {
				case "strat3":
				case "strat2":
					m.Strata = nil
				case "strat1.5":
					m.Strata = []float64{0.001, 0.0015, 0.0025, 0.004, 0.006, 0.01, 0.015, 0.025, 0.04, 0.06, 0.1, 0.15, 0.25, 0.4, 0.6, 1}
				case "strat2b":
					m.Strata = []float64{0.0005, 0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512, 1}
				case "strat10":
					m.Strata = []float64{0.001, 0.01, 0.1, 1}
				default:
					log.Fatalf("variant %s: want strat1.5, strat2, strat2b, strat3 or strat10", name)
				}
				stratName = tok
				tok = "strat(LOGO)"
			case strings.HasPrefix(tok, "prior"):
				f, err := strconv.ParseFloat(strings.TrimPrefix(tok, "prior"), 64)
				if err != nil {
					log.Fatalf("variant %s: %v", name, err)
				}
				m.PriorScale = f
				tok = "prior(LOGO)"
			case strings.HasPrefix(tok, "curve"):
				f, err := strconv.ParseFloat(strings.TrimPrefix(tok, "curve"), 64)
				if err != nil {
					log.Fatalf("variant %s: %v", name, err)
				}
				flat = f
				tok = "curve(LOGO)"
			default:
				log.Fatalf("variant %s: unknown setting %s", name, tok)
			}
			fam = append(fam, tok)
		}
		// Variants share answers where their designs are the same.
		design := "neyman"
		if !m.Neyman {
			design = fmt.Sprintf("md+curve%g+prior%g+%s+first%g", flat, m.PriorScale, stratName, m.FirstPass)
		}
		// The bounds' answers are their own: their design reads their prior.
		if seq {
			design += "+seq"
		}
		if oracleS {
			design += "+oracleS"
		}
		if oracleC != "" {
			design += "+oracle" + oracleC
		}
		v := variant{name: name, design: design, seq: seq, oracleS: oracleS}
		if oracleC != "" {
			if flat < 0 {
				log.Fatalf("variant %s: an oracle curve needs curveF", name)
			}
			kind := oracleC
			v.method = func(t *table) review.Method {
				mm := m
				own := review.LearnCurve([][]float64{postOf(t)}, []float64{1}, 0)
				switch kind {
				case "Cs":
					own = halfOracle(own, curveFor(flat, t.group), true)
				case "Cr":
					own = halfOracle(own, curveFor(flat, t.group), false)
				}
				mm.Curve = review.LearnCurve([][]float64{own}, []float64{1}, flat)
				return mm
			}
		} else if flat < 0 {
			v.method = func(*table) review.Method { return m }
		} else {
			v.method = func(t *table) review.Method {
				mm := m
				mm.Curve = curveFor(flat, t.group)
				return mm
			}
		}
		if fn := strings.Join(fam, "+"); fn != name {
			families[fn] = append(families[fn], name)
		}
		vars = append(vars, v)
	}
	return vars, families
}

// halfOracle is the curve prior π(s, r) = own(s) held(r | s) where bySlope, else
// own(r) held(s | r): one coordinate's marginal from own (a table's posterior from all
// its labels), the other's conditional from held (the prior learned on the other groups).
func halfOracle(own, held []float64, bySlope bool) []float64 {
	R := review.CurveCeilings
	S := review.CurvePairs / R
	// coord is the fixed coordinate's index of pair i.
	coord := func(i int) int { return i % R }
	size := R
	if bySlope {
		coord = func(i int) int { return i / R }
		size = S
	}
	mOwn, mHeld := make([]float64, size), make([]float64, size)
	for i := range review.CurvePairs {
		mOwn[coord(i)] += own[i]
		mHeld[coord(i)] += held[i]
	}
	out := make([]float64, review.CurvePairs)
	for i := range out {
		if m := mHeld[coord(i)]; m > 0 {
			out[i] = mOwn[coord(i)] * held[i] / m
		}
	}
	return out
}

// writeCurve learns the curve prior on every table with the proportion of fam's member
// of least mean |ln| at 40 answers over every group, and writes it to path.
func writeCurve(path string, tabs []*table, res *results, fam []string) error {
	if len(fam) == 0 {
		return fmt.Errorf("-learn-curve: the final variant %q has no curve family", final)
	}
	best, bestLn := "", math.Inf(1)
	for _, v := range fam {
		if a, _, _ := perGroup(tabs, res.out[v]["40"]); a.absLn < bestLn {
			best, bestLn = v, a.absLn
		}
	}
	flat, scale := math.NaN(), 1.0
	for _, tok := range strings.Split(best, "+") {
		if f, err := strconv.ParseFloat(strings.TrimPrefix(tok, "curve"), 64); strings.HasPrefix(tok, "curve") && err == nil {
			flat = f
		}
		if f, err := strconv.ParseFloat(strings.TrimPrefix(tok, "prior"), 64); strings.HasPrefix(tok, "prior") && err == nil {
			scale = f
		}
	}
	size := map[string]int{}
	for _, t := range tabs {
		size[t.group]++
	}
	var ps [][]float64
	var ws []float64
	for _, t := range tabs {
		ps = append(ps, review.CurvePosterior(t.y))
		ws = append(ws, 1/float64(size[t.group]))
	}
	b, err := review.CurveJSON(review.LearnCurve(ps, ws, flat), flat, scale,
		fmt.Sprintf("go run ./bench/review -learn-curve: %d tables of %d source groups, each group weighing alike; flat %g, prior scale %g (%s, of least mean |ln| at 40 answers over the groups)",
			len(tabs), countGroups(tabs), flat, scale, best))
	if err != nil {
		return err
	}
	log.Printf("curve prior (flat %g, prior scale %g) written to %s", flat, scale, path)
	return os.WriteFile(path, b, 0o644)
}

// chooseLOGO makes the outcomes of name: for each source group, those of the member of
// fam with the least mean |ln| at 40 answers over the other groups. It returns the
// member chosen for each group.
func chooseLOGO(res *results, tabs []*table, fam []string, name string) map[string]string {
	chosen := map[string]string{}
	groups := map[string]bool{}
	for _, t := range tabs {
		groups[t.group] = true
	}
	res.copies[name] = map[string][][2]float64{}
	for g := range groups {
		best, bestLn := "", math.Inf(1)
		for _, v := range fam {
			others := byTable{}
			for tab, os := range res.out[v]["40"] {
				if groupOf(tabs, tab) != g {
					others[tab] = os
				}
			}
			a, _, _ := perGroup(tabs, others)
			if a.absLn < bestLn {
				best, bestLn = v, a.absLn
			}
		}
		chosen[g] = best
		for _, t := range tabs {
			if t.group != g {
				continue
			}
			for _, s := range res.settings {
				for _, o := range res.out[best][s][t.name] {
					res.add(name, s, t.name, o)
				}
			}
			if c, ok := res.copies[best][t.name]; ok {
				res.copies[name][t.name] = c
			}
		}
	}
	return chosen
}

func groupOf(tabs []*table, name string) string {
	for _, t := range tabs {
		if t.name == name {
			return t.group
		}
	}
	return ""
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func loadTables(dataDir, fitsDir, only string) ([]*table, error) {
	corpus, err := bench.ReadCorpus(dataDir)
	if err != nil {
		return nil, err
	}
	var out []*table
	for _, ct := range corpus {
		if only != "" && !strings.Contains(ct.Name, only) {
			continue
		}
		t, err := loadTable(filepath.Join(fitsDir, ct.Name))
		if err != nil {
			return nil, fmt.Errorf("%s: %w (run bench/review/fit.sh first)", ct.Name, err)
		}
		t.name, t.group = ct.Name, ct.Group
		out = append(out, t)
	}
	return out, nil
}

func loadTable(dir string) (*table, error) {
	fit, err := fitdir.Read(dir)
	if err != nil {
		return nil, err
	}
	t := &table{auc: fit.ROCAUC, flagged: fit.Flagged, scores: fit.Scores, yRow: fit.Y, prior: fit.Prior}
	t.setRanks()
	return t, nil
}

// setRanks fills the rank-order labels, the F1 curve and the oracle from scores, yRow.
func (t *table) setRanks() {
	t.n = len(t.scores)
	t.y = make([]bool, t.n)
	t.T = 0
	for i, r := range review.Ranks(t.scores) {
		t.y[r-1] = t.yRow[i]
		if t.yRow[i] {
			t.T++
		}
	}
	t.f1 = make([]float64, t.n)
	t.oracle = 0
	tp := 0
	for c := 1; c <= t.n; c++ {
		if t.y[c-1] {
			tp++
		}
		t.f1[c-1] = 2 * float64(tp) / float64(c+t.T)
		t.oracle = max(t.oracle, t.f1[c-1])
	}
}

// subset is the copy of t holding rows (row indices).
func (t *table) subset(rows []int) *table {
	slices.Sort(rows)
	c := &table{name: t.name, group: t.group, prior: t.prior, auc: t.auc}
	for _, i := range rows {
		c.scores = append(c.scores, t.scores[i])
		c.yRow = append(c.yRow, t.yRow[i])
	}
	c.setRanks()
	return c
}

// rounds is the review's rounds for k answers: rounds of 20, or one of 10 where k is 10.
func rounds(k int) []int {
	if k <= 10 {
		return []int{k}
	}
	var r []int
	for left := k; left > 0; left -= 20 {
		r = append(r, min(20, left))
	}
	return r
}

// outcome is one simulated review: the estimate and how it reads against the truth.
type outcome struct {
	absLn, width, f1r float64
	w15, w2, covered  bool
	lnShare           float64 // ln(count / n)
	found             int     // anomalies among the answers
}

// answers simulates the answers to k questions of d's design from seed, as the CLI
// asks them: Next for each round, the answers from y. With seq every round asks one
// row (each answer seen before the next row is chosen).
func answers(t *table, d review.Method, k int, seed uint64, seq bool) []review.Answer {
	var ans []review.Answer
	rs := rounds(k)
	if seq {
		rs = slices.Repeat([]int{1}, k)
	}
	for round, m := range rs {
		ranks, err := d.Next(t.n, ans, nil, m, seed, t.prior)
		if err != nil {
			log.Fatalf("%s: %v", t.name, err)
		}
		for _, r := range ranks {
			ans = append(ans, review.Answer{Rank: r, Anomaly: t.y[r-1], Round: round + 1})
		}
	}
	return ans
}

// calibrate is m's estimate from ans, judged against t's labels.
func calibrate(t *table, m review.Method, ans []review.Answer) outcome {
	e, err := m.Calibrate(t.n, ans, t.prior, review.Target{})
	if err != nil {
		log.Fatalf("%s: %v", t.name, err)
	}
	o := t.judge(e.Count, e.Low*float64(t.n), e.High*float64(t.n), e.Cut)
	o.found = e.Anomalies
	return o
}

// judge reads a count, its interval (in rows) and a cut against t's labels.
func (t *table) judge(count, lo, hi float64, cut int) outcome {
	T := float64(t.T)
	l := math.Log(count / T)
	o := outcome{absLn: math.Abs(l), lnShare: math.Log(count / float64(t.n))}
	o.w15 = o.absLn <= math.Log(1.5)+1e-12
	o.w2 = o.absLn <= math.Log(2)+1e-12
	o.covered = lo <= T && T <= hi
	o.width = hi / max(lo, 0.5)
	if cut >= 1 && t.oracle > 0 {
		o.f1r = t.f1[min(cut, t.n)-1] / t.oracle
	}
	return o
}

// variant is an estimator measured: its settings for a table (a curve prior is learned
// on the other source groups' tables).
type variant struct {
	name   string
	method func(t *table) review.Method
	// design names the variant's design: variants of the same design are measured on
	// the same answers, asked by the first one's Next.
	design string
	// seq asks one row a round (rounds(k) otherwise). oracleS centres the share prior on
	// the table's true share, its width kept (at): a bound, not an estimator.
	seq, oracleS bool
}

// at is t as v sees it: with oracleS, its prior moved to its true share.
func (v variant) at(t *table) *table {
	if !v.oracleS {
		return t
	}
	c := *t
	f := float64(t.T) / float64(t.n) / t.prior.Share
	c.prior = review.Prior{Share: t.prior.Share * f, Low: t.prior.Low * f, High: min(1, t.prior.High*f)}
	return &c
}

// seen is t as each of vars sees it (variant.at).
func seen(vars []variant, t *table) []*table {
	ts := make([]*table, len(vars))
	for i, v := range vars {
		ts[i] = v.at(t)
	}
	return ts
}

// byTable is outcomes by table name.
type byTable map[string][]outcome

// results holds the outcomes of each variant: by setting (a row of the report:
// "fit", "0", or the number of answers), then table.
type results struct {
	settings []string
	out      map[string]map[string]byTable      // variant, setting, table
	copies   map[string]map[string][][2]float64 // variant, table: (true share, mean ln count share)
}

var ks = []int{10, 20, 40, 80}

func settingName(k int) string { return fmt.Sprintf("%d", k) }

func (res *results) add(v, s, tab string, o outcome) {
	if res.out[v] == nil {
		res.out[v] = map[string]byTable{}
	}
	if res.out[v][s] == nil {
		res.out[v][s] = byTable{}
		if !slices.Contains(res.settings, s) {
			res.settings = append(res.settings, s)
		}
	}
	res.out[v][s][tab] = append(res.out[v][s][tab], o)
}

// newResults is an empty results of vars.
func newResults(vars []variant) *results {
	res := &results{out: map[string]map[string]byTable{}, copies: map[string]map[string][][2]float64{}}
	for _, v := range vars {
		res.copies[v.name] = map[string][][2]float64{}
	}
	return res
}

func run(tabs []*table, vars []variant, reps, respReps int) *results {
	res := newResults(vars)
	// The methods first (learning a held-out curve prior caches it), then the tables
	// across the cores, each into a results of its own, merged in the tables' order.
	methods := make([][]review.Method, len(tabs))
	for ti, t := range tabs {
		methods[ti] = make([]review.Method, len(vars))
		for i, v := range vars {
			methods[ti][i] = v.method(t)
		}
	}
	per := make([]*results, len(tabs))
	var done atomic.Int32
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ti := range next {
				per[ti] = runTable(ti, tabs[ti], vars, methods[ti], reps, respReps)
				log.Printf("%s: done (%d/%d)", tabs[ti].name, done.Add(1), len(tabs))
			}
		}()
	}
	for ti := range tabs {
		next <- ti
	}
	close(next)
	wg.Wait()
	for ti, t := range tabs {
		r := per[ti]
		for _, v := range vars {
			for _, k := range r.settings {
				for _, o := range r.out[v.name][k][t.name] {
					res.add(v.name, k, t.name, o)
				}
			}
			if c, ok := r.copies[v.name][t.name]; ok {
				res.copies[v.name][t.name] = c
			}
		}
	}
	return res
}

// runTable is one table's figures for every variant (ms: their methods on it).
func runTable(ti int, t *table, vars []variant, ms []review.Method, reps, respReps int) *results {
	res := newResults(vars)
	ts := seen(vars, t)
	for i, v := range vars {
		t := ts[i]
		// 0 answers: the fit's label-free count and its interval, its flagged rows.
		res.add(v.name, "fit", t.name, t.judge(max(t.prior.Share*float64(t.n), 1), t.prior.Low*float64(t.n), t.prior.High*float64(t.n), t.flagged))
		res.add(v.name, "0", t.name, calibrate(t, ms[i], nil))
	}
	for _, k := range ks {
		for rep := range reps {
			ans := map[string][]review.Answer{}
			for i, v := range vars {
				if _, ok := ans[v.design]; !ok {
					ans[v.design] = answers(ts[i], ms[i], k, uint64(1000*ti+rep), v.seq)
				}
				res.add(v.name, settingName(k), t.name, calibrate(ts[i], ms[i], ans[v.design]))
			}
		}
	}
	if t.auc >= 0.9 {
		// Response: the table and its resampled copies, scores kept, 40 answers.
		labels := make([]int, t.n)
		for i, y := range t.yRow {
			if y {
				labels[i] = 1
			}
		}
		pts := make([][][2]float64, len(vars))
		for i, v := range vars {
			pts[i] = append(pts[i], [2]float64{float64(t.T) / float64(t.n), meanLn(res.out[v.name]["40"][t.name])})
		}
		for c, share := range bench.CopyShares(t.name, 6) {
			cp := t.subset(bench.CopyRows(labels, share, bench.CopyMaxRows, uint64(c)))
			cps := seen(vars, cp)
			os := make([][]outcome, len(vars))
			for rep := range respReps {
				ans := map[string][]review.Answer{}
				for i, v := range vars {
					if _, ok := ans[v.design]; !ok {
						ans[v.design] = answers(cps[i], ms[i], 40, uint64(1000*ti+rep), v.seq)
					}
					os[i] = append(os[i], calibrate(cps[i], ms[i], ans[v.design]))
				}
			}
			for i := range vars {
				pts[i] = append(pts[i], [2]float64{float64(cp.T) / float64(cp.n), meanLn(os[i])})
			}
		}
		for i, v := range vars {
			res.copies[v.name][t.name] = pts[i]
		}
	}
	return res
}

// meanLn is the mean ln(count share) of outcomes.
func meanLn(os []outcome) float64 {
	s := 0.0
	for _, o := range os {
		s += o.lnShare
	}
	return s / float64(len(os))
}

// slope is the least-squares slope of ln(estimate) on ln(true share), clipped to [0, 1];
// NaN where the true shares span less than 0.5 in ln or there are fewer than 3 points
// (internal/bench's slopeOf, the count study's response).
func slope(pts [][2]float64) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	var mx, my float64
	for _, p := range pts {
		x := math.Log(p[0])
		lo, hi = min(lo, x), max(hi, x)
		mx += x
		my += p[1]
	}
	if hi-lo < 0.5 || len(pts) < 3 {
		return math.NaN()
	}
	mx /= float64(len(pts))
	my /= float64(len(pts))
	var sxy, sxx float64
	for _, p := range pts {
		dx := math.Log(p[0]) - mx
		sxy += dx * (p[1] - my)
		sxx += dx * dx
	}
	return min(1, max(0, sxy/sxx))
}

// agg is the figures of a set of outcomes.
type agg struct {
	absLn, w15, w2, cov, width, f1r float64
}

func aggregate(os []outcome) agg {
	var a agg
	var widths []float64
	for _, o := range os {
		a.absLn += o.absLn
		a.w15 += b2f(o.w15)
		a.w2 += b2f(o.w2)
		a.cov += b2f(o.covered)
		a.f1r += o.f1r
		widths = append(widths, o.width)
	}
	n := float64(len(os))
	a.absLn, a.w15, a.w2, a.cov, a.f1r = a.absLn/n, a.w15/n, a.w2/n, a.cov/n, a.f1r/n
	a.width = median(widths)
	return a
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := slices.Clone(x)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// perGroup averages a setting's outcomes per table, then per group (the mean of its
// tables; the width: the median over the group's outcomes), then over groups (means;
// the width: the median of the groups' medians).
func perGroup(tabs []*table, by map[string][]outcome) (agg, map[string]agg, []string) {
	groups := map[string][]outcome{}
	var names []string
	tabsOf := map[string][]*table{}
	for _, t := range tabs {
		if _, ok := by[t.name]; !ok {
			continue
		}
		if _, ok := tabsOf[t.group]; !ok {
			names = append(names, t.group)
		}
		tabsOf[t.group] = append(tabsOf[t.group], t)
		groups[t.group] = append(groups[t.group], by[t.name]...)
	}
	slices.Sort(names)
	out := map[string]agg{}
	var all agg
	var widths []float64
	for _, g := range names {
		// Each table weighs alike within its group.
		var ta []agg
		for _, t := range tabsOf[g] {
			ta = append(ta, aggregate(by[t.name]))
		}
		var a agg
		for _, x := range ta {
			a.absLn += x.absLn / float64(len(ta))
			a.w15 += x.w15 / float64(len(ta))
			a.w2 += x.w2 / float64(len(ta))
			a.cov += x.cov / float64(len(ta))
			a.f1r += x.f1r / float64(len(ta))
		}
		a.width = aggregate(groups[g]).width
		out[g] = a
		all.absLn += a.absLn / float64(len(names))
		all.w15 += a.w15 / float64(len(names))
		all.w2 += a.w2 / float64(len(names))
		all.cov += a.cov / float64(len(names))
		all.f1r += a.f1r / float64(len(names))
		widths = append(widths, a.width)
	}
	all.width = median(widths)
	return all, out, names
}

// prototype is the prototype's ADAPT-BAYESP figures (shared/prototypes/review/README.md
// and issue 63), quoted beside ours: mean |ln|, within ×1.5, within ×2, coverage, width,
// F1 / oracle F1; NaN where it did not report one.
var prototype = map[string][6]float64{
	"fit": {1.08, 0.31, 0.46, 0.85, 29, 0.53},
	"10":  {0.76, 0.39, math.NaN(), 0.78, 8.3, 0.77},
	"20":  {0.63, 0.47, 0.73, 0.77, 5.2, 0.79},
	"40":  {0.52, 0.59, 0.79, 0.77, 3.5, 0.82},
	"80":  {0.38, 0.74, 0.90, 0.78, 2.5, 0.83},
}

// responses is each table's response (NaN where its copies' shares span too little).
func responses(res *results, v string) map[string]float64 {
	out := map[string]float64{}
	for tab, pts := range res.copies[v] {
		out[tab] = slope(pts)
	}
	return out
}

func meanResponse(res *results, v string) (float64, int) {
	var all []float64
	for _, s := range responses(res, v) {
		if !math.IsNaN(s) {
			all = append(all, s)
		}
	}
	return mean(all), len(all)
}

// final is the variant the report details (and the package ships); defaultVariants
// the ones measured beside it.
var (
	final           = "md+curve(LOGO)+prior(LOGO)+noise+ef1+t(LOGO)+strat(LOGO)+first(LOGO)"
	defaultVariants = "port,noise+ef1,curve0.2+noise+ef1," +
		"md+curve0.2+prior1+noise+ef1+t0,md+curve0.2+prior2+noise+ef1+t0," +
		"md+curve0.2+prior1+noise+ef1+t3,md+curve0.2+prior2+noise+ef1+t3," +
		"md+curve0.2+prior1+noise+ef1+t3+strat3+first1,md+curve0.2+prior1+noise+ef1+t3+strat2+first1," +
		"md+curve0.2+prior1+noise+ef1+t3+strat2+first0.01,md+curve0.1+prior1+noise+ef1+t3+strat2+first0.01," +
		"md+curve0.05+prior1+noise+ef1+t3+strat2+first0.01,md+curve0.02+prior1+noise+ef1+t3+strat2+first0.01," +
		"md+curve0.01+prior1+noise+ef1+t3+strat2+first0.01"
)

func report(w io.Writer, tabs []*table, res *results, vars []variant, families map[string][]string, chosen map[string]map[string]string, reps, respReps int) {
	fmt.Fprintf(w, "# The count from answers, measured on the corpus\n\n")
	fmt.Fprintf(w, "Regenerate (from the repository root, after ./build.sh; about 6 minutes on 2 cores), which also writes the shipped curve prior:\n\n")
	fmt.Fprintf(w, "    bench/review/fit.sh /work/shared/data && GOFLAGS=-tags=udocc_shimlib go run ./bench/review -data /work/shared/data -learn-curve internal/review/curve.json\n\n")
	fmt.Fprintf(w, "%d tables, %d source groups; one default fit per table (seed 0). Answers are taken from each table's y "+
		"through internal/review's Next and Calibrate (the CLI's code), in rounds of 20 (one round of 10 for 10 answers), "+
		"%d repeats per table (seeds differ); the prior is each fit's selected_ratio and its 80 %% interval. "+
		"Figures are averaged per table, then per source group, then over groups; the interval width (high/low) is the median "+
		"over a group's repeats, then the median over groups. F1 / oracle F1: the F1 of the cut over the best F1 of any cut of the same scores.\n\n",
		len(tabs), countGroups(tabs), reps)
	fmt.Fprintf(w, "## %s (what Calibrate ships)\n\n", final)
	writeMain(w, tabs, res, final)
	r, nr := meanResponse(res, final)
	fmt.Fprintf(w, "\nResponse to resampling at 40 answers on the %d tables of ROCAUC ≥ 0.9: **%.2f** (prototype: 0.74; see below).\n\n", nr, r)
	for _, fam := range slices.Sorted(maps.Keys(families)) {
		members := families[fam]
		fmt.Fprintf(w, "%s, held out by group: for each source group, the curve prior is learned on the other groups' fully labelled tables "+
			"(review.LearnCurve, each group weighing alike; curveF: mixed with all-alike weights in the proportion F), and of the members "+
			"{%s} the one of least mean |ln| at 40 answers on the other groups is chosen (priorL: the share prior's σ times L; tN: its Student t's degrees of freedom); the group is "+
			"measured with it. Chosen: %s. The proportion 0.2 was first chosen the same way, against 0.5, in an exploration run (8 repeats; "+
			"0.2 for each of the 34 held-out groups); the final family adds 0.1, 0.05, 0.02 and 0.01 (bench/review/notes.md, 2 and 7).\n\n",
			fam, strings.Join(members, ", "), chosenSummary(chosen[fam]))
	}
	fmt.Fprintf(w, "The final family holds the share prior at the scale and degrees of freedom the previous family chose for every group "+
		"(prior1, t3) and chooses the design's strata and first pass; bench/review/notes.md (6) has the figures of choosing them all at once.\n\n")
	fmt.Fprintf(w, "## Every estimator measured (the same answers)\n\n")
	fmt.Fprintf(w, "| estimator | 20 answers: \\|ln\\| / ×1.5 / ×2 / covers, width / F1 ratio | 40 answers | 80 answers | response at 40 |\n|---|---|---|---|---|\n")
	names := []string{}
	for _, v := range vars {
		names = append(names, v.name)
	}
	names = append(names, slices.Sorted(maps.Keys(families))...)
	for _, v := range names {
		fmt.Fprintf(w, "| %s |", v)
		for _, s := range []string{"20", "40", "80"} {
			a, _, _ := perGroup(tabs, res.out[v][s])
			fmt.Fprintf(w, " %.2f / %.0f %% / %.0f %% / %.0f %%, ×%.1f / %.2f |", a.absLn, 100*a.w15, 100*a.w2, 100*a.cov, a.width, a.f1r)
		}
		r, _ := meanResponse(res, v)
		fmt.Fprintf(w, " %.2f |\n", r)
	}
	fmt.Fprintf(w, "\nport: the prototype's ADAPT-BAYESP in Go (Neyman allocation, flat curve prior, interval from the grid's expected counts, cut of the posterior-mean F1). "+
		"noise: the unanswered rows' binomial spread added to the count's posterior. ef1: the cut of the highest posterior-expected F1. "+
		"curveF: the learned curve prior (held out by group). priorL: the share prior's σ times L. tN: the estimate's share prior a Student t of N degrees of freedom in ln(share), "+
		"t0 (and no t) the normal; the design reads the normal either way, so tN and t0 share answers. md: the model design (Next's default) in place of the Neyman allocation; "+
		"variants without md share the Neyman design's answers. "+
		"Bounds, which read y: oracleC the table's own curve posterior as the curve prior, oracleCr and oracleCs only its ceiling's or slope's marginal, "+
		"oracleS the share prior centred on the true share; seq: one row a round.\n")

	// Response.
	fmt.Fprintf(w, "\n## Response to resampling (40 answers, %s)\n\n", final)
	fmt.Fprintf(w, "On the tables whose scores reach ROCAUC ≥ 0.9, each table and 6 resampled copies (bench.CopyShares: shares log-uniform "+
		"in [0.2 %%, 40 %%]; bench.CopyRows: anomalies or normal rows subsampled, at most 20,000 rows), the table's scores kept, "+
		"%d repeats per copy. Response: the least-squares slope of the mean ln(count share) on ln(true share), clipped to [0, 1] "+
		"(internal/bench's slopeOf, the count study's definition). The prior is the original table's for every copy, so "+
		"without answers the response is 0 by construction (the count study measured 0.06 for the shipped label-free count on refitted copies).\n\n",
		respReps)
	resp := responses(res, final)
	fmt.Fprintf(w, "| table | ROCAUC | response | (true share, mean count share) of the table and its copies |\n|---|---|---|---|\n")
	for _, t := range tabs {
		if s, ok := resp[t.name]; ok {
			fmt.Fprintf(w, "| %s | %.3f | %.2f | %s |\n", t.name, t.auc, s, strings.Join(copyShares(res.copies[final][t.name]), " "))
		}
	}
	// Per group.
	fmt.Fprintf(w, "\n## Per group (%s): mean |ln| / within ×1.5 / coverage / F1 ratio\n\n| group | tables |", final)
	for _, s := range res.settings {
		fmt.Fprintf(w, " %s |", s)
	}
	fmt.Fprintf(w, "\n|---|---|%s\n", strings.Repeat("---|", len(res.settings)))
	_, _, groups := perGroup(tabs, res.out[final]["40"])
	gs := map[string]map[string]agg{}
	for _, s := range res.settings {
		_, gs[s], _ = perGroup(tabs, res.out[final][s])
	}
	for _, g := range groups {
		nt := 0
		for _, t := range tabs {
			if t.group == g {
				nt++
			}
		}
		fmt.Fprintf(w, "| %s | %d |", g, nt)
		for _, s := range res.settings {
			a := gs[s][g]
			fmt.Fprintf(w, " %.2f / %.0f %% / %.0f %% / %.2f |", a.absLn, 100*a.w15, 100*a.cov, a.f1r)
		}
		fmt.Fprintln(w)
	}
	zeroFound(w, tabs, res.out[final]["40"])
	// Per table.
	fmt.Fprintf(w, "\n## Per table at 40 answers (%s, mean over repeats)\n\n| table | group | n | true share | ROCAUC | prior share | mean count share | mean \\|ln\\| | within ×1.5 | covers | width | F1 / oracle |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n", final)
	for _, t := range tabs {
		os := res.out[final]["40"][t.name]
		a := aggregate(os)
		fmt.Fprintf(w, "| %s | %s | %d | %.3g %% | %.3f | %.3g %% | %.3g %% | %.2f | %.0f %% | %.0f %% | ×%.1f | %.2f |\n",
			t.name, t.group, t.n, 100*float64(t.T)/float64(t.n), t.auc, 100*t.prior.Share, 100*math.Exp(meanLn(os)),
			a.absLn, 100*a.w15, 100*a.cov, a.width, a.f1r)
	}
}

// writeMain writes the table for variant v.
func writeMain(w io.Writer, tabs []*table, res *results, v string) {
	fmt.Fprintf(w, "| answers | mean \\|ln(count/true)\\| | within ×1.5 | within ×2 | 80 %% interval: covers, width | F1 of the cut / oracle F1 | prototype (ADAPT-BAYESP) |\n|---|---|---|---|---|---|---|\n")
	label := map[string]string{"fit": "0: the fit's label-free count", "0": "0: Calibrate without answers (the prior)"}
	for _, s := range res.settings {
		a, _, _ := perGroup(tabs, res.out[v][s])
		name := label[s]
		if name == "" {
			name = s
		}
		proto := "—"
		if p, ok := prototype[s]; ok {
			proto = fmt.Sprintf("%.2f / %.0f %% / %s / %.0f %%, ×%.1f / %.2f", p[0], 100*p[1], pct(p[2]), 100*p[3], p[4], p[5])
		}
		fmt.Fprintf(w, "| %s | %.3f | %.1f %% | %.1f %% | %.1f %%, ×%.2f | %.3f | %s |\n", name, a.absLn, 100*a.w15, 100*a.w2, 100*a.cov, a.width, a.f1r, proto)
	}
}

func chosenSummary(c map[string]string) string {
	count := map[string]int{}
	for _, v := range c {
		count[v]++
	}
	var parts []string
	for v, n := range count {
		parts = append(parts, fmt.Sprintf("%s for %d groups", v, n))
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

func copyShares(pts [][2]float64) []string {
	var parts []string
	for _, p := range pts {
		parts = append(parts, fmt.Sprintf("(%.3g %%, %.3g %%)", 100*p[0], 100*math.Exp(p[1])))
	}
	return parts
}

func pct(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return fmt.Sprintf("%.0f %%", 100*x)
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func countGroups(tabs []*table) int {
	g := map[string]bool{}
	for _, t := range tabs {
		g[t.group] = true
	}
	return len(g)
}

// zeroFound reports the repeats at 40 answers that found no anomaly. Their answers are
// alike whatever the table (every row normal, the design's allocation then being the
// same), so the count can only be one value for them all, up to n and the prior: it is
// set beside the one value of least mean |ln| over them (per table, per group, then over
// groups), the best any estimator reading the answers alone could give.
func zeroFound(w io.Writer, tabs []*table, by map[string][]outcome) {
	type row struct {
		t        *table
		zero     int
		lnCount  float64 // mean ln(count / n) over the zero-found repeats
		lnTrue   float64
		absLnNow float64
	}
	var rows []row
	for _, t := range tabs {
		r := row{t: t, lnTrue: math.Log(float64(t.T) / float64(t.n))}
		for _, o := range by[t.name] {
			if o.found == 0 {
				r.zero++
				r.lnCount += o.lnShare
				r.absLnNow += o.absLn
			}
		}
		if r.zero > 0 {
			r.lnCount /= float64(r.zero)
			r.absLnNow /= float64(r.zero)
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return
	}
	// Mean |ln| per group first, then over the groups, of a per-table value f.
	overGroups := func(f func(r row) float64) float64 {
		sum, cnt := map[string]float64{}, map[string]float64{}
		for _, r := range rows {
			sum[r.t.group] += f(r)
			cnt[r.t.group]++
		}
		tot := 0.0
		for g := range sum {
			tot += sum[g] / cnt[g]
		}
		return tot / float64(len(sum))
	}
	now := overGroups(func(r row) float64 { return r.absLnNow })
	// The best constant share: the loss is piecewise linear in ln(share), so its least
	// is at one of the true shares.
	best, bestLoss := 0.0, math.Inf(1)
	for _, c := range rows {
		if l := overGroups(func(r row) float64 { return math.Abs(c.lnTrue - r.lnTrue) }); l < bestLoss {
			best, bestLoss = c.lnTrue, l
		}
	}
	fmt.Fprintf(w, "\n## Forty answers without an anomaly (%s)\n\n", final)
	fmt.Fprintf(w, "Repeats at 40 answers in which no answer was an anomaly. Their answers say the same whatever the table "+
		"(every row normal, in the same strata): apart from its number of rows and its label-free prior, no estimator reading the answers can tell these tables apart. "+
		"Over them, per group first, the count's mean |ln(count/true)| is %.2f. "+
		"The best single share for all of them, %.3g %%, would give %.2f.\n\n", now, 100*math.Exp(best), bestLoss)
	fmt.Fprintf(w, "| table | group | true share | ROCAUC | repeats without an anomaly | mean count share then |\n|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %.3g %% | %.3f | %d of %d | %.3g %% |\n", r.t.name, r.t.group, 100*math.Exp(r.lnTrue), r.t.auc,
			r.zero, len(by[r.t.name]), 100*math.Exp(r.lnCount))
	}
}

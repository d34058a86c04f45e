// Command answers measures how much the review's answers sharpen the ranking
// (internal/answers) on the corpus's tables. Each table's default fit gives the
// label-free scores; answers are taken from the table's y as `udocc review --k 20` twice
// gives them (internal/review's Next, the prior from the fit); ROCAUC and PRAUC are
// measured on the rows not answered, beside the label-free fit and the best of PyOD's
// eleven per table in hindsight (bench/answers/pyod_scores.py). Figures are averaged
// per table over the seeds, then per source group, then over groups; the mixing weight
// is chosen for each group on the other groups (leave one group out).
//
//	GOFLAGS=-tags=udocc_shimlib nice go run ./bench/answers -data /work/shared/data -fits /work/cache/fits -pyod /work/cache/pyod
package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/udocc/udocc/bench/internal/bench"
	"github.com/udocc/udocc/bench/internal/fitdir"
	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/answers"
	"github.com/udocc/udocc/internal/detector"
	"github.com/udocc/udocc/metrics"
)

// ruleName says a rule in a line.
func ruleName(r answers.Rule) string {
	switch {
	case r.Max == 0:
		return "label-free"
	}
	name := fmt.Sprintf("β = %.2f", r.Max)
	if r.C != 0 {
		name = fmt.Sprintf("β = %.2f·m/(m+%g)", r.Max, r.C)
	}
	if r.K > 1 {
		name = fmt.Sprintf("%d-NN, ", r.K) + name
	}
	switch r.Check {
	case answers.CheckGate:
		name += fmt.Sprintf(", gated (margin %+.2f)", r.Margin)
	case answers.CheckWeak:
		name += " × clamp(2(1 − A_s))"
	case answers.CheckContrast:
		name += " × clamp(0.5 + A_e − A_s)"
	}
	return name
}

// mixes are the weights G of a third part of the score: the classic detector
// (IsolationForest, HBOS or kNN, PyOD's scores as stand-ins for Go ones) whose AUC over
// the answered rows is highest, weighed G·clamp((A_d − A_s)/0.2, 0, 1) beside the
// shipped rule's evidence: a supervised choice among detectors, in XGBOD's spirit.
var mixes = []float64{0.2, 0.4, 0.6}

// mixDetectors are the detectors a mix may take.
var mixDetectors = []string{"IForest", "HBOS", "KNN"}

// names are the rules', then the mixes', in the order of res.roc and res.pr.
var names = func() []string {
	var out []string
	for _, r := range rules {
		out = append(out, ruleName(r))
	}
	for _, g := range mixes {
		out = append(out, fmt.Sprintf("shipped rule + best classic detector by the answers, G = %.1f", g))
	}
	return out
}()

// rules holds rule 0, the label-free fit, first.
var rules = func() []answers.Rule {
	rs := []answers.Rule{{}, {Max: 0.3}, {Max: 0.4}, {Max: 0.5}, {Max: 0.6}}
	for _, check := range []answers.Check{answers.CheckWeak, answers.CheckContrast} {
		for _, b := range []float64{0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1} {
			rs = append(rs, answers.Rule{Max: b, Check: check})
		}
	}
	for _, k := range []int{3, 5} {
		for _, check := range []answers.Check{answers.CheckWeak, answers.CheckContrast} {
			for _, b := range []float64{0.6, 0.7, 0.8, 0.9, 1} {
				rs = append(rs, answers.Rule{Max: b, Check: check, K: k})
			}
		}
	}
	return rs
}()

// res is one table's figures at one seed, unanswered rows only.
type res struct {
	roc, pr    []float64 // per beta
	pyRoc      float64   // best PyOD detector per table in hindsight (NaN: none)
	pyPr       float64
	anomAsked  int
	answeredOK bool
}

// tab is one table's figures, seed by seed.
type tab struct {
	name, group string
	r           []res
}

func main() {
	dataDir := flag.String("data", "../shared/data", "the corpus (GROUPS.csv)")
	fitsDir := flag.String("fits", "/work/cache/fits", "the default fits (bench/review/fit.sh)")
	pyodDir := flag.String("pyod", "/work/cache/pyod", "PyOD's per-row scores (pyod_scores.py)")
	only := flag.String("only", "", "only tables whose name contains this")
	seeds := flag.Int("seeds", 2, "answer seeds per table")
	out := flag.String("out", "bench/answers/results.md", "the report")
	dump := flag.String("dump", "", "also write every table's, seed's and rule's figures to this CSV")
	flag.Parse()

	corpus, err := bench.ReadCorpus(*dataDir)
	if err != nil {
		log.Fatal(err)
	}
	var tabs []tab
	for _, ct := range corpus {
		if *only != "" && !strings.Contains(ct.Name, *only) {
			continue
		}
		fit, err := fitdir.Read(filepath.Join(*fitsDir, ct.Name))
		if err != nil {
			log.Fatalf("%s: %v", ct.Name, err)
		}
		scores, y, prior := fit.Scores, fit.Y, fit.Prior
		ds, err := data.Load(ct.Path, data.LoadOptions{})
		if err != nil {
			log.Fatal(err)
		}
		if ds.N != len(scores) {
			log.Fatalf("%s: %d rows, the fit scored %d", ct.Name, ds.N, len(scores))
		}
		// The rows the answers' distances read, as Model.Learn reads them: the fit's
		// model matches and imputes the columns, and a wide table's model projects them
		// onto its principal components.
		m, err := detector.Load(filepath.Join(*fitsDir, ct.Name, "model"), "cpu")
		if err != nil {
			log.Fatalf("%s: %v", ct.Name, err)
		}
		ds, err = m.AnswerRows(ds)
		m.Close()
		if err != nil {
			log.Fatalf("%s: %v", ct.Name, err)
		}
		py, pyNamed := fitdir.LoadPyod(filepath.Join(*pyodDir, strings.ReplaceAll(ct.Name, "/", "_")+".csv"), ds.N)
		pyPct := map[string][]float64{}
		for _, d := range mixDetectors {
			if col := pyNamed[d]; col != nil {
				pyPct[d] = fitdir.Pct(col)
			}
		}
		t := tab{name: ct.Name, group: ct.Group}
		for s := 0; s < *seeds; s++ {
			ans, asked := fitdir.Simulate(scores, y, prior, uint64(s))
			// The product's own path (Model.Learn): the Sharpener from the answers,
			// each rule's β mixing its percentiles.
			var anom, norm []int
			for _, a := range ans {
				if a.Anomaly {
					anom = append(anom, a.Row)
				} else {
					norm = append(norm, a.Row)
				}
			}
			type evid struct {
				sh     *answers.Sharpener
				ps, pe []float64
				ae, as float64
			}
			byK := map[int]*evid{}
			evidOf := func(k int) *evid {
				if e := byK[k]; e != nil {
					return e
				}
				sh, err := answers.New(ds.X, ds.N, ds.D, scores, ans, answers.Rule{K: k})
				if err != nil {
					log.Fatal(err)
				}
				e := &evid{sh: sh}
				if sh != nil {
					e.ps, e.pe = sh.Percentiles(ds.X, ds.N, ds.D, scores)
					e.ae, e.as = sh.Check(scores, anom, norm)
				}
				byK[k] = e
				return e
			}
			// The mixes add to the shipped rule's evidence.
			shipped := evidOf(answers.DefaultRule.K)
			sh, ps, pe, checkE, checkS := shipped.sh, shipped.ps, shipped.pe, shipped.ae, shipped.as
			keep := make([]bool, ds.N)
			for i := range keep {
				keep[i] = !asked[i]
			}
			r := res{anomAsked: len(anom)}
			for _, ru := range rules {
				sc := scores
				e := evidOf(ru.K)
				beta := ru.Weight(r.anomAsked, e.ae, e.as)
				if e.sh != nil && beta > 0 {
					sc = answers.Mix(e.ps, e.pe, beta)
				}
				roc, pr := fitdir.AUCs(sc, y, keep)
				r.roc, r.pr = append(r.roc, roc), append(r.pr, pr)
			}
			// The mixes: the shipped rule's score and the answers' best detector.
			for _, g := range mixes {
				sc := scores
				if sh != nil {
					beta := answers.DefaultRule.Weight(r.anomAsked, checkE, checkS)
					bestA, best := math.Inf(-1), ""
					for _, d := range mixDetectors {
						col := pyNamed[d]
						if col == nil {
							continue
						}
						if a := answeredAUC(col, anom, norm); a > bestA {
							bestA, best = a, d
						}
					}
					gamma := 0.0
					if best != "" {
						gamma = min(g*min(max((bestA-checkS)/0.2, 0), 1), 1-beta)
					}
					if beta > 0 || gamma > 0 {
						mixed := make([]float64, len(scores))
						pd := pyPct[best]
						for i := range mixed {
							mixed[i] = (1-beta-gamma)*ps[i] + beta*pe[i]
							if gamma > 0 {
								mixed[i] += gamma * pd[i]
							}
						}
						sc = mixed
					}
				}
				roc, pr := fitdir.AUCs(sc, y, keep)
				r.roc, r.pr = append(r.roc, roc), append(r.pr, pr)
			}
			r.pyRoc, r.pyPr = math.NaN(), math.NaN()
			for _, col := range py {
				roc, pr := fitdir.AUCs(col, y, keep)
				if math.IsNaN(r.pyRoc) || roc > r.pyRoc {
					r.pyRoc = roc
				}
				if math.IsNaN(r.pyPr) || pr > r.pyPr {
					r.pyPr = pr
				}
			}
			t.r = append(t.r, r)
		}
		log.Printf("%s: label-free %.3f/%.3f, beta 0.3 %.3f/%.3f, pyod %.3f/%.3f", ct.Name,
			t.r[0].roc[0], t.r[0].pr[0], t.r[0].roc[3], t.r[0].pr[3], t.r[0].pyRoc, t.r[0].pyPr)
		tabs = append(tabs, t)
	}

	if *dump != "" {
		writeDump(*dump, tabs)
	}
	// Per table: mean over seeds. Per group: mean over tables.
	nb := len(names)
	type fig struct{ roc, pr []float64 }
	meanTab := func(t tab) (fig, float64, float64) {
		f := fig{make([]float64, nb), make([]float64, nb)}
		var pr, pp float64
		for _, r := range t.r {
			for b := 0; b < nb; b++ {
				f.roc[b] += r.roc[b] / float64(len(t.r))
				f.pr[b] += r.pr[b] / float64(len(t.r))
			}
			pr += r.pyRoc / float64(len(t.r))
			pp += r.pyPr / float64(len(t.r))
		}
		return f, pr, pp
	}
	groups := map[string][]int{}
	var gnames []string
	for i, t := range tabs {
		if groups[t.group] == nil {
			gnames = append(gnames, t.group)
		}
		groups[t.group] = append(groups[t.group], i)
	}
	tf := make([]fig, len(tabs))
	tpr := make([]float64, len(tabs))
	tpp := make([]float64, len(tabs))
	for i, t := range tabs {
		tf[i], tpr[i], tpp[i] = meanTab(t)
	}
	groupMean := func(g string, val func(i int) float64) float64 {
		var s float64
		var c int
		for _, i := range groups[g] {
			if v := val(i); !math.IsNaN(v) {
				s += v
				c++
			}
		}
		return s / float64(c)
	}
	// choose is fitdir.Choose among the rules. The mixes are not candidates: they need
	// classic detectors the model does not hold.
	groupOf, rocs, prs := make([]string, len(tabs)), make([][]float64, len(tabs)), make([][]float64, len(tabs))
	for i := range tabs {
		groupOf[i], rocs[i], prs[i] = tabs[i].group, tf[i].roc, tf[i].pr
	}
	choose := func(held string) int { return fitdir.Choose(groupOf, rocs, prs, len(rules), held) }
	chosen := map[string]int{}
	for _, g := range gnames {
		chosen[g] = choose(g)
	}

	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	w := io.MultiWriter(f, os.Stdout)
	fmt.Fprintf(w, "# The answers sharpen the ranking, measured on the corpus\n\n")
	fmt.Fprintf(w, "Produced by `GOFLAGS=-tags=udocc_shimlib go run ./bench/answers -data ../shared/data -fits FITS -pyod PYOD` (FITS: bench/review/fit.sh's default fits; PYOD: bench/answers/pyod_scores.py's per-row scores).\n\n")
	fmt.Fprintf(w, "Shipped rule (internal/answers.DefaultRule): **%s**, chosen with the fine-tuning that precedes it in a fit (bench/sad/results.md). Here the rules sharpen the label-free scores; on them the held-out choice's criterion, with no group held out, chooses %s.\n\n", ruleName(answers.DefaultRule), names[choose("")])
	fmt.Fprintf(w, "%d tables, %d source groups, %d answer seeds; answers as `udocc review --k 20` twice gives them (internal/review Next, rounds of 20, seed s), from each table's y. ROCAUC and PRAUC on the rows not answered; per table mean over seeds, then per group, then over groups. PyOD: the best of its eleven per table and seed in hindsight, on the same rows.\n\n", len(tabs), len(gnames), *seeds)
	fmt.Fprintf(w, "## Each rule (internal/answers.Mix; m = anomalies answered), mean over groups\n\n| rule | ROCAUC | PRAUC | ΔROCAUC | ΔPRAUC | tables worse by >0.02 ROCAUC | tables >0.10 behind PyOD's best |\n|---|---|---|---|---|---|---|\n")
	overGroups := func(val func(i int) float64) float64 {
		var s float64
		var c int
		for _, g := range gnames {
			v := groupMean(g, val)
			if !math.IsNaN(v) {
				s += v
				c++
			}
		}
		return s / float64(c)
	}
	for b := 0; b < nb; b++ {
		worse, behind := 0, 0
		for i := range tabs {
			if tf[i].roc[b] < tf[i].roc[0]-0.02 {
				worse++
			}
			if tf[i].roc[b] < tpr[i]-0.10 {
				behind++
			}
		}
		fmt.Fprintf(w, "| %s | %.3f | %.3f | %+.3f | %+.3f | %d | %d |\n", names[b],
			overGroups(func(i int) float64 { return tf[i].roc[b] }), overGroups(func(i int) float64 { return tf[i].pr[b] }),
			overGroups(func(i int) float64 { return tf[i].roc[b] - tf[i].roc[0] }), overGroups(func(i int) float64 { return tf[i].pr[b] - tf[i].pr[0] }),
			worse, behind)
	}
	fmt.Fprintf(w, "| PyOD best | %.3f | %.3f | | | | |\n\n", overGroups(func(i int) float64 { return tpr[i] }), overGroups(func(i int) float64 { return tpp[i] }))
	lo := func(i int) int { return chosen[tabs[i].group] }
	worse, behind, behind0 := 0, 0, 0
	var worseNames []string
	for i := range tabs {
		if d := tf[i].roc[lo(i)] - tf[i].roc[0]; d < -0.02 {
			worse++
			worseNames = append(worseNames, fmt.Sprintf("%s %+.3f", tabs[i].name, d))
		}
		if tf[i].roc[lo(i)] < tpr[i]-0.10 {
			behind++
		}
		if tf[i].roc[0] < tpr[i]-0.10 {
			behind0++
		}
	}
	fmt.Fprintf(w, "## rule chosen held out (leave one group out)\n\nRule chosen per held-out group: %s.\n\n", chosenSummary(chosen))
	shipped := slices.Index(names, ruleName(answers.DefaultRule))
	fmt.Fprintf(w, "| | ROCAUC | PRAUC |\n|---|---|---|\n| label-free | %.3f | %.3f |\n| with answers (the shipped rule) | %.3f | %.3f |\n| with answers (rule LOGO) | %.3f | %.3f |\n| PyOD best in hindsight | %.3f | %.3f |\n\n",
		overGroups(func(i int) float64 { return tf[i].roc[0] }), overGroups(func(i int) float64 { return tf[i].pr[0] }),
		overGroups(func(i int) float64 { return tf[i].roc[shipped] }), overGroups(func(i int) float64 { return tf[i].pr[shipped] }),
		overGroups(func(i int) float64 { return tf[i].roc[lo(i)] }), overGroups(func(i int) float64 { return tf[i].pr[lo(i)] }),
		overGroups(func(i int) float64 { return tpr[i] }), overGroups(func(i int) float64 { return tpp[i] }))
	fmt.Fprintf(w, "Tables worse than label-free by >0.02 ROCAUC (mean over seeds): %d (%s). Tables >0.10 ROCAUC behind PyOD's best: %d with answers, %d label-free.\n\n", worse, strings.Join(worseNames, ", "), behind, behind0)
	fmt.Fprintf(w, "## Per table (rule LOGO)\n\n| table | group | anomalies answered (mean) | label-free ROCAUC | with answers | PyOD best | label-free PRAUC | with answers | PyOD best |\n|---|---|---|---|---|---|---|---|---|\n")
	for i, t := range tabs {
		var asked float64
		for _, r := range t.r {
			asked += float64(r.anomAsked) / float64(len(t.r))
		}
		fmt.Fprintf(w, "| %s | %s | %.1f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", t.name, t.group, asked,
			tf[i].roc[0], tf[i].roc[lo(i)], tpr[i], tf[i].pr[0], tf[i].pr[lo(i)], tpp[i])
	}
}

func chosenSummary(c map[string]int) string {
	count := map[string]int{}
	for _, b := range c {
		count[names[b]]++
	}
	var keys []string
	for k := range count {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s in %d groups", k, count[k]))
	}
	return strings.Join(parts, ", ")
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// writeDump writes every table's, seed's and rule's ROCAUC and PRAUC to path.
func writeDump(path string, tabs []tab) {
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	w := csv.NewWriter(f)
	w.Write([]string{"table", "group", "seed", "anomalies_answered", "rule", "rocauc", "prauc", "pyod_rocauc", "pyod_prauc"})
	for _, t := range tabs {
		for s, r := range t.r {
			for b := range names {
				w.Write([]string{t.name, t.group, strconv.Itoa(s), strconv.Itoa(r.anomAsked), names[b],
					strconv.FormatFloat(r.roc[b], 'g', 6, 64), strconv.FormatFloat(r.pr[b], 'g', 6, 64),
					strconv.FormatFloat(r.pyRoc, 'g', 6, 64), strconv.FormatFloat(r.pyPr, 'g', 6, 64)})
			}
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}

// answeredAUC is the ROCAUC of scores over the answered anomalies (rows anom) against
// the answered normal rows (norm).
func answeredAUC(scores []float64, anom, norm []int) float64 {
	var sc []float64
	var l []int
	for _, set := range []struct {
		rows  []int
		label int
	}{{anom, 1}, {norm, 0}} {
		for _, r := range set.rows {
			sc, l = append(sc, scores[r]), append(l, set.label)
		}
	}
	a, err := metrics.ROCAUC(l, sc)
	if err != nil {
		return math.NaN()
	}
	return a
}

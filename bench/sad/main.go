// Command sad measures Deep SAD's fine-tuning with the answers (issue 67) beside the
// shipped sharpening (internal/answers) on the corpus: every table of the data folder,
// answers as `udocc review --k 20` twice gives them, ROCAUC and PRAUC on the rows not
// answered, per table over seeds, then per source group, then over groups. Each
// variant's choice is also made leaving each group out.
//
//	GOFLAGS=-tags=udocc_shimlib go run ./bench/sad -data ../shared/data -fits FITS
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/udocc/udocc/bench/internal/bench"
	"github.com/udocc/udocc/bench/internal/fitdir"
	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/answers"
	"github.com/udocc/udocc/internal/detector"
	"github.com/udocc/udocc/internal/method"
)

// variant is one score measured: its name and, for Deep SAD, its settings.
type variant struct {
	name string
	sad  *method.SAD
	// sharpen applies a sharpening rule on top (to the label-free scores, or to Deep
	// SAD's); avg averages Deep SAD's percentiles with the label-free ones.
	sharpen *answers.Rule
	avg     bool
	// minAnom is the fewest anomalies answered for Deep SAD to fine-tune (fewer: the
	// label-free scores, as where the answers hold none); 0 means 1.
	minAnom int
}

// sharpenings are the sharpening rules measured on top of each base: the shipped rule
// (the nearest answered row) first, then the three-nearest rules, and the rule of
// bench/answers' first choice.
var sharpenings = []answers.Rule{
	answers.DefaultRule,
	{Max: 1, Check: answers.CheckContrast, K: 3},
	{Max: 0.9, Check: answers.CheckContrast, K: 3},
	{Max: 1, Check: answers.CheckContrast, K: 5},
	{Max: 0.8, Check: answers.CheckWeak},
}

// ruleTag names a sharpening rule in a variant's name.
func ruleTag(r answers.Rule) string {
	k := max(r.K, 1)
	switch r.Check {
	case answers.CheckWeak:
		return fmt.Sprintf("%d-NN, β %.1f·clamp(2(1 − A_s))", k, r.Max)
	case answers.CheckContrast:
		return fmt.Sprintf("%d-NN, β %.1f·clamp(0.5 + A_e − A_s)", k, r.Max)
	}
	return fmt.Sprintf("%d-NN, β %.1f", k, r.Max)
}

func main() {
	dataDir := flag.String("data", "../shared/data", "the corpus (GROUPS.csv)")
	fitsDir := flag.String("fits", "/work/cache/fits", "the default fits (bench/review/fit.sh)")
	pyodDir := flag.String("pyod", "/work/cache/pyod", "PyOD's per-row scores (bench/answers/pyod_scores.py)")
	only := flag.String("only", "", "only tables whose name contains this")
	seeds := flag.Int("seeds", 2, "answer seeds per table")
	configs := flag.String("sad", "1:20:1e-4,1:20:1e-3", "Deep SAD settings eta:epochs:lr[:fewest anomalies answered], comma-separated")
	maxRows := flag.Int("max-rows", 100000, "a larger table is measured on this many of its unanswered rows, drawn per seed")
	out := flag.String("out", "bench/sad/results.md", "the report")
	flag.Parse()

	vars := []variant{{name: "label-free"}}
	for i := range sharpenings {
		vars = append(vars, variant{name: "sharpening (" + ruleTag(sharpenings[i]) + ")", sharpen: &sharpenings[i]})
	}
	for _, c := range strings.Split(*configs, ",") {
		f := strings.Split(c, ":")
		eta, _ := strconv.ParseFloat(f[0], 64)
		ep, _ := strconv.Atoi(f[1])
		lr, _ := strconv.ParseFloat(f[2], 64)
		s := &method.SAD{Eta: eta, Epochs: ep, LR: lr, Rows: 2048}
		tag := fmt.Sprintf("η %g, %d epochs, lr %g", eta, ep, lr)
		minA := 0
		if len(f) > 3 {
			minA, _ = strconv.Atoi(f[3])
			tag += fmt.Sprintf(", from %d anomalies answered", minA)
		}
		vars = append(vars, variant{name: "Deep SAD " + tag, sad: s, minAnom: minA})
		for i := range sharpenings {
			vars = append(vars, variant{name: "Deep SAD " + tag + " + sharpening (" + ruleTag(sharpenings[i]) + ")", sad: s, sharpen: &sharpenings[i], minAnom: minA})
		}
		vars = append(vars, variant{name: "Deep SAD " + tag + " averaged with label-free", sad: s, avg: true, minAnom: minA})
	}
	corpus, err := bench.ReadCorpus(*dataDir)
	if err != nil {
		log.Fatal(err)
	}
	type row struct {
		name, group string
		roc, pr     []float64 // per variant, mean over seeds
		pyRoc       float64   // PyOD's best detector per seed in hindsight, mean over seeds (NaN: none)
	}
	var rows []row
	var leftOut []string // tables no seed leaves both classes unanswered in
	ctx := context.Background()
	for _, ct := range corpus {
		if *only != "" && !strings.Contains(ct.Name, *only) {
			continue
		}
		fit, err := fitdir.Read(filepath.Join(*fitsDir, ct.Name))
		if err != nil {
			log.Fatalf("%s: %v", ct.Name, err)
		}
		full, err := data.Load(ct.Path, data.LoadOptions{})
		if err != nil {
			log.Fatal(err)
		}
		model := filepath.Join(*fitsDir, ct.Name, "model")
		r := row{name: ct.Name, group: ct.Group, roc: make([]float64, len(vars)), pr: make([]float64, len(vars))}
		py, _ := fitdir.LoadPyod(filepath.Join(*pyodDir, strings.ReplaceAll(ct.Name, "/", "_")+".csv"), full.N)
		pyN := 0
		counted := make([]int, len(vars)) // seeds whose unanswered rows hold both classes
		for s := 0; s < *seeds; s++ {
			ans, asked := fitdir.Simulate(fit.Scores, fit.Y, fit.Prior, uint64(s))
			// The rows measured: every answered row and the unanswered ones, at most
			// maxRows of them on a large table.
			sub := subset(asked, *maxRows, uint64(s))
			ds, scores, y, sans, keep := restrict(full, fit.Scores, fit.Y, ans, sub)
			best := math.NaN()
			for _, col := range py {
				if roc, _ := fitdir.AUCs(pick(col, sub), y, keep); math.IsNaN(best) || roc > best {
					best = roc
				}
			}
			if !math.IsNaN(best) {
				r.pyRoc += best
				pyN++
			}
			m, err := detector.Load(model, "cpu")
			if err != nil {
				log.Fatal(err)
			}
			x, err := m.AnswerRows(ds)
			m.Close()
			if err != nil {
				log.Fatal(err)
			}
			sharpen := func(base []float64, rule answers.Rule) []float64 {
				sh, err := answers.New(x.X, x.N, x.D, base, sans, rule)
				if err != nil {
					log.Fatal(err)
				}
				if sh == nil {
					return base
				}
				return sh.Apply(x.X, x.N, x.D, base)
			}
			nAnom := 0
			for _, a := range sans {
				if a.Anomaly {
					nAnom++
				}
			}
			both := nAnom > 0 && nAnom < len(sans)
			sadOf := map[*method.SAD][]float64{}
			for v, va := range vars {
				sc := scores
				if va.sad != nil {
					if sadOf[va.sad] == nil && (!both || nAnom < va.minAnom) {
						sadOf[va.sad] = scores // no anomaly (or no normal row) answered: nothing to train on, as the sharpening
					}
					if sadOf[va.sad] == nil {
						m, err := detector.Load(model, "cpu")
						if err != nil {
							log.Fatal(err)
						}
						var da []detector.Answer
						for _, a := range sans {
							da = append(da, detector.Answer{Row: a.Row, Anomaly: a.Anomaly, Round: 1})
						}
						o := *va.sad
						o.Seed = uint64(s)
						if sadOf[va.sad], err = m.FineTuneSAD(ctx, ds, da, o); err != nil {
							log.Fatalf("%s: %v", ct.Name, err)
						}
						m.Close()
					}
					sc = sadOf[va.sad]
				}
				if va.avg {
					a, b := fitdir.Pct(sc), fitdir.Pct(scores)
					sc = make([]float64, len(a))
					for i := range a {
						sc[i] = (a[i] + b[i]) / 2
					}
				}
				if va.sharpen != nil {
					sc = sharpen(sc, *va.sharpen)
				}
				if roc, pr := fitdir.AUCs(sc, y, keep); !math.IsNaN(roc) {
					r.roc[v] += roc
					r.pr[v] += pr
					counted[v]++
				}
			}
		}
		if counted[0] == 0 {
			log.Printf("%s: no seed leaves both classes unanswered: left out", ct.Name)
			leftOut = append(leftOut, ct.Name)
			continue
		}
		for v := range vars {
			r.roc[v] /= float64(counted[v])
			r.pr[v] /= float64(counted[v])
		}
		r.pyRoc /= float64(pyN) // NaN where PyOD has no scores of the table
		log.Printf("%s: %s", ct.Name, line(r.roc))
		rows = append(rows, r)
	}

	// Per group, then over groups.
	groups := map[string][]int{}
	for i, r := range rows {
		groups[r.group] = append(groups[r.group], i)
	}
	var gnames []string
	for g := range groups {
		gnames = append(gnames, g)
	}
	sort.Strings(gnames)
	mean := func(which func(row) []float64, v int, leave string) float64 {
		var s float64
		n := 0
		for _, g := range gnames {
			if g == leave {
				continue
			}
			var gs float64
			for _, i := range groups[g] {
				gs += which(rows[i])[v]
			}
			s += gs / float64(len(groups[g]))
			n++
		}
		return s / float64(n)
	}
	rocOf := func(r row) []float64 { return r.roc }
	prOf := func(r row) []float64 { return r.pr }
	groupOf, rocs, prs := make([]string, len(rows)), make([][]float64, len(rows)), make([][]float64, len(rows))
	for i, r := range rows {
		groupOf[i], rocs[i], prs[i] = r.group, r.roc, r.pr
	}
	choose := func(held string) int { return fitdir.Choose(groupOf, rocs, prs, len(vars), held) }
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintf(f, "# Deep SAD with the answers, measured on the corpus\n\n")
	fmt.Fprintf(f, "Produced by `GOFLAGS=-tags=udocc_shimlib go run ./bench/sad -data ../shared/data -fits FITS -seeds %d -sad %s` (FITS: bench/review/fit.sh's default fits).\n\n", *seeds, *configs)
	shipped := fmt.Sprintf("Deep SAD η %g, %d epochs, lr %g + sharpening (%s)", method.DefaultSAD.Eta, method.DefaultSAD.Epochs, method.DefaultSAD.LR, ruleTag(answers.DefaultRule))
	fmt.Fprintf(f, "Shipped (method.DefaultSAD, then answers.DefaultRule): **%s**. Chosen on every group by the held-out choice's criterion (below) with no group held out: %s.\n\n", shipped, vars[choose("")].name)
	fmt.Fprintf(f, "%d tables, %d source groups, %d answer seeds; answers as `udocc review --k 20` twice gives them, from each table's y. ROCAUC and PRAUC on the rows not answered (a table of more than %d rows: on %d of them, drawn per seed, the same for every variant); per table mean over seeds, then per group, then over groups. Deep SAD: the fitted ensemble's encoders fine-tuned on every answered row and 2,048 others, where the answers hold an anomaly and a normal row (the label-free scores elsewhere) (Ruff et al. 2020, Eq. (3); method.FineTune), the combination's scales fitted again on the rows measured.\n\n", len(rows), len(gnames), *seeds, *maxRows, *maxRows)
	if len(leftOut) > 0 {
		fmt.Fprintf(f, "Left out, as no seed leaves both classes among their unanswered rows (no ROCAUC to read): %s.\n\n", strings.Join(leftOut, ", "))
	}
	fmt.Fprintf(f, "| variant | ROCAUC | PRAUC | ΔROCAUC | ΔPRAUC | tables worse than label-free by > 0.02 ROCAUC | tables > 0.10 ROCAUC behind PyOD's best |\n|---|---|---|---|---|---|---|\n")
	behind := func(v func(r row) int) int {
		c := 0
		for _, r := range rows {
			if r.roc[v(r)] < r.pyRoc-0.10 {
				c++
			}
		}
		return c
	}
	for v, va := range vars {
		worse := 0
		for _, r := range rows {
			if r.roc[v] < r.roc[0]-0.02 {
				worse++
			}
		}
		fmt.Fprintf(f, "| %s | %.3f | %.3f | %+.3f | %+.3f | %d | %d |\n", va.name, mean(rocOf, v, ""), mean(prOf, v, ""),
			mean(rocOf, v, "")-mean(rocOf, 0, ""), mean(prOf, v, "")-mean(prOf, 0, ""), worse, behind(func(row) int { return v }))
	}

	// Leave one group out: the variant chosen on the other groups.
	var lroc, lpr float64
	chosen := map[string]int{}
	var worse []string
	picked := map[string]int{}
	for _, g := range gnames {
		best := choose(g)
		picked[g] = best
		chosen[vars[best].name]++
		var gr, gp float64
		for _, i := range groups[g] {
			gr += rows[i].roc[best]
			gp += rows[i].pr[best]
			if d := rows[i].roc[best] - rows[i].roc[0]; d < -0.02 {
				worse = append(worse, fmt.Sprintf("%s %+.3f", rows[i].name, d))
			}
		}
		lroc += gr / float64(len(groups[g])) / float64(len(gnames))
		lpr += gp / float64(len(groups[g])) / float64(len(gnames))
	}
	fmt.Fprintf(f, "\nChosen leaving each group out (the best mean ΔROCAUC + ΔPRAUC on the other groups among the variants that leave none of their tables worse than label-free by more than 0.02 ROCAUC): ")
	var cs []string
	for n, c := range chosen {
		cs = append(cs, fmt.Sprintf("%s for %d groups", n, c))
	}
	slices.Sort(cs)
	fmt.Fprintf(f, "%s. Held out: ROCAUC %.3f (%+.3f), PRAUC %.3f (%+.3f); tables worse than label-free by > 0.02: %d (%s); tables > 0.10 ROCAUC behind PyOD's best: %d (label-free: %d).\n\n", strings.Join(cs, "; "), lroc, lroc-mean(rocOf, 0, ""), lpr, lpr-mean(prOf, 0, ""), len(worse), strings.Join(worse, ", "),
		behind(func(r row) int { return picked[r.group] }), behind(func(row) int { return 0 }))
	// Per table: the label-free fit, the shipped sharpening alone, the shipped
	// fine-tuning with it, the held-out choice, and PyOD's best.
	shippedAt := slices.IndexFunc(vars, func(v variant) bool { return v.name == shipped })
	fmt.Fprintf(f, "## Per table (ROCAUC)\n\n| table | group | label-free | %s | %s | chosen held out | PyOD's best |\n|---|---|---|---|---|---|---|\n", vars[1].name, shipped)
	for _, r := range rows {
		fmt.Fprintf(f, "| %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f |\n", r.name, r.group, r.roc[0], r.roc[1], r.roc[shippedAt], r.roc[picked[r.group]], r.pyRoc)
	}
}

func line(v []float64) string {
	var s []string
	for _, x := range v {
		s = append(s, fmt.Sprintf("%.3f", x))
	}
	return strings.Join(s, " | ")
}

// subset is the rows measured: every asked row, and the others, at most max of them
// drawn from seed.
func subset(asked []bool, max int, seed uint64) []int {
	var in, others []int
	for i, a := range asked {
		if a {
			in = append(in, i)
		} else {
			others = append(others, i)
		}
	}
	if len(others) > max {
		rng := rand.New(rand.NewPCG(seed, 99))
		rng.Shuffle(len(others), func(i, j int) { others[i], others[j] = others[j], others[i] })
		others = others[:max]
	}
	out := append(in, others...)
	slices.Sort(out)
	return out
}

// pick is v at rows.
func pick(v []float64, rows []int) []float64 {
	out := make([]float64, len(rows))
	for j, i := range rows {
		out[j] = v[i]
	}
	return out
}

// restrict is the table, scores, labels and answers on the rows rows (ascending), and
// which of them are unanswered.
func restrict(ds *data.Dataset, scores []float64, y []bool, ans []answers.Answer, rows []int) (*data.Dataset, []float64, []bool, []answers.Answer, []bool) {
	at := make(map[int]int, len(rows))
	out := &data.Dataset{Name: ds.Name, N: len(rows), D: ds.D, Features: ds.Features, Named: ds.Named, X: make([]float32, 0, len(rows)*ds.D)}
	sc, yy := make([]float64, len(rows)), make([]bool, len(rows))
	for j, i := range rows {
		at[i] = j
		out.X = append(out.X, ds.Row(i)...)
		sc[j], yy[j] = scores[i], y[i]
	}
	keep := make([]bool, len(rows))
	for j := range keep {
		keep[j] = true
	}
	var sa []answers.Answer
	for _, a := range ans {
		j := at[a.Row]
		sa = append(sa, answers.Answer{Row: j, Anomaly: a.Anomaly})
		keep[j] = false
	}
	return out, sc, yy, sa, keep
}

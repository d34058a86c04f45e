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
	// sharpen applies the shipped sharpening on top (to the label-free scores, or to
	// Deep SAD's); avg averages Deep SAD's percentiles with the label-free ones.
	sharpen, avg bool
}

func main() {
	dataDir := flag.String("data", "../shared/data", "the corpus (GROUPS.csv)")
	fitsDir := flag.String("fits", "/work/cache/fits", "the default fits (bench/review/fit.sh)")
	only := flag.String("only", "", "only tables whose name contains this")
	seeds := flag.Int("seeds", 2, "answer seeds per table")
	configs := flag.String("sad", "1:20:1e-4,1:20:1e-3", "Deep SAD settings eta:epochs:lr, comma-separated")
	maxRows := flag.Int("max-rows", 100000, "a larger table is measured on this many of its unanswered rows, drawn per seed")
	out := flag.String("out", "bench/sad/results.md", "the report")
	flag.Parse()

	vars := []variant{{name: "label-free"}, {name: "shipped sharpening", sharpen: true}}
	for _, c := range strings.Split(*configs, ",") {
		f := strings.Split(c, ":")
		eta, _ := strconv.ParseFloat(f[0], 64)
		ep, _ := strconv.Atoi(f[1])
		lr, _ := strconv.ParseFloat(f[2], 64)
		s := &method.SAD{Eta: eta, Epochs: ep, LR: lr, Rows: 2048}
		tag := fmt.Sprintf("η %g, %d epochs, lr %g", eta, ep, lr)
		vars = append(vars, variant{name: "Deep SAD " + tag, sad: s},
			variant{name: "Deep SAD " + tag + " + sharpening", sad: s, sharpen: true},
			variant{name: "Deep SAD " + tag + " averaged with label-free", sad: s, avg: true})
	}
	corpus, err := bench.ReadCorpus(*dataDir)
	if err != nil {
		log.Fatal(err)
	}
	type row struct {
		name, group string
		roc, pr     []float64 // per variant, mean over seeds
	}
	var rows []row
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
		counted := make([]int, len(vars)) // seeds whose unanswered rows hold both classes
		for s := 0; s < *seeds; s++ {
			ans, asked := fitdir.Simulate(fit.Scores, fit.Y, fit.Prior, uint64(s))
			// The rows measured: every answered row and the unanswered ones, at most
			// maxRows of them on a large table.
			sub := subset(asked, *maxRows, uint64(s))
			ds, scores, y, sans, keep := restrict(full, fit.Scores, fit.Y, ans, sub)
			m, err := detector.Load(model, "cpu")
			if err != nil {
				log.Fatal(err)
			}
			x, err := m.AnswerRows(ds)
			m.Close()
			if err != nil {
				log.Fatal(err)
			}
			sharpen := func(base []float64) []float64 {
				sh, err := answers.New(x.X, x.N, x.D, base, sans, answers.DefaultRule)
				if err != nil {
					log.Fatal(err)
				}
				if sh == nil {
					return base
				}
				return sh.Apply(x.X, x.N, x.D, base)
			}
			sadOf := map[*method.SAD][]float64{}
			for v, va := range vars {
				sc := scores
				if va.sad != nil {
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
				if va.sharpen {
					sc = sharpen(sc)
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
			continue
		}
		for v := range vars {
			r.roc[v] /= float64(counted[v])
			r.pr[v] /= float64(counted[v])
		}
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
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintf(f, "# Deep SAD with the answers, measured on the corpus\n\n")
	fmt.Fprintf(f, "Produced by `GOFLAGS=-tags=udocc_shimlib go run ./bench/sad -data ../shared/data -fits FITS -seeds %d -sad %s` (FITS: bench/review/fit.sh's default fits).\n\n", *seeds, *configs)
	fmt.Fprintf(f, "%d tables, %d source groups, %d answer seeds; answers as `udocc review --k 20` twice gives them, from each table's y. ROCAUC and PRAUC on the rows not answered (a table of more than %d rows: on %d of them, drawn per seed, the same for every variant); per table mean over seeds, then per group, then over groups. Deep SAD: the fitted ensemble's encoders fine-tuned on every answered row and 2,048 others (Ruff et al. 2020, Eq. (3); method.FineTune), the combination's scales fitted again on the rows measured.\n\n", len(rows), len(gnames), *seeds, *maxRows, *maxRows)
	fmt.Fprintf(f, "| variant | ROCAUC | PRAUC | ΔROCAUC | ΔPRAUC | tables worse than label-free by > 0.02 ROCAUC |\n|---|---|---|---|---|---|\n")
	for v, va := range vars {
		worse := 0
		for _, r := range rows {
			if r.roc[v] < r.roc[0]-0.02 {
				worse++
			}
		}
		fmt.Fprintf(f, "| %s | %.3f | %.3f | %+.3f | %+.3f | %d |\n", va.name, mean(rocOf, v, ""), mean(prOf, v, ""),
			mean(rocOf, v, "")-mean(rocOf, 0, ""), mean(prOf, v, "")-mean(prOf, 0, ""), worse)
	}
	// Leave one group out: the variant of the highest mean ROCAUC on the other groups.
	var lroc, lpr float64
	chosen := map[string]int{}
	worse := 0
	for _, g := range gnames {
		best := 1
		for v := 1; v < len(vars); v++ {
			if mean(rocOf, v, g) > mean(rocOf, best, g) {
				best = v
			}
		}
		chosen[vars[best].name]++
		var gr, gp float64
		for _, i := range groups[g] {
			gr += rows[i].roc[best]
			gp += rows[i].pr[best]
			if rows[i].roc[best] < rows[i].roc[0]-0.02 {
				worse++
			}
		}
		lroc += gr / float64(len(groups[g])) / float64(len(gnames))
		lpr += gp / float64(len(groups[g])) / float64(len(gnames))
	}
	fmt.Fprintf(f, "\nChosen leaving each group out (highest mean ROCAUC on the other groups, among every variant but label-free): ")
	var cs []string
	for n, c := range chosen {
		cs = append(cs, fmt.Sprintf("%s for %d groups", n, c))
	}
	slices.Sort(cs)
	fmt.Fprintf(f, "%s. Held out: ROCAUC %.3f (%+.3f), PRAUC %.3f (%+.3f); tables worse than label-free by > 0.02: %d.\n\n", strings.Join(cs, "; "), lroc, lroc-mean(rocOf, 0, ""), lpr, lpr-mean(prOf, 0, ""), worse)
	fmt.Fprintf(f, "## Per table (ROCAUC)\n\n| table | group | %s |\n|---|---|%s\n", strings.Join(names(vars), " | "), strings.Repeat("---|", len(vars)))
	for _, r := range rows {
		fmt.Fprintf(f, "| %s | %s | %s |\n", r.name, r.group, line(r.roc))
	}
}

func names(vars []variant) []string {
	var out []string
	for _, v := range vars {
		out = append(out, v.name)
	}
	return out
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

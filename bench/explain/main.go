// Command explain measures udocc's per-row attributions (udocc.Model.Explain) on the
// paper's ten ODDS sets: how often the features that make an anomaly lead its
// explanation, and how much removing the leading features lowers a flagged row's score.
// It is a measurement, not a test: docs/explain.md gives its figures and the command.
//
// Faithfulness: from each set's normal rows, tables of the synth package's shifted kind
// (one to three features of 5 % of rows moved by 5 standard deviations, the moved
// features known); the default detector is fitted on each, and for every flagged true
// anomaly it is counted whether all its moved features are among the three features its
// explanation ranks first (and whether at least one is), for each of udocc's methods
// (occlusion, the default; integrated gradients; gradient × input), beside a COPOD-style
// reference (Li et al., ICDM 2020: each feature's empirical tail probability in the
// table, the smaller of its left and right tails, ranked by −log of it) and random choice
// (the exact expectation of three features drawn at random).
//
// Deletion: the default detector fitted on each set itself; for every flagged row, its
// score with the three features a method ranks first set to the normal rows' median
// (Model.Normal) against its score with three random features set so; it counts the
// rows whose score falls more for the leading ones.
//
// The "udocc default" column is ExplainOptions{}: the model's DefaultExplainMethod
// (Shapley values up to ShapleyMaxFeatures features, integrated gradients beyond).
//
//	go run ./bench/explain [-sets pima,cardio] [-seeds 3] [-threads 1] [-deletion=false]
//	go run ./bench/explain -shares                 # the shares' figures on the flagged rows
//	go run ./bench/explain -agree -sets pima,glass,thyroid -seeds 2   # top feature against exact Shapley's
//	go run ./bench/explain -precision -data ../shared/data -threads 2   # 4, 6, 8 permutations against 128
//	go run ./bench/explain -cost 3 -sets mnist   # the time a fit's explanations take
//	bench/explain/fitcost.sh bin/udocc 3 planted50.csv mnist.mat  # fit's wall time and peak RSS, --explain 3 against 0
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/udocc/udocc/bench/internal/bench"
	"github.com/udocc/udocc/bench/internal/synth"
	"github.com/udocc/udocc/data"
	udocc "github.com/udocc/udocc/internal/detector"
	"github.com/udocc/udocc/internal/odds"
	"github.com/udocc/udocc/internal/torch"
)

func main() {
	// A program owns its process: it keeps the pages its fits free (the library never
	// sets malloc by itself; see torch.KeepFreedPages).
	torch.KeepFreedPages()
	sets := flag.String("sets", "", "comma-separated ODDS sets (default: the paper's ten)")
	seeds := flag.Int("seeds", 3, "shifted tables per set (table seeds 0..seeds-1)")
	threads := flag.Int("threads", 1, "libtorch threads")
	ratio := flag.Float64("ratio", 0.05, "anomaly ratio of the shifted tables")
	cost := flag.Int("cost", 0, "instead: this many default fits of each set back to back, each timed with and without explaining its flagged rows")
	planted := flag.String("planted", "", "instead: write the planted table (-rows x -features, -anomalies of them shifted) to this CSV file, and its truth beside it")
	rows := flag.Int("rows", 10000, "rows of the planted table")
	features := flag.Int("features", 50, "features of the planted table")
	anomalies := flag.Int("anomalies", 50, "shifted rows of the planted table")
	shares := flag.Bool("shares", false, "instead: the shares' figures of the default fit's flagged rows on each set")
	prec := flag.Bool("precision", false, "instead: with -data, the sampled Shapley values of the default fit's flagged rows from 4, 6 and 8 permutations against 128, on every corpus table of 6 to 40 columns (or those -sets names)")
	regress := flag.Bool("regression", false, "with -precision: also KernelSHAP's and Leverage SHAP's regressions on paired coalitions, at the permutations' budgets")
	agree := flag.Bool("agree", false, "instead: agreement of each method's top feature with exact Shapley values' on the sets named (at most 12 features) and planted tables")
	samples := flag.Int("samples", 0, "ExplainOptions.Samples of -shares (0: the default)")
	deletions := flag.Bool("deletion", true, "with the faithfulness tables, the deletion check on the sets themselves")
	root := flag.String("data", "", "instead of the ODDS sets: the corpus folder (../shared/data), -sets naming its tables as paths in it (adbench/ALOI.npz,odds/cardio.mat)")
	maxRows := flag.Int("max-rows", 10000, "with -data: a table of more rows is read as a seeded sample of this many (bench.LoadRealTable)")
	flag.Parse()
	if *planted != "" {
		if err := writePlanted(*planted, *rows, *features, *anomalies, 0); err != nil {
			fmt.Fprintln(os.Stderr, "explain:", err)
			os.Exit(1)
		}
		return
	}
	if *prec {
		if *root == "" {
			fmt.Fprintln(os.Stderr, "explain: -precision needs -data, the corpus folder")
			os.Exit(2)
		}
		var names []string
		if *sets != "" {
			names = strings.Split(*sets, ",")
		}
		if err := precisionReport(*root, names, *threads, *maxRows, *regress); err != nil {
			fmt.Fprintln(os.Stderr, "explain:", err)
			os.Exit(1)
		}
		return
	}
	dir := odds.FindDir()
	if *root != "" {
		dir = *root
		if *sets == "" {
			fmt.Fprintln(os.Stderr, "explain: -data needs -sets, the tables as paths in it")
			os.Exit(2)
		}
	}
	if dir == "" {
		fmt.Fprintln(os.Stderr, "explain: no ODDS data (set UDOCC_DATA or put the files in ../shared/data/odds)")
		os.Exit(1)
	}
	var names []string
	if *sets != "" {
		names = strings.Split(*sets, ",")
	} else {
		for _, s := range odds.Sets() {
			names = append(names, s.Name)
		}
	}
	var err error
	switch {
	case *shares:
		err = sharesReport(dir, names, *threads, *samples)
	case *agree:
		err = agreementReport(dir, names, *threads, *seeds)
	case *cost > 0:
		err = costs(dir, names, *cost, *threads)
	default:
		load := func(name string) (*data.Dataset, error) {
			return data.Load(filepath.Join(dir, name+".mat"), data.LoadOptions{})
		}
		if *root != "" {
			load = func(name string) (*data.Dataset, error) {
				ds, _, _, err := bench.LoadRealTable(filepath.Join(dir, name), 0, *maxRows)
				return ds, err
			}
		}
		err = run(load, names, *seeds, *threads, *ratio, *deletions)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "explain:", err)
		os.Exit(1)
	}
}

// methods are the attributions compared, in the report's order.
var methods = []string{"udocc default", "udocc Shapley", "udocc occlusion", "udocc IG", "udocc grad×input", "COPOD-style", "random"}

// ours are udocc's methods, in methods' order; "" is the model's default
// (Model.DefaultExplainMethod: Shapley values up to ShapleyMaxFeatures features).
var ours = []udocc.ExplainMethod{"", udocc.Shapley, udocc.Occlusion, udocc.IntegratedGradients, udocc.GradientInput}

// explainAll is every one of ours' attributions of rows, and the seconds each method
// took (secs[k] for ours[k]; the default's, a copy of its method's, 0).
func explainAll(m *udocc.Model, ds *data.Dataset, rows []int) (out [][]udocc.Attribution, secs []float64, err error) {
	out = make([][]udocc.Attribution, len(ours))
	secs = make([]float64, len(ours))
	for k, meth := range ours {
		if meth == "" {
			continue // the default's, below: the same attributions as its method's
		}
		start := time.Now()
		if out[k], err = m.ExplainDataset(context.Background(), ds, rows, udocc.ExplainOptions{Method: meth}); err != nil {
			return nil, nil, err
		}
		secs[k] = time.Since(start).Seconds()
	}
	out[0] = out[slices.Index(ours, udocc.ExplainMethod(m.DefaultExplainMethod()))]
	return out, secs, nil
}

// flaggedRows are the indices of the rows the model flags.
func flaggedRows(m *udocc.Model) []int {
	var rows []int
	for i, l := range m.Labels() {
		if l {
			rows = append(rows, i)
		}
	}
	return rows
}

// tally counts explained anomalies: all of the moved features among the top three
// (all), at least one (any), of n.
type tally struct {
	all, any, n float64
}

func (t *tally) add(o tally) { t.all += o.all; t.any += o.any; t.n += o.n }

func pct(a, n float64) string {
	if n == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f", 100*a/n)
}

// run measures faithfulness on shifted tables of each named set and, with deletions,
// the deletion check on the set itself; load reads a set by its name.
func run(load func(string) (*data.Dataset, error), names []string, seeds, threads int, ratio float64, deletions bool) error {
	ctx := context.Background()
	opts := udocc.Options{Threads: threads}
	total := make([]tally, len(methods))
	dels := make([]deletion, len(ours)+1)
	fmt.Println("## Faithfulness on shifted tables")
	fmt.Println()
	fmt.Printf("| set | tables | flagged anomalies | %s |\n", strings.Join(methods, " | "))
	fmt.Printf("|---|---|---|%s\n", strings.Repeat("---|", len(methods)))
	var delRows, costRows []string
	for _, name := range names {
		ds, err := load(name)
		if err != nil {
			return err
		}
		gen, err := synth.NewFromDataset(ds, 0, synth.Options{})
		if err != nil {
			return err
		}
		per := make([]tally, len(methods))
		secs := make([]float64, len(ours)) // each method's explaining, over the table's seeds
		for s := 0; s < seeds; s++ {
			t, causes, err := gen.DatasetCauses(synth.Shifted, ratio, uint64(s))
			if err != nil {
				return err
			}
			start := time.Now()
			m, err := udocc.FitDataset(ctx, t, nil, opts)
			if err != nil {
				return fmt.Errorf("%s: %w", t.Name, err)
			}
			res, took, err := faithfulness(m, t, causes)
			m.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", t.Name, err)
			}
			for i := range per {
				per[i].add(res[i])
			}
			for k, v := range took {
				secs[k] += v
			}
			fmt.Fprintf(os.Stderr, "%s seed %d: %.1f s, %.0f flagged anomalies\n", t.Name, s, time.Since(start).Seconds(), res[0].n)
		}
		cells := make([]string, len(methods))
		for i, t := range per {
			cells[i] = pct(t.all, t.n) + " / " + pct(t.any, t.n)
			total[i].add(t)
		}
		fmt.Printf("| %s | %d | %.0f | %s |\n", name, seeds, per[0].n, strings.Join(cells, " | "))
		costRows = append(costRows, fmt.Sprintf("| %s | %d | %.0f | %.3f | %.3f | %.3f | %.3f |", name, ds.D, per[0].n,
			secs[1], secs[2], secs[3], secs[4]))

		if !deletions {
			continue
		}
		m, err := udocc.FitDataset(ctx, ds, nil, opts)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		d, err := deletionCheck(m, ds)
		m.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		row := fmt.Sprintf("| %s | %d |", name, d[0].n)
		for i := range d {
			row += " " + pct(float64(d[i].wins), float64(d[i].n)) + " | " + fmt.Sprintf("%.3g", d[i].meanDrop) + " |"
			dels[i].wins += d[i].wins
			dels[i].n += d[i].n
		}
		delRows = append(delRows, row+fmt.Sprintf(" %.3g |", d[0].meanRandom))
	}
	cells := make([]string, len(methods))
	for i, t := range total {
		cells[i] = pct(t.all, t.n) + " / " + pct(t.any, t.n)
	}
	fmt.Printf("| **all** | | %.0f | %s |\n", total[0].n, strings.Join(cells, " | "))
	fmt.Println()
	fmt.Println("Cells: % of flagged true anomalies whose moved features are all among the three ranked first / at least one is.")
	fmt.Println()
	fmt.Println("| set | features | rows explained | Shapley s | occlusion s | IG s | grad×input s |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, r := range costRows {
		fmt.Println(r)
	}
	if !deletions {
		return nil
	}
	fmt.Println()
	fmt.Println("## Deletion check on the paper sets")
	fmt.Println()
	fmt.Println("| set | flagged rows | default: beats random, % | mean drop | Shapley: beats random, % | mean drop | occlusion: beats random, % | mean drop | IG: beats random, % | mean drop | grad×input: beats random, % | mean drop | COPOD-style: beats random, % | mean drop | random: mean drop |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range delRows {
		fmt.Println(r)
	}
	all := fmt.Sprintf("| **all** | %d |", dels[0].n)
	for _, d := range dels {
		all += " " + pct(float64(d.wins), float64(d.n)) + " | |"
	}
	fmt.Println(all + " |")
	fmt.Println()
	fmt.Println("Beats random: % of flagged rows whose score falls more with the method's three leading features set to the normal rows' median than with three random features set so; mean drop: the mean fall of the score (negative: the score rises).")
	return nil
}

// faithfulness tallies, for each method, the flagged true anomalies of t whose causes
// lead their explanation, and the seconds each of ours took to explain them.
func faithfulness(m *udocc.Model, t *data.Dataset, causes [][]int) ([]tally, []float64, error) {
	var rows []int
	for i, l := range m.Labels() {
		if l && t.Y[i] == 1 && len(causes[i]) > 0 {
			rows = append(rows, i)
		}
	}
	out := make([]tally, len(methods))
	if len(rows) == 0 {
		return out, nil, nil
	}
	atts, secs, err := explainAll(m, t, rows)
	if err != nil {
		return nil, nil, err
	}
	tails := copodTails(t)
	for r, i := range rows {
		c := causes[i]
		for k := range ours {
			out[k].add(hit(atts[k][r].Top(3), c))
		}
		out[len(ours)].add(hit(topOf(tails.row(i), 3), c))
		out[len(ours)+1].add(randomHit(t.D, len(c)))
	}
	return out, secs, nil
}

// hit says whether all of causes, and whether any, are in top.
func hit(top, causes []int) tally {
	in := 0
	for _, c := range causes {
		if slices.Contains(top, c) {
			in++
		}
	}
	t := tally{n: 1}
	if in == len(causes) {
		t.all = 1
	}
	if in > 0 {
		t.any = 1
	}
	return t
}

// randomHit is hit's expectation for three of d features drawn at random and k causes:
// C(d−k, 3−k)/C(d, 3) for all, 1 − C(d−k, 3)/C(d, 3) for any.
func randomHit(d, k int) tally {
	c3 := binom(d, 3)
	return tally{all: binom(d-k, 3-k) / c3, any: 1 - binom(d-k, 3)/c3, n: 1}
}

func binom(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	r := 1.0
	for i := 0; i < k; i++ {
		r = r * float64(n-i) / float64(i+1)
	}
	return r
}

// tails are the COPOD-style per-feature outlyingness of every row of a table: −log of
// the smaller of the feature's empirical left and right tail probabilities,
// F(x) = #{v ≤ x}/n and #{v ≥ x}/n over the table's rows.
type tails struct {
	d int
	o []float64
}

func (t tails) row(i int) []float64 { return t.o[i*t.d : (i+1)*t.d] }

func copodTails(ds *data.Dataset) tails {
	n, d := ds.N, ds.D
	t := tails{d: d, o: make([]float64, n*d)}
	col := make([]float64, n)
	for j := 0; j < d; j++ {
		for i := range col {
			col[i] = float64(ds.X[i*d+j])
		}
		sorted := slices.Clone(col)
		sort.Float64s(sorted)
		for i, v := range col {
			le := sort.Search(n, func(k int) bool { return sorted[k] > v }) // #{≤ v}
			ge := n - sort.SearchFloat64s(sorted, v)                        // #{≥ v}
			p := float64(min(le, ge)) / float64(n)
			t.o[i*d+j] = -math.Log(p)
		}
	}
	return t
}

// topOf are the n largest of v's indices, largest first, ties in index order.
func topOf(v []float64, n int) []int {
	return udocc.Attribution{Features: v}.Top(n)
}

// deletion counts flagged rows whose score falls more with the method's top three
// features set to the normal median than with three random ones.
type deletion struct {
	wins, n              int
	meanDrop, meanRandom float64
}

// deletionCheck is the deletion check of ours and the COPOD-style ranking on the
// flagged rows of ds.
func deletionCheck(m *udocc.Model, ds *data.Dataset) ([]deletion, error) {
	out := make([]deletion, len(ours)+1)
	rows := flaggedRows(m)
	if len(rows) == 0 {
		return out, nil
	}
	atts, _, err := explainAll(m, ds, rows)
	if err != nil {
		return out, err
	}
	tl := copodTails(ds)
	median, _ := m.Normal()
	d := ds.D
	rng := rand.New(rand.NewPCG(7, uint64(len(rows))))
	// Altered copies of each row: each of ours' top three, COPOD's, and three random
	// features, all set to the median.
	c := len(ours) + 2
	alt := &data.Dataset{Name: ds.Name, N: c * len(rows), D: d, X: make([]float32, c*len(rows)*d)}
	for r, i := range rows {
		var tops [][]int
		for k := range ours {
			tops = append(tops, atts[k][r].Top(3))
		}
		tops = append(tops, topOf(tl.row(i), 3), rng.Perm(d)[:min(3, d)])
		for k, top := range tops {
			row := alt.X[(c*r+k)*d : (c*r+k+1)*d]
			copy(row, ds.Row(i))
			for _, j := range top {
				row[j] = float32(median[j])
			}
		}
	}
	s, _, err := m.ScoreDataset(context.Background(), alt)
	if err != nil {
		return out, err
	}
	for r, i := range rows {
		orig := m.Scores()[i]
		random := orig - s[c*r+c-1]
		for k := 0; k < c-1; k++ {
			drop := orig - s[c*r+k]
			out[k].n++
			if drop > random {
				out[k].wins++
			}
			out[k].meanDrop += drop / float64(len(rows))
			out[k].meanRandom += random / float64(len(rows))
		}
	}
	return out, nil
}

// costs times n default fits of each set, and the explanation of each fit's flagged rows
// by every method, back to back.
func costs(dir string, names []string, n, threads int) error {
	opts := udocc.Options{Threads: threads}
	fmt.Println("| set | run | fit s | flagged | default s | Shapley s | occlusion s | IG s | grad×input s | scoring Shapley's rows at once s |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for _, name := range names {
		ds, err := data.Load(filepath.Join(dir, name+".mat"), data.LoadOptions{})
		if err != nil {
			return err
		}
		for r := 1; r <= n; r++ {
			start := time.Now()
			m, err := udocc.FitDataset(context.Background(), ds, nil, opts)
			if err != nil {
				return err
			}
			fit := time.Since(start).Seconds()
			rows := flaggedRows(m)
			line := fmt.Sprintf("| %s | %d | %.2f | %d |", name, r, fit, len(rows))
			for _, meth := range ours {
				start = time.Now()
				if _, err := m.ExplainDataset(context.Background(), ds, rows, udocc.ExplainOptions{Method: meth}); err != nil {
					return err
				}
				line += fmt.Sprintf(" %.2f (%.1f %%) |", time.Since(start).Seconds(), 100*time.Since(start).Seconds()/fit)
			}
			// The rows the default Shapley values score, scored at once: the floor of
			// what they cost through Model.ScoreDataset.
			k := len(rows) * udocc.DefaultShapleySamples * (ds.D - 1)
			if ds.D <= udocc.CheapExactShapleyFeatures {
				k = len(rows) << ds.D
			}
			same := &data.Dataset{Name: ds.Name, N: k, D: ds.D, X: make([]float32, 0, k*ds.D)}
			for len(same.X) < k*ds.D {
				same.X = append(same.X, ds.Row(rows[(len(same.X)/ds.D)%len(rows)])...)
			}
			start = time.Now()
			if _, _, err := m.ScoreDataset(context.Background(), same); err != nil {
				return err
			}
			line += fmt.Sprintf(" %.2f |", time.Since(start).Seconds())
			m.Close()
			fmt.Println(line)
		}
	}
	return nil
}

package main

import (
	"bufio"
	"context"
	"fmt"
	"image/color"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	lib "github.com/udocc/udocc"
	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/atomicfile"
	"github.com/udocc/udocc/internal/parallel"
	"github.com/udocc/udocc/internal/plots"
)

// defaultExplain is how many features of each flagged row scores.csv names.
const defaultExplain = 3

// explainColumns are the scores.csv columns that name the features driving each
// flagged row's score: feature_i and share_i for i = 1..n (Attribution.Top and Shares),
// empty for the rows not explained. Only those numbers are kept, n a row: a large
// table's attributions (d a row) are never all held at once.
type explainColumns struct {
	n     int
	names []string
	rows  []int     // the rows explained, in increasing order
	top   []int32   // row rows[r]'s features, n from r*n
	share []float64 // and their shares
}

// explainChunk is the most rows explained at a time.
const explainChunk = 4096

// explainFlagged explains the rows that labels flag, naming n features each; nil where n
// is 0 or there are no labels.
func explainFlagged(m *lib.Model, ds *data.Dataset, labels []bool, n int) (*explainColumns, error) {
	if n == 0 || labels == nil {
		return nil, nil
	}
	ex := &explainColumns{n: min(n, ds.D), names: ds.Features}
	for i, l := range labels {
		if l {
			ex.rows = append(ex.rows, i)
		}
	}
	ex.top, ex.share = make([]int32, len(ex.rows)*ex.n), make([]float64, len(ex.rows)*ex.n)
	threads := runtime.GOMAXPROCS(0)
	for lo := 0; lo < len(ex.rows); lo += explainChunk {
		atts, err := m.ExplainDataset(ds, ex.rows[lo:min(lo+explainChunk, len(ex.rows))], lib.ExplainOptions{})
		if err != nil {
			return nil, fmt.Errorf("explaining the flagged rows: %w", libError(err))
		}
		// Each row's features and shares go to its own place: rows on the process's cores.
		parallel.For(len(atts), threads, func(r int) {
			a, at := atts[r], (lo+r)*ex.n
			shares := a.Shares()
			for q, j := range a.Top(ex.n) {
				ex.top[at+q], ex.share[at+q] = int32(j), shares[j]
			}
		})
	}
	return ex, nil
}

// header writes the columns' names, each after a comma.
func (ex *explainColumns) header(w *bufio.Writer) {
	if ex == nil {
		return
	}
	for i := 1; i <= ex.n; i++ {
		fmt.Fprintf(w, ",feature_%d,share_%d", i, i)
	}
}

// cells appends row i's cells to b, each after a comma.
func (ex *explainColumns) cells(b []byte, i int) []byte {
	if ex == nil {
		return b
	}
	r, ok := slices.BinarySearch(ex.rows, i)
	if !ok {
		for range ex.n {
			b = append(b, ',', ',')
		}
		return b
	}
	for k := r * ex.n; k < (r+1)*ex.n; k++ {
		b = append(append(b, ','), csvField(featureName(ex.names, int(ex.top[k])))...)
		b = strconv.AppendFloat(append(b, ','), ex.share[k], 'f', 4, 64)
	}
	return b
}

// featureName is column j's name, x<j+1> where the table names none.
func featureName(names []string, j int) string {
	if j < len(names) {
		return names[j]
	}
	return fmt.Sprintf("x%d", j+1)
}

// explainOutputs are the paths udocc explain writes into --out.
var explainOutputs = []string{"explain.png", "explanations.csv"}

// explainedRow is one row of udocc explain's report (and of its --json).
type explainedRow struct {
	Row      int                `json:"row"`
	Score    float64            `json:"score"`
	Flagged  *bool              `json:"flagged"`
	Base     float64            `json:"baseline_score"`
	Features []explainedFeature `json:"features"`
}

type explainedFeature struct {
	Name   string  `json:"name"`
	Value  float64 `json:"value"`
	Median float64 `json:"normal_median"`
	Spread float64 `json:"normal_spread"`
	Part   float64 `json:"part"`
	Share  float64 `json:"share"`
}

func runExplain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("explain", "--model DIR [flags] DATA", "Say which features drive the scores of rows of DATA under a saved model: per row, each feature's value, the normal rows' median and spread, and its share of the score; and a figure of the rows' attributions.", stdout)
	var f modelFlags
	addModelFlags(fs, &f, "output folder for explain.png and explanations.csv (default udocc-out/<data name>-explained)")
	rowsFlag := fs.String("rows", "", "rows to explain, 1-based as scores.csv numbers them, e.g. 3,17 (default: the --top highest-scored)")
	top := fs.Int("top", 10, "explain the rows with the highest scores, this many")
	nf := fs.Int("features", 5, "features shown per row, those that raise its score the most")
	method := fs.String("method", string(lib.Occlusion), "attribution: "+string(lib.Occlusion)+" (a feature's part is the score less the score with the feature set to the normal rows' median), "+string(lib.IntegratedGradients)+" or "+string(lib.GradientInput)+" (docs/explain.md)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := f.check(fs); err != nil {
		return err
	}
	rows, err := explainRows(fs, *rowsFlag, *top, *nf, *method)
	if err != nil {
		return err
	}
	path := fs.Arg(0)
	m, in, ds, err := f.open(fs)
	if err != nil {
		return err
	}
	defer m.Close()
	defer in.remove()
	for k, i := range rows {
		rows[k] = i - 1 // 1-based data rows of the file, as scores.csv numbers them
	}
	if rows, err = fileRowsToTable(rows, ds, path); err != nil {
		return err
	}
	for _, i := range rows {
		if i >= ds.N {
			return usagef("--rows: row %d, but %s has %d rows (1 to %d)", i+1, path, ds.N, ds.N)
		}
	}
	if rows == nil {
		scores, _, err := m.ScoreDataset(ds)
		if err != nil {
			return fmt.Errorf("%s: %w", path, libError(err))
		}
		rows = topRows(scores, *top)
	}
	atts, err := m.ExplainDataset(ds, rows, lib.ExplainOptions{Method: lib.ExplainMethod(*method)})
	if err != nil {
		return fmt.Errorf("%s: %w", path, libError(err))
	}
	report := explainReport(m, ds, atts, *nf)
	if ds.RowIndex != nil {
		for i := range report {
			report[i].Row = ds.RowIndex[report[i].Row-1] + 1 // the file's 1-based data row, as scores.csv numbers it
		}
	}
	if f.output.out == "" {
		f.output.out = filepath.Join("udocc-out", ds.Name+"-explained")
	}
	tx, err := beginOutputs(f.output, explainOutputs)
	if err != nil {
		return err
	}
	defer tx.Abort()
	if err := writeExplanations(filepath.Join(tx.Dir(), "explanations.csv"), report); err != nil {
		return err
	}
	if err := explainFigure(filepath.Join(tx.Dir(), "explain.png"), ds.Name, report); err != nil {
		return fmt.Errorf("figure explain.png: %w", err)
	}
	if err := commit(ctx, tx, f.output.out); err != nil {
		return err
	}
	if f.output.json {
		return printJSON(stdout, report)
	}
	printExplanations(stdout, m.Threshold(), report)
	if !f.output.quiet {
		fmt.Fprintf(stdout, "results in %s\n", f.output.out)
	}
	return nil
}

// explainRows checks explain's own flags and reads --rows (nil: --top's rows).
func explainRows(fs *pflag.FlagSet, rowsFlag string, top, nf int, method string) ([]int, error) {
	switch {
	case fs.Changed("rows") && fs.Changed("top"):
		return nil, usagef("--rows and --top: give one of them")
	case top < 1:
		return nil, usagef("--top %d: want at least 1", top)
	case nf < 1:
		return nil, usagef("--features %d: want at least 1", nf)
	}
	switch lib.ExplainMethod(method) {
	case lib.Occlusion, lib.IntegratedGradients, lib.GradientInput:
	default:
		return nil, usagef("--method %q: want %s, %s or %s", method, lib.Occlusion, lib.IntegratedGradients, lib.GradientInput)
	}
	if rowsFlag == "" {
		return nil, nil
	}
	return parseRows(rowsFlag)
}

// parseRows reads --rows: comma-separated 1-based row numbers (as scores.csv numbers
// rows), none twice.
func parseRows(s string) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	for _, f := range strings.Split(s, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || i < 1 {
			return nil, usagef("--rows %q: %q is not a row number (1 is the first row, as in scores.csv)", s, f)
		}
		if seen[i] {
			return nil, usagef("--rows %q: row %d twice", s, i)
		}
		seen[i] = true
		out = append(out, i)
	}
	return out, nil
}

// topRows are the n rows with the highest scores, highest first (ties by row).
func topRows(scores []float64, n int) []int {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return 0
	})
	return idx[:min(n, len(idx))]
}

// explainReport is each attribution with its nf top features, their values and the
// normal rows' median and spread.
func explainReport(m *lib.Model, ds *data.Dataset, atts []lib.Attribution, nf int) []explainedRow {
	median, spread := m.Normal()
	out := make([]explainedRow, len(atts))
	for r, a := range atts {
		er := explainedRow{Row: a.Row + 1, Score: a.Score, Base: a.Base} // 1-based, as scores.csv
		if l := m.Label([]float64{a.Score}); l != nil {
			er.Flagged = &l[0]
		}
		shares := a.Shares()
		for _, j := range a.Top(nf) {
			er.Features = append(er.Features, explainedFeature{Name: featureName(ds.Features, j), Value: float64(ds.Row(a.Row)[j]),
				Median: median[j], Spread: spread[j], Part: a.Features[j], Share: shares[j]})
		}
		out[r] = er
	}
	return out
}

// printExplanations prints a table per row.
func printExplanations(w io.Writer, thr float64, report []explainedRow) {
	for _, r := range report {
		state := ""
		if r.Flagged != nil {
			state = fmt.Sprintf(", threshold %.4g: normal", thr)
			if *r.Flagged {
				state = fmt.Sprintf(", threshold %.4g: flagged", thr)
			}
		}
		fmt.Fprintf(w, "row %d: score %.4g%s (the normal rows' median row scores %.4g)\n", r.Row, r.Score, state, r.Base)
		width := len("feature")
		for _, f := range r.Features {
			width = max(width, len(f.Name))
		}
		fmt.Fprintf(w, "  %-*s %12s %12s %12s %8s\n", width, "feature", "value", "normal med.", "normal MAD", "share")
		for _, f := range r.Features {
			fmt.Fprintf(w, "  %-*s %12.5g %12.5g %12.5g %+8.3f\n", width, f.Name, f.Value, f.Median, f.Spread, f.Share)
		}
		fmt.Fprintln(w)
	}
}

// writeExplanations writes one line per row and feature shown.
func writeExplanations(path string, report []explainedRow) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		bw.WriteString("row,score,baseline_score,rank,feature,value,normal_median,normal_spread,part,share\n")
		for _, r := range report {
			for i, f := range r.Features {
				fmt.Fprintf(bw, "%d,%s,%s,%d,%s,%s,%s,%s,%s,%s\n", r.Row, ftoa(r.Score), ftoa(r.Base), i+1, csvField(f.Name),
					ftoa(f.Value), ftoa(f.Median), ftoa(f.Spread), ftoa(f.Part), ftoa(f.Share))
			}
		}
		return bw.Flush()
	})
}

// explainFigure draws the shares of the top features of the first rows of the report
// (at most 8 rows), one colour per row.
func explainFigure(path, name string, report []explainedRow) error {
	palette := []color.Color{plots.Blue, plots.Orange, plots.Green, plots.Red, plots.Purple, plots.Grey}
	var b plots.Bars
	b.Title = fmt.Sprintf("%s: the features driving each row's score", name)
	b.XLabel = "share of the row's attribution (magnitudes sum to 1 over its features)"
	for r, row := range report[:min(8, len(report))] {
		for _, f := range row.Features {
			b.Labels = append(b.Labels, fmt.Sprintf("row %d: %s", row.Row, f.Name))
			b.Values = append(b.Values, f.Share)
			b.Colors = append(b.Colors, palette[r%len(palette)])
		}
	}
	return b.Save(path)
}

// addExplainFlag declares --explain for score (fit's is among its training flags).
func addExplainFlag(fs *pflag.FlagSet) *int {
	return fs.Int("explain", defaultExplain, "name this many features driving each flagged row's score in scores.csv (feature_i, share_i); 0: none")
}

// checkExplain checks --explain.
func checkExplain(n int) error {
	if n < 0 {
		return usagef("--explain %d: want 0 (none) or more features", n)
	}
	return nil
}

// fileRowsToTable maps --rows, the file's 0-based data rows (scores.csv's numbers less one),
// to ds's rows where rows were left out on reading (ds.RowIndex); a row left out is an
// error.
func fileRowsToTable(rows []int, ds *data.Dataset, path string) ([]int, error) {
	if ds.RowIndex == nil {
		return rows, nil
	}
	out := make([]int, len(rows))
	for k, r := range rows {
		i, ok := slices.BinarySearch(ds.RowIndex, r)
		if !ok {
			return nil, fmt.Errorf("--rows: row %d of %s was left out on reading (no value at all, or --missing drop-rows): nothing to explain", r+1, path)
		}
		out[k] = i
	}
	return out, nil
}

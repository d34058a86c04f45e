package main

import (
	"bufio"
	"cmp"
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

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/atomicfile"
	lib "github.com/udocc/udocc/internal/detector"
	"github.com/udocc/udocc/internal/parallel"
	"github.com/udocc/udocc/internal/plots"
)

// defaultExplain is how many features of each flagged row scores.csv names.
const defaultExplain = 3

// sharesDefinition is the one sentence that says what a share is, in --help and the
// README.
const sharesDefinition = "a feature's share is its part of the row's rise in score over the normal rows' median row, divided by the sum of the parts of the features that raise the score, so the raising features' shares sum to 1; features that lower the score have no share and are listed apart"

// explainColumns are the scores.csv columns that name the features driving each
// flagged row's score: feature_i and share_i for i = 1..n (Attribution.Top and Shares:
// only features that raise the score, the cells empty beyond them), empty for the rows
// not explained. Only those numbers are kept, n a row: a large table's attributions (d
// a row) are never all held at once.
type explainColumns struct {
	n       int
	names   []string
	flagged int       // the rows flagged, of which rows are explained
	rows    []int     // the rows explained, in increasing order
	top     []int32   // row rows[r]'s features, n from r*n
	share   []float64 // and their shares
}

// explainValues bounds the attributions held at a time, whatever the number of flagged
// rows: d float64 values a row for the parts, and as many for their errors and, while
// they are estimated, their sums of squares (12 MB in all).
const explainValues = 1 << 19

// explainFlagged explains the rows that labels flag, naming n features each; nil where n
// is 0 or there are no labels. A cancelled ctx stops it between blocks of rows.
func explainFlagged(ctx context.Context, m *lib.Model, ds *data.Dataset, scores []float64, labels []bool, n, maxRows int) (*explainColumns, error) {
	if n == 0 || labels == nil {
		return nil, nil
	}
	ex := &explainColumns{n: min(n, ds.D), names: ds.Features}
	for i, l := range labels {
		if l {
			ex.rows = append(ex.rows, i)
		}
	}
	ex.flagged = len(ex.rows)
	if maxRows > 0 && len(ex.rows) > maxRows {
		// The highest-scored maxRows of them (ties to the lower row), in row order.
		slices.SortStableFunc(ex.rows, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
		ex.rows = ex.rows[:maxRows]
		slices.Sort(ex.rows)
	}
	ex.top, ex.share = make([]int32, len(ex.rows)*ex.n), make([]float64, len(ex.rows)*ex.n)
	for i := range ex.top {
		ex.top[i] = -1
	}
	threads := runtime.GOMAXPROCS(0)
	chunk := max(1, explainValues/ds.D)
	for lo := 0; lo < len(ex.rows); lo += chunk {
		atts, err := m.ExplainDataset(ctx, ds, ex.rows[lo:min(lo+chunk, len(ex.rows))], lib.ExplainOptions{})
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
		if ex.top[k] < 0 { // fewer features raise the row's score
			b = append(b, ',', ',')
			continue
		}
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

// explainedRow is one row of udocc explain's report (and of its --json): the features
// that raise its score, with their shares; those that lower it, apart; the interaction
// of its two leading features where it carries a large part of the rise; and the
// leading features that together carry half the rise where no single one does.
type explainedRow struct {
	Row int    `json:"row"`
	ID  string `json:"id,omitempty"` // the id column's cell, where the table has one
	// Sharpened is the row's score sharpened by the answers of a model fitted with them,
	// which flags it; Score is then the networks' label-free score that the parts split.
	Sharpened   *float64              `json:"sharpened_score,omitempty"`
	Score       float64               `json:"score"`
	Flagged     *bool                 `json:"flagged"`
	Base        float64               `json:"baseline_score"`
	Features    []explainedFeature    `json:"features"`
	Lowering    []explainedFeature    `json:"lowering"`
	Interaction *explainedInteraction `json:"interaction,omitempty"`
	HalfRise    *explainedGroup       `json:"half_rise,omitempty"`
}

type explainedFeature struct {
	Name   string   `json:"name"`
	Value  float64  `json:"value"`
	Median float64  `json:"normal_median"`
	Spread float64  `json:"normal_spread"`
	Part   float64  `json:"part"`
	StdErr *float64 `json:"std_err,omitempty"`
	Share  *float64 `json:"share,omitempty"`
}

// explainedInteraction is Attribution.Interaction where Attribution.Interacts.
type explainedInteraction struct {
	Features [2]string `json:"features"`
	Part     float64   `json:"part"`
	OfRise   float64   `json:"share_of_rise"`
}

// explainedGroup is Attribution.Carrying(0.5) where it is longer than one feature: no
// single feature carries half the rise, these together do (their parts' sum, Part, is
// OfRise of the rise).
type explainedGroup struct {
	Features []string `json:"features"`
	Part     float64  `json:"part"`
	OfRise   float64  `json:"share_of_rise"`
}

func runExplain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("explain", "--model DIR [flags] DATA", "Say which features drive the scores of rows of DATA under a saved model: per row, each feature's value, the normal rows' median and spread, and its share of the score; and a figure of the rows' attributions.", stdout)
	var f modelFlags
	addModelFlags(fs, &f, "output folder for explain.png and explanations.csv (default udocc-out/<data name>-explained)")
	rowsFlag := fs.String("rows", "", "rows to explain, 1-based as scores.csv numbers them, e.g. 3,17 (default: the --top highest-scored)")
	top := fs.Int("top", 10, "explain the rows with the highest scores, this many")
	nf := fs.Int("explain", 5, "features shown per row (as fit --explain): those that raise its score the most, with their shares ("+sharesDefinition+"), and as many that lower it the most")
	method := fs.String("attribution", "", fmt.Sprintf("attribution method (default: %s for a model of at most %d features, %s for a wider one, occlusion for one that reads its table's principal components, fit --components): %s (a feature's part is its Shapley value, the features outside a coalition set to the normal rows' median: exact where at most %d features are off the median, estimated from %d permutations with a standard error beyond; the parts sum to the score less the median row's), ", lib.Shapley, lib.ShapleyMaxFeatures, lib.IntegratedGradients, lib.Shapley, lib.CheapExactShapleyFeatures, lib.DefaultShapleySamples)+string(lib.Occlusion)+" (the score less the score with the feature set to the normal rows' median), "+string(lib.IntegratedGradients)+" or "+string(lib.GradientInput)+" (docs/explain.md)")
	// The names of an earlier release, which other commands use for other things.
	fs.IntVar(nf, "features", 5, "")
	fs.StringVar(method, "method", "", "")
	fs.MarkDeprecated("features", "use --explain")
	fs.MarkDeprecated("method", "use --attribution (--method names fit's detector)")
	if err := parse(fs, args); err != nil {
		return err
	}
	noteDeprecated(fs, stderr)
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
		scores, _, err := m.ScoreDataset(ctx, ds)
		if err != nil {
			return fmt.Errorf("%s: %w", path, libError(err))
		}
		rows = topRows(scores, *top)
	}
	if f.output.out == "" {
		f.output.out = filepath.Join("udocc-out", ds.Name+"-explained")
	}
	atts, err := m.ExplainDataset(ctx, ds, rows, lib.ExplainOptions{Method: lib.ExplainMethod(*method)})
	if err != nil {
		return interrupted(ctx, f.output.out, fmt.Errorf("%s: %w", path, libError(err)))
	}
	flags, err := rowScores(ctx, m, ds, rows)
	if err != nil {
		return fmt.Errorf("%s: %w", path, libError(err))
	}
	report := explainReport(m, ds, atts, *nf, flags)
	if ds.RowIndex != nil {
		for i := range report {
			report[i].Row = ds.RowIndex[report[i].Row-1] + 1 // the file's 1-based data row, as scores.csv numbers it
		}
	}
	tx, err := beginOutputs(f.output, explainOutputs)
	if err != nil {
		return err
	}
	defer tx.Abort()
	if err := writeExplanations(filepath.Join(tx.Dir(), "explanations.csv"), report, ds.IDName); err != nil {
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
		return nil, usagef("--explain %d: want at least 1", nf)
	}
	if method != "" && !slices.Contains([]lib.ExplainMethod{lib.Shapley, lib.Occlusion, lib.IntegratedGradients, lib.GradientInput}, lib.ExplainMethod(method)) {
		return nil, usagef("--attribution %q: want %s, %s, %s or %s", method, lib.Shapley, lib.Occlusion, lib.IntegratedGradients, lib.GradientInput)
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

// explainReport is each attribution with its nf top raising features, their values, the
// normal rows' median and spread, parts and shares; its nf features that lower the score
// most; its interaction where Attribution.Interacts; and Attribution.Carrying(0.5) where
// it is longer than one feature.
//
// scores are the model's scores of the rows, which flag them: those of a model fitted with
// answers are sharpened, while the attributions split the networks' score.
func explainReport(m *lib.Model, ds *data.Dataset, atts []lib.Attribution, nf int, scores []float64) []explainedRow {
	median, spread := m.Normal()
	out := make([]explainedRow, len(atts))
	for r, a := range atts {
		er := explainedRow{Row: a.Row + 1, Score: a.Score, Base: a.Base, Features: []explainedFeature{}, Lowering: []explainedFeature{}} // 1-based, as scores.csv
		if ds.IDs != nil {
			er.ID = ds.IDs[a.Row]
		}
		if l := m.Label(scores[r : r+1]); l != nil {
			er.Flagged = &l[0]
		}
		if _, ok := m.Sharpened(); ok {
			er.Sharpened = &scores[r]
		}
		feature := func(j int) explainedFeature {
			f := explainedFeature{Name: featureName(ds.Features, j), Value: float64(ds.Row(a.Row)[j]),
				Median: median[j], Spread: spread[j], Part: a.Features[j]}
			if a.StdErr != nil {
				f.StdErr = &a.StdErr[j]
			}
			return f
		}
		shares := a.Shares()
		for _, j := range a.Top(nf) {
			f := feature(j)
			f.Share = &shares[j]
			er.Features = append(er.Features, f)
		}
		for _, j := range a.Lowering(nf) {
			er.Lowering = append(er.Lowering, feature(j))
		}
		if a.Interacts() {
			er.Interaction = &explainedInteraction{Features: [2]string{featureName(ds.Features, a.Pair[0]), featureName(ds.Features, a.Pair[1])},
				Part: a.Interaction, OfRise: a.Interaction / a.Rise()}
		}
		if half := a.Carrying(0.5); len(half) > 1 {
			g := &explainedGroup{}
			for _, j := range half {
				g.Features = append(g.Features, featureName(ds.Features, j))
				g.Part += a.Features[j]
			}
			g.OfRise = g.Part / a.Rise()
			er.HalfRise = g
		}
		out[r] = er
	}
	return out
}

// printExplanations prints a table per row: the raising features with their shares,
// then the lowering ones, then the interaction where it is reported, and the features
// that together carry half the rise where no single one does.
func printExplanations(w io.Writer, thr float64, report []explainedRow) {
	for _, r := range report {
		state := ""
		if r.Flagged != nil {
			state = fmt.Sprintf(", threshold %.4g: normal", thr)
			if *r.Flagged {
				state = fmt.Sprintf(", threshold %.4g: flagged", thr)
			}
		}
		name := fmt.Sprintf("row %d", r.Row)
		if r.ID != "" {
			name += fmt.Sprintf(" (id %s)", r.ID)
		}
		if r.Sharpened != nil {
			fmt.Fprintf(w, "%s: score %.4g sharpened by the answers%s; the networks' score %.4g (the normal rows' median row scores %.4g: a rise of %.4g)\n", name, *r.Sharpened, state, r.Score, r.Base, r.Score-r.Base)
		} else {
			fmt.Fprintf(w, "%s: score %.4g%s (the normal rows' median row scores %.4g: a rise of %.4g)\n", name, r.Score, state, r.Base, r.Score-r.Base)
		}
		width := len("feature")
		for _, f := range slices.Concat(r.Features, r.Lowering) {
			width = max(width, len(f.Name))
		}
		line := func(f explainedFeature) {
			part := fmt.Sprintf("%+.4g", f.Part)
			if f.StdErr != nil {
				part += fmt.Sprintf(" ± %.2g", *f.StdErr)
			}
			share := ""
			if f.Share != nil {
				share = fmt.Sprintf("%5.1f %%", 100**f.Share)
			}
			fmt.Fprintf(w, "  %-*s %12.5g %12.5g %12.5g %18s %8s\n", width, f.Name, f.Value, f.Median, f.Spread, part, share)
		}
		fmt.Fprintf(w, "  %-*s %12s %12s %12s %18s %8s\n", width, "raises", "value", "normal med.", "normal MAD", "part", "share")
		if len(r.Features) == 0 {
			fmt.Fprintf(w, "  (no feature raises the score)\n")
		}
		for _, f := range r.Features {
			line(f)
		}
		if len(r.Lowering) > 0 {
			fmt.Fprintf(w, "  lowers\n")
			for _, f := range r.Lowering {
				line(f)
			}
		}
		if in := r.Interaction; in != nil {
			fmt.Fprintf(w, "  together, %s and %s add %+.4g beyond their single parts: %.0f %% of the rise\n", in.Features[0], in.Features[1], in.Part, 100*in.OfRise)
		}
		if g := r.HalfRise; g != nil {
			fmt.Fprintf(w, "  no single feature carries half the rise; the first %d together carry %.0f %% of it: %s\n", len(g.Features), 100*g.OfRise, strings.Join(g.Features, ", "))
		}
		fmt.Fprintln(w)
	}
}

// writeExplanations writes one line per row and feature shown: effect "raises" (with a
// share), "lowers" (none), "interaction" (the two leading features, joined by " & "), or
// "half_rise" (the leading features that together carry half the rise where no single
// one does, joined by " & ", part the sum of their parts).
//
// Where the table has an id column (idName), its cell leads each line, under its name.
func writeExplanations(path string, report []explainedRow, idName string) error {
	opt := func(v *float64) string {
		if v == nil {
			return ""
		}
		return ftoa(*v)
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		id := idName != ""
		if id {
			bw.WriteString(csvField(idName) + ",")
		}
		bw.WriteString("row,score,baseline_score,effect,rank,feature,value,normal_median,normal_spread,part,std_err,share\n")
		for _, r := range report {
			lead := ""
			if id {
				lead = csvField(r.ID) + ","
			}
			for _, g := range []struct {
				effect string
				fs     []explainedFeature
			}{{"raises", r.Features}, {"lowers", r.Lowering}} {
				for i, f := range g.fs {
					fmt.Fprintf(bw, "%s%d,%s,%s,%s,%d,%s,%s,%s,%s,%s,%s,%s\n", lead, r.Row, ftoa(r.Score), ftoa(r.Base), g.effect, i+1, csvField(f.Name),
						ftoa(f.Value), ftoa(f.Median), ftoa(f.Spread), ftoa(f.Part), opt(f.StdErr), opt(f.Share))
				}
			}
			if in := r.Interaction; in != nil {
				fmt.Fprintf(bw, "%s%d,%s,%s,interaction,1,%s,,,,%s,,\n", lead, r.Row, ftoa(r.Score), ftoa(r.Base),
					csvField(in.Features[0]+" & "+in.Features[1]), ftoa(in.Part))
			}
			if g := r.HalfRise; g != nil {
				fmt.Fprintf(bw, "%s%d,%s,%s,half_rise,1,%s,,,,%s,,\n", lead, r.Row, ftoa(r.Score), ftoa(r.Base),
					csvField(strings.Join(g.Features, " & ")), ftoa(g.Part))
			}
		}
		return bw.Flush()
	})
}

// explainFigure draws the shares of the top features of the first rows of the report
// (at most 8 rows), one colour per row; a row that no feature raises (its score at or
// below the median row's) gets an empty bar saying so, so that the figure is drawn
// whatever the rows.
func explainFigure(path, name string, report []explainedRow) error {
	palette := []color.Color{plots.Blue, plots.Orange, plots.Green, plots.Red, plots.Purple, plots.Grey}
	var b plots.Bars
	b.Title = fmt.Sprintf("%s: the features driving each row's score", name)
	b.XLabel = "share of the row's rise among the features that raise it (they sum to 1)"
	for r, row := range report[:min(8, len(report))] {
		if len(row.Features) == 0 {
			b.Labels = append(b.Labels, fmt.Sprintf("row %d: no feature raises its score", row.Row))
			b.Values = append(b.Values, 0)
			b.Colors = append(b.Colors, palette[r%len(palette)])
		}
		for _, f := range row.Features {
			b.Labels = append(b.Labels, fmt.Sprintf("row %d: %s", row.Row, f.Name))
			b.Values = append(b.Values, *f.Share)
			b.Colors = append(b.Colors, palette[r%len(palette)])
		}
	}
	return b.Save(path)
}

// addExplainFlag declares --explain for score (fit's is among its training flags).
func addExplainFlag(fs *pflag.FlagSet) *int {
	return fs.Int("explain", defaultExplain, "name at most this many features raising each flagged row's score in scores.csv (feature_i, share_i: "+sharesDefinition+"); 0: none")
}

// defaultExplainRows is the most flagged rows scores.csv explains unless told: a large
// table's tens of thousands of flagged rows would take minutes.
const defaultExplainRows = 1000

// addExplainRowsFlag declares --explain-rows.
func addExplainRowsFlag(fs *pflag.FlagSet, p *int) {
	fs.IntVar(p, "explain-rows", defaultExplainRows, "explain in scores.csv at most this many flagged rows, the highest-scored; 0: every flagged row")
}

// explainedNote is the line that says scores.csv explains only some flagged rows; "" where
// it explains every one.
func explainedNote(ex *explainColumns) string {
	if ex == nil || len(ex.rows) == ex.flagged {
		return ""
	}
	return fmt.Sprintf("  scores.csv explains the %d highest-scored of the %d flagged rows (--explain-rows 0 for every one)", len(ex.rows), ex.flagged)
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
	if ds.RowIndex == nil || rows == nil { // nil: --top's rows, chosen later
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

// rowScores are the model's scores of ds's rows, in order.
func rowScores(ctx context.Context, m *lib.Model, ds *data.Dataset, rows []int) ([]float64, error) {
	sub := &data.Dataset{Name: ds.Name, N: len(rows), D: ds.D, X: make([]float32, 0, len(rows)*ds.D), Features: ds.Features, Named: ds.Named}
	for _, i := range rows {
		sub.X = append(sub.X, ds.Row(i)...)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	s, _, err := m.ScoreDataset(ctx, sub)
	return s, err
}

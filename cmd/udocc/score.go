package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/atomicfile"
	lib "github.com/udocc/udocc/internal/detector"
)

// scoreSummary is the summary.json of udocc score.
type scoreSummary struct {
	Udocc     string   `json:"udocc"`
	Model     string   `json:"model"`
	Data      string   `json:"data"`
	Source    string   `json:"source"`
	Method    string   `json:"method"`
	N         int      `json:"n"`
	D         int      `json:"d"`
	Device    string   `json:"device"`
	Threshold *float64 `json:"threshold"`
	// Cut is the re-cut that drew Threshold on these rows (--contamination, --count,
	// --threshold); absent for the model's own threshold.
	Cut     string        `json:"cut,omitempty"`
	Flagged int           `json:"flagged"`
	Columns columnsReport `json:"columns"`
	// CountBasis says, for a model calibrated from answers (udocc cut --labels), how
	// many answers its threshold rests on; absent otherwise.
	CountBasis *countBasis `json:"count_basis,omitempty"`
	labelMetrics
}

func runScore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("score", "--model DIR [flags] DATA", "Apply a saved model (standardisation, networks, centers, thresholds) to the rows of DATA.", stdout)
	var f modelFlags
	addModelFlags(fs, &f, "output folder for scores.csv and summary.json (default udocc-out/<data name>-scored)")
	addSendFlags(fs, &f.table)
	explain := addExplainFlag(fs)
	var explainRows int
	addExplainRowsFlag(fs, &explainRows)
	var cf cutFlags
	addCutFlags(fs, &cf, "the rows scored")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := checkExplain(*explain); err != nil {
		return err
	}
	cut, err := cf.cut(fs, false)
	if err != nil {
		return err
	}
	if err := f.check(fs); err != nil {
		return err
	}
	if err := checkClobber(fs.Arg(0), f.model, f.output, f.table); err != nil {
		return err
	}
	m, in, ds, err := f.open(fs)
	if err != nil {
		return err
	}
	defer m.Close()
	defer in.remove()
	if f.output.out == "" {
		f.output.out = filepath.Join("udocc-out", ds.Name+"-scored")
	}
	tx, err := beginOutputs(f.output, scoreOutputs)
	if err != nil {
		return err
	}
	defer tx.Abort()
	s, b, err := writeScored(ctx, tx.Dir(), m, f.model, fs.Arg(0), ds, *explain, explainRows, cut, f.table)
	if err != nil {
		return interrupted(ctx, f.output.out, err)
	}
	if err := commit(ctx, tx, f.output.out); err != nil {
		return err
	}
	if err := sendOutputs(f.table, in, f.output.out, s.scores, s.labels, stdout); err != nil {
		return err
	}
	stdout = f.table.reportTo(stdout, stderr)
	if f.output.json {
		_, err = stdout.Write(append(b, '\n'))
		return err
	}
	if !f.output.quiet {
		fmt.Fprintf(stdout, "udocc score: %s (%d rows) with %s: %d flagged; results in %s\n", ds.Name, ds.N, f.model, s.Flagged, f.output.out)
		if cut != nil {
			fmt.Fprintf(stdout, "  re-cut %s on these rows: threshold %.6g (the model's own is untouched)\n", s.Cut, *s.Threshold)
		}
		if s.CountBasis != nil {
			fmt.Fprintf(stdout, "  the model's threshold: %s\n", s.CountBasis.Note)
		}
		if m := s.labelMetrics; m.ROCAUC != nil {
			fmt.Fprintf(stdout, "  against the label: true anomaly ratio %.4f: ROCAUC %.4f  PRAUC %.4f", *m.TrueRatio, *m.ROCAUC, *m.PRAUC)
			if m.F1 != nil {
				fmt.Fprintf(stdout, "  F1 %.4f", *m.F1)
			}
			fmt.Fprintln(stdout)
		}
		s.Columns.print(stdout)
		if s.explainedNote != "" {
			fmt.Fprintln(stdout, s.explainedNote)
		}
	}
	return nil
}

// scored is what udocc score says of a table: summary.json's contents and the rows'
// scores and labels.
type scored struct {
	scoreSummary
	scores []float64
	labels []bool
	// explainedNote says that scores.csv explains only some flagged rows ("" for all).
	explainedNote string
}

// writeScored scores ds, read from path, with the model saved in dir and writes
// scores.csv and summary.json into out; it returns the summary and its JSON.
// A cut, when not nil, draws the threshold anew on these rows' scores (Model.Recut on
// the loaded model; the saved one is untouched).
func writeScored(ctx context.Context, out string, m *lib.Model, dir, path string, ds *data.Dataset, explain, explainRows int, cut *lib.Cut, t tableFlags) (scored, []byte, error) {
	imputed := slices.Clone(ds.Missing) // ScoreDataset imputes every one of them
	final, dist, err := m.ScoreDataset(ctx, ds)
	if err != nil {
		return scored{}, nil, fmt.Errorf("%s: %w", path, libError(err))
	}
	if cut != nil {
		if _, err := m.Recut(final, *cut); err != nil {
			return scored{}, nil, fmt.Errorf("%s: %w", path, libError(err))
		}
	}
	labels := m.Label(final)
	s := scored{scores: final, labels: labels}
	s.scoreSummary = scoreSummary{Udocc: Version, Model: dir, Data: ds.Name, Source: ds.Path, Method: string(m.Method()),
		N: ds.N, D: ds.D, Device: m.Device(), Threshold: num(m.Threshold()), Flagged: flagged(labels),
		Columns: columnsOf(ds, imputed, nil)}
	if cut != nil {
		s.Cut = cut.String()
	}
	if m.CountBasis().Answers > 0 && cut == nil {
		s.CountBasis = countBasisOf(m, dir, path, nil)
	}
	s.labelMetrics = metricsOf(ds.Y, final, labels)
	var cols []scoreColumn
	if members := m.Members(); len(members) > 1 && t.members {
		for k, mem := range members {
			cols = append(cols, scoreColumn{fmt.Sprintf("seed%d", mem.Seed), dist[k], mem.Label(dist[k])})
		}
	}
	ex, err := explainFlagged(ctx, m, ds, final, labels, explain, explainRows)
	if err != nil {
		return scored{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	s.explainedNote = explainedNote(ex)
	if err := writeScores(filepath.Join(out, "scores.csv"), final, scoresFile{id: idOf(ds), labels: labels,
		prob: probabilities(m, final), y: ds.Y, cols: cols, ex: ex, rows: ds.RowIndex, digits: t.digits}); err != nil {
		return scored{}, nil, err
	}
	b, err := json.MarshalIndent(s.scoreSummary, "", "  ")
	if err != nil {
		return scored{}, nil, err
	}
	return s, b, atomicfile.WriteBytes(filepath.Join(out, "summary.json"), append(b, '\n'))
}

// libError is an error of the library without its "udocc: " prefix, which the command
// already says.
// The library's errors say what is wrong in its own terms; libError adds the flags that
// mend it, by their types.
func libError(err error) error {
	hint := ""
	var ce *lib.ColumnsError
	switch {
	case errors.As(err, &ce) && len(ce.Extra) > 0:
		hint = " (leave them out with --drop; --label for a label column)"
	case errors.Is(err, lib.ErrNoRecut):
		hint = " (udocc fit --method ensemble)"
	case errors.Is(err, lib.ErrPastSketch):
		hint = " (udocc score --model DIR --count K DATA)"
	}
	msg, ok := strings.CutPrefix(err.Error(), "udocc: ")
	if !ok && hint == "" {
		return err
	}
	return prefixless{msg + hint, err}
}

type prefixless struct {
	msg string
	err error
}

func (p prefixless) Error() string { return p.msg }
func (p prefixless) Unwrap() error { return p.err }

// openScored loads the model saved in dir on device and reads the table at path with the
// column selection the model was trained on, its columns put in the model's order: what
// score and explain apply a model to. The caller closes the model and removes the input.
func openScored(fs *pflag.FlagSet, dir, path, device string, f inputFlags, t tableFlags) (*lib.Model, *input, *data.Dataset, error) {
	m, err := lib.Load(dir, device)
	if err != nil {
		return nil, nil, nil, libError(err)
	}
	f, t, optional := scoreLabel(fs, f, t, m)
	t.encoding = m.Encoding()
	in, err := loadTableLabel(path, f, t, scoreSelection(fs, t, m), optional)
	if err != nil {
		m.Close()
		return nil, nil, nil, err
	}
	ds, err := m.MatchColumns(in.ds)
	if err != nil {
		in.remove()
		m.Close()
		return nil, nil, nil, fmt.Errorf("%s: the model in %s: %w", path, dir, libError(err))
	}
	return m, in, ds, nil
}

// scoreOutputs are the paths udocc score writes into --out, as outdir.Begin matches them.
var scoreOutputs = []string{"scores.csv", "summary.json"}

func quoteAll(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	return strings.Join(q, ", ")
}

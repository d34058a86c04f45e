package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	lib "github.com/udocc/udocc"
	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/atomicfile"
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
	Flagged   int      `json:"flagged"`
	labelMetrics
}

func runScore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("score", "--model DIR [flags] DATA", "Apply a saved model (standardisation, networks, centers, thresholds) to the rows of DATA.", stdout)
	var f modelFlags
	addModelFlags(fs, &f, "output folder for scores.csv and summary.json (default udocc-out/<data name>-scored)")
	explain := addExplainFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := checkExplain(*explain); err != nil {
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
	s, b, err := writeScored(ctx, tx.Dir(), m, f.model, fs.Arg(0), ds, *explain)
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
	}
	return nil
}

// scored is what udocc score says of a table: summary.json's contents and the rows'
// scores and labels.
type scored struct {
	scoreSummary
	scores []float64
	labels []bool
}

// writeScored scores ds, read from path, with the model saved in dir and writes
// scores.csv and summary.json into out; it returns the summary and its JSON.
func writeScored(ctx context.Context, out string, m *lib.Model, dir, path string, ds *data.Dataset, explain int) (scored, []byte, error) {
	final, dist, err := m.ScoreDataset(ds)
	if err != nil {
		return scored{}, nil, fmt.Errorf("%s: %w", path, libError(err))
	}
	labels := m.Label(final)
	s := scored{scores: final, labels: labels}
	s.scoreSummary = scoreSummary{Udocc: Version, Model: dir, Data: ds.Name, Source: ds.Path, Method: string(m.Method()),
		N: ds.N, D: ds.D, Device: m.Device(), Threshold: num(m.Threshold()), Flagged: flagged(labels)}
	s.labelMetrics = metricsOf(ds.Y, final, labels)
	var cols []scoreColumn
	if members := m.Members(); len(members) > 1 {
		for k, mem := range members {
			cols = append(cols, scoreColumn{fmt.Sprintf("seed%d", mem.Seed), dist[k], mem.Label(dist[k])})
		}
	}
	ex, err := explainFlagged(ctx, m, ds, labels, explain)
	if err != nil {
		return scored{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := writeScores(filepath.Join(out, "scores.csv"), idOf(ds), final, labels, ds.Y, cols, ex); err != nil {
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
func libError(err error) error {
	if msg, ok := strings.CutPrefix(err.Error(), "udocc: "); ok {
		return prefixless{msg, err}
	}
	return err
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
	in, err := loadTable(path, f, t, scoreSelection(fs, t, m))
	if err != nil {
		m.Close()
		return nil, nil, nil, err
	}
	ds, err := matchColumns(in.ds, m.Features(), dir)
	if err == nil && ds.D != m.Inputs() {
		err = fmt.Errorf("%s has %d columns, the model in %s was trained on %d", path, ds.D, dir, m.Inputs())
	}
	if err != nil {
		in.remove()
		m.Close()
		return nil, nil, nil, err
	}
	return m, in, ds, nil
}

// scoreOutputs are the paths udocc score writes into --out, as outdir.Begin matches them.
var scoreOutputs = []string{"scores.csv", "summary.json"}

// matchColumns orders ds's columns as the model's inputs. When both the model and the
// file name their columns, columns match by name (reordered where the file's order
// differs), and a missing or an extra column is an error naming it; otherwise they
// match by position, and only their count is checked.
func matchColumns(ds *data.Dataset, features []string, dir string) (*data.Dataset, error) {
	if len(features) == 0 || !ds.Named {
		return ds, nil // by position: the caller checks the count
	}
	pos := map[string]int{}
	for j, f := range ds.Features {
		pos[f] = j
	}
	var missing, extra []string
	order := make([]int, len(features))
	known := map[string]bool{}
	for i, f := range features {
		known[f] = true
		j, ok := pos[f]
		if !ok {
			missing = append(missing, f)
		}
		order[i] = j
	}
	for _, f := range ds.Features {
		if !known[f] {
			extra = append(extra, f)
		}
	}
	if len(missing) > 0 || len(extra) > 0 {
		msg := fmt.Sprintf("%s has %d columns, the model in %s was trained on %d, matched by name:", source(ds), ds.D, dir, len(features))
		if len(missing) > 0 {
			msg += fmt.Sprintf(" missing %s;", quoteAll(missing))
		}
		if len(extra) > 0 {
			msg += fmt.Sprintf(" not in the model %s (--label for a label column)", quoteAll(extra))
		}
		return nil, errors.New(msg)
	}
	out := *ds
	out.Features = append([]string(nil), features...)
	out.X = make([]float32, len(ds.X))
	for r := 0; r < ds.N; r++ {
		for i, j := range order {
			out.X[r*ds.D+i] = ds.X[r*ds.D+j]
		}
	}
	return &out, nil
}

func quoteAll(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	return strings.Join(q, ", ")
}

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/atomicfile"
	"github.com/udocc/udocc/internal/outdir"
	"github.com/udocc/udocc/models"
	"github.com/udocc/udocc/threshold"
	"github.com/udocc/udocc/torch"
	"github.com/udocc/udocc/training"
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

func runScore(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("score", "--model DIR [flags] DATA", "Apply a saved model (standardisation, networks, centers, thresholds) to the rows of DATA.", stdout)
	model := fs.String("model", "", "saved model folder (the model/ folder that udocc fit wrote)")
	out := fs.String("out", "", "output folder for scores.csv and summary.json (default udocc-out/<data name>-scored)")
	device := fs.String("device", "cpu", "cpu, cuda or cuda:N")
	label := fs.String("label", "", "label column or variable, used only to report metrics")
	xVar := fs.String("x-var", "X", "the data variable of a MAT or NPZ file")
	threads := fs.Int("threads", 1, "libtorch CPU threads")
	header := fs.String("header", "auto", "CSV: is the first row a header? yes, no, or auto (a header when not all numbers)")
	force := fs.Bool("force", false, "replace --out even when it holds files udocc did not write (they are deleted)")
	asJSON := fs.Bool("json", false, "print summary.json to stdout and nothing else there")
	var table tableFlags
	addTableFlags(fs, &table)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *model == "" {
		return usagef("--model is required")
	}
	if fs.NArg() != 1 {
		return usagef("want one DATA file, have %d arguments", fs.NArg())
	}
	if err := checkDevice(*device); err != nil {
		return err
	}
	if _, err := data.ParseHeader(*header); err != nil {
		return usagef("--header %q: want yes, no or auto", *header)
	}
	if err := table.check(*asJSON); err != nil {
		return err
	}
	if err := deviceUsable(*device); err != nil {
		return err
	}
	meta, err := models.ReadMeta(*model)
	if err != nil {
		return err
	}
	if err := checkMethod(meta, *model); err != nil {
		return err
	}
	path := fs.Arg(0)
	in, err := loadTable(path, *label, *xVar, *header, table, scoreSelection(fs, table, meta))
	if err != nil {
		return err
	}
	defer in.remove()
	ds := in.ds
	if ds, err = matchColumns(ds, meta.Features, *model); err != nil {
		return err
	}
	if ds.D != meta.Sizes[0] {
		return fmt.Errorf("%s has %d columns, the model in %s was trained on %d", path, ds.D, *model, meta.Sizes[0])
	}
	if *out == "" {
		*out = filepath.Join("udocc-out", ds.Name+"-scored")
	}
	tx, err := outdir.Begin(*out, scoreOutputs, *force)
	if err != nil {
		return err
	}
	defer tx.Abort()
	std, err := meta.Scaler.Transform(ds)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	torch.SetNumThreads(*threads)
	scores, err := scoreMembers(meta, *model, *device, std, false)
	if err != nil {
		return err
	}
	thr := meta.Thresholds()
	var final []float64
	var labels []bool
	overall := models.CombinedThreshold(thr)
	if meta.Ensemble != nil {
		rec, err := scoreMembers(meta, *model, *device, std, true)
		if err != nil {
			return err
		}
		if final, err = meta.Ensemble.Score(scores, rec); err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(*model, models.MetaFile), err)
		}
		overall = *meta.Threshold
		labels = threshold.Labels(final, overall)
	} else {
		final, labels = models.CombineMembers(scores, thr)
	}
	s := scoreSummary{Udocc: Version, Model: *model, Data: ds.Name, Source: ds.Path, Method: meta.Method,
		N: ds.N, D: ds.D, Device: *device, Threshold: num(overall), Flagged: flagged(labels)}
	s.labelMetrics = metricsOf(ds.Y, final, labels)

	var cols []scoreColumn
	if len(scores) > 1 && meta.Ensemble != nil {
		for k, m := range meta.Members {
			cols = append(cols, scoreColumn{fmt.Sprintf("seed%d", m.Seed), scores[k], nil})
		}
	} else if len(scores) > 1 {
		for k, m := range meta.Members {
			_, l := models.CombineMembers(scores[k:k+1], thr[k:k+1])
			cols = append(cols, scoreColumn{fmt.Sprintf("seed%d", m.Seed), scores[k], l})
		}
	}
	if err := writeScores(filepath.Join(tx.Dir(), "scores.csv"), idOf(ds), final, labels, ds.Y, cols); err != nil {
		return err
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(filepath.Join(tx.Dir(), "summary.json"), append(b, '\n')); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if err := sendOutputs(table, in, *out, final, labels, stdout); err != nil {
		return err
	}
	stdout = table.reportTo(stdout, stderr)
	if *asJSON {
		_, err = stdout.Write(append(b, '\n'))
		return err
	}
	fmt.Fprintf(stdout, "udocc score: %s (%d rows) with %s: %d flagged; results in %s\n", ds.Name, ds.N, *model, s.Flagged, *out)
	return nil
}

// scoreOutputs are the paths udocc score writes into --out, as outdir.Begin matches them.
var scoreOutputs = []string{"scores.csv", "summary.json"}

// checkMethod checks model.json's method (training.CheckMeta), naming the file.
func checkMethod(meta *models.Meta, dir string) error {
	if err := training.CheckMeta(meta); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, models.MetaFile), err)
	}
	return nil
}

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
	out.X = make([]float64, len(ds.X))
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

// scoreMembers loads each network of the model on device and scores the standardised
// rows: the encoders' distances, or with recon the autoencoders' reconstruction errors.
func scoreMembers(meta *models.Meta, dir, device string, ds *data.Dataset, recon bool) ([][]float64, error) {
	x := make([]float32, len(ds.X))
	for i, v := range ds.X {
		x[i] = float32(v)
	}
	var out [][]float64
	for _, m := range meta.Members {
		path := filepath.Join(dir, m.Network)
		if recon {
			path = filepath.Join(dir, m.Autoencoder)
		}
		g, err := torch.Load(path, device)
		if err != nil {
			return nil, fmt.Errorf("model network %s: %w", path, err)
		}
		if got := g.Sizes(); !slices.Equal(got, meta.Sizes) {
			g.Close()
			return nil, fmt.Errorf("%s: sizes %v, but the network %s has %v", filepath.Join(dir, models.MetaFile), meta.Sizes, path, got)
		}
		var d []float32
		if recon {
			d, err = g.ReconstructionOf(x, ds.N, ds.D)
		} else {
			d, err = g.DistancesOf(x, ds.N, ds.D)
		}
		g.Close()
		if err != nil {
			return nil, fmt.Errorf("model network %s: %w", path, err)
		}
		s := make([]float64, len(d))
		for i, v := range d {
			s[i] = float64(v)
		}
		out = append(out, s)
	}
	return out, nil
}

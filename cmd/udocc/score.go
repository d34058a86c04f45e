package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/atomicfile"
	"github.com/udocc/udocc/models"
	"github.com/udocc/udocc/torch"
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
	asJSON := fs.Bool("json", false, "print summary.json to stdout and nothing else there")
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
	meta, err := models.ReadMeta(*model)
	if err != nil {
		return err
	}
	path := fs.Arg(0)
	ds, err := data.Load(path, loadOptions(path, *label, *xVar))
	if err != nil {
		return err
	}
	if ds.D != meta.Sizes[0] {
		return fmt.Errorf("%s has %d columns, the model in %s was trained on %d", path, ds.D, *model, meta.Sizes[0])
	}
	std, err := meta.Scaler.Transform(ds)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	torch.SetNumThreads(*threads)
	scores, err := scoreMembers(meta, *model, *device, std)
	if err != nil {
		return err
	}
	thr := meta.Thresholds()
	final, labels := ensemble(scores, thr)
	s := scoreSummary{Udocc: Version, Model: *model, Data: ds.Name, Source: ds.Path, Method: meta.Method,
		N: ds.N, D: ds.D, Device: *device, Threshold: num(ensembleThreshold(thr)), Flagged: flagged(labels)}
	s.labelMetrics = metricsOf(ds.Y, final, labels)

	if *out == "" {
		*out = filepath.Join("udocc-out", ds.Name+"-scored")
	}
	if err := mkdirOut(*out); err != nil {
		return err
	}
	var cols []scoreColumn
	if len(scores) > 1 {
		for k, m := range meta.Members {
			_, l := ensemble(scores[k:k+1], thr[k:k+1])
			cols = append(cols, scoreColumn{fmt.Sprintf("seed%d", m.Seed), scores[k], l})
		}
	}
	if err := writeScores(filepath.Join(*out, "scores.csv"), final, labels, ds.Y, cols); err != nil {
		return err
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(filepath.Join(*out, "summary.json"), append(b, '\n')); err != nil {
		return err
	}
	if *asJSON {
		_, err = stdout.Write(append(b, '\n'))
		return err
	}
	fmt.Fprintf(stdout, "udocc score: %s (%d rows) with %s: %d flagged; results in %s\n", ds.Name, ds.N, *model, s.Flagged, *out)
	return nil
}

// scoreMembers loads each network of the model on device and scores the standardised rows.
func scoreMembers(meta *models.Meta, dir, device string, ds *data.Dataset) ([][]float64, error) {
	x := make([]float32, len(ds.X))
	for i, v := range ds.X {
		x[i] = float32(v)
	}
	var out [][]float64
	for _, m := range meta.Members {
		path := filepath.Join(dir, m.Network)
		g, err := torch.Load(path, device)
		if err != nil {
			return nil, fmt.Errorf("model network %s: %w", path, err)
		}
		d, err := g.DistancesOf(x, ds.N, ds.D)
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

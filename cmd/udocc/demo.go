package main

import (
	"context"
	"fmt"
	"github.com/udocc/udocc/internal/memory"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"

	"github.com/udocc/udocc/data"
)

// demoTable makes n rows of d features: normal rows from a few Gaussian clusters and a
// share ratio of anomalies scattered uniformly over a box that holds the clusters.
func demoTable(n, d int, ratio float64, seed uint64) *data.Dataset {
	r := rand.New(rand.NewPCG(seed, 99))
	const clusters = 3
	centers := make([][]float64, clusters)
	for c := range centers {
		centers[c] = make([]float64, d)
		for j := range centers[c] {
			centers[c][j] = 4 * r.NormFloat64()
		}
	}
	ds := &data.Dataset{Name: "demo", N: n, D: d, X: make([]float32, n*d), Y: make([]int, n)}
	for j := 0; j < d; j++ {
		ds.Features = append(ds.Features, fmt.Sprintf("x%d", j+1))
	}
	anomalies := int(ratio * float64(n))
	for i := 0; i < n; i++ {
		row := ds.X[i*d : (i+1)*d]
		if i < anomalies {
			ds.Y[i] = 1
			for j := range row {
				row[j] = float32(-10 + 20*r.Float64())
			}
			continue
		}
		c := centers[r.IntN(clusters)]
		for j := range row {
			row[j] = float32(c[j] + r.NormFloat64())
		}
	}
	r.Shuffle(n, func(a, b int) {
		ra, rb := ds.X[a*d:(a+1)*d], ds.X[b*d:(b+1)*d]
		for j := range ra {
			ra[j], rb[j] = rb[j], ra[j]
		}
		ds.Y[a], ds.Y[b] = ds.Y[b], ds.Y[a]
	})
	return ds
}

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o fitOptions
	fs := newFlags("demo", "[flags]",
		"Make a synthetic table (Gaussian clusters of normal rows, a known share of scattered anomalies),\n"+
			"fit it without telling udocc the share, and compare what it found with the truth.", stdout)
	addFitFlags(fs, &o)
	rows := fs.Int("rows", 2000, "rows of the synthetic table")
	features := fs.Int("columns", 8, "columns of the synthetic table")
	ratio := fs.Float64("anomaly-ratio", 0.05, "true share of anomalies in the synthetic table")
	fs.IntVar(features, "features", 8, "") // an earlier release's name
	fs.MarkDeprecated("features", "use --columns (--features is not a column count elsewhere)")
	o.output.out = filepath.Join("udocc-out", "demo")
	addOutputFlags(fs, &o.output, "output folder")
	groupFlags(fs, append(fitGroups, flagGroup{"Synthetic table", []string{"rows", "columns", "anomaly-ratio"}}))
	if err := parse(fs, args); err != nil {
		return err
	}
	noteDeprecated(fs, stderr)
	if fs.NArg() != 0 {
		return usagef("demo takes no arguments")
	}
	if *rows < 20 || *features < 1 || !(*ratio > 0 && *ratio < 0.5) {
		return usagef("want --rows >= 20, --columns >= 1 and --anomaly-ratio in (0, 0.5)")
	}
	if err := o.check(fs); err != nil {
		return err
	}
	// 4 bytes a value and 8 a label, refused before they are allocated when they cannot be.
	need := min(float64(*rows)*(4*float64(*features)+8), math.MaxInt64)
	if err := memory.Check(fmt.Sprintf("--rows %d x --columns %d", *rows, *features), int64(need)); err != nil {
		return err
	}
	ds := demoTable(*rows, *features, *ratio, 2024)
	s, err := fitWriteReport(ctx, ds, o, stdout, stderr)
	if err != nil || o.output.json {
		return err
	}
	if s.SelectedRatio != nil && s.F1 != nil {
		fmt.Fprintf(stdout, "\nThe table has %d anomalies in %d rows (ratio %.3f); udocc, not told, selected ratio %.3f\n"+
			"and flagged %d rows, of which precision %.2f and recall %.2f are right.\n",
			ds.Anomalies(), ds.N, *ratio, *s.SelectedRatio, s.Flagged, *s.Precision, *s.Recall)
	}
	return nil
}

package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/udocc/udocc/data"
	lib "github.com/udocc/udocc/internal/detector"
	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/metrics"
)

// fitted is a finished fit of one table: the library's model and what the outputs need
// besides it (the per-epoch metrics where labels are known, the timings, the summary).
type fitted struct {
	ds      *data.Dataset
	o       fitOptions
	m       *lib.Model
	members []lib.Member
	epochs  [][]epochMetrics   // member k's metrics after each epoch, where labels are known
	pre     float64            // seconds until the last pretraining epoch
	ends    map[string]float64 // seconds from the fit's start to each stage's last epoch
	summary summary
	dir     string
	prog    *progress // says what the steps after training did
	// explainedNote says that scores.csv explains only some flagged rows ("" for all).
	explainedNote string
	// paperWidths: --preset paper took the paper's layer widths for the table's name.
	paperWidths bool
	// calibration is the count from --labels' answers; nil without --labels.
	calibration *fitCalibration
}

// epochMetrics are a member's metrics after one epoch, where labels are known.
type epochMetrics struct {
	rocauc, prauc, f1 float64
}

// fitTable fits ds with the library, showing progress on prog, and summarises the fit.
func fitTable(ctx context.Context, ds *data.Dataset, o fitOptions, prog *progress) (*fitted, error) {
	f := &fitted{ds: ds, o: o, epochs: make([][]epochMetrics, o.Members), ends: map[string]float64{}, prog: prog}
	meth, opts := o.library()
	if o.preset == "paper" && o.arch == "" {
		// The paper's widths for its data sets, looked up by the table's name, which
		// the library never reads for them.
		if h, ok := models.Preset(ds.Name); ok {
			opts.Hidden, f.paperWidths = h, true
		}
	}
	start := time.Now()
	if o.Method == ensembleMethod {
		prog.setPlan(o.ScreenEpochs, o.PretrainEpochs, o.Epochs)
	} else {
		prog.setPlan(0, o.PretrainEpochs, o.Epochs)
	}
	opts.Progress = func(stage string, e, total int) {
		if stage == "pretrain" {
			f.pre = time.Since(start).Seconds()
		}
		f.ends[stage] = time.Since(start).Seconds()
		prog.update(stage, e, total)
	}
	block := ds
	if opts.Dist != nil {
		// A data-parallel rank trains on its block of the rows (rank 0 holds them all, for
		// its outputs); the library standardises from all-reduced sums and gathers scores.
		block = rankBlock(ds, opts.Dist)
	}
	if ds.Y != nil && (opts.Dist == nil || opts.Dist.Rank() == 0) { // other ranks: their block's labels only
		opts.Epoch = func(k, e int, scores []float64, labels []bool) {
			f.epochs[k] = append(f.epochs[k], evaluateEpoch(ds.Y, scores, labels))
		}
	}
	m, err := lib.FitDataset(ctx, block, meth, opts)
	if errors.Is(err, lib.ErrDiverged) {
		return nil, fmt.Errorf("%s: %w; %s", source(ds), err, lowerRate(err, o.Options))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source(ds), err)
	}
	f.m, f.members = m, m.Members()
	if o.labels != "" && (opts.Dist == nil || opts.Dist.Rank() == 0) {
		if f.calibration, err = calibrateFit(ctx, m, ds, o); err != nil {
			m.Close()
			return nil, err
		}
	}
	f.summary = f.summarise(time.Since(start).Seconds())
	prog.phase("trained and scored", fmt.Sprintf("%d rows, %d flagged", len(m.Scores()), flagged(m.Labels())))
	return f, nil
}

func toInts(b []bool) []int {
	out := make([]int, len(b))
	for i, v := range b {
		if v {
			out[i] = 1
		}
	}
	return out
}

// evaluation is the field's metrics of scores and labels against the truth y.
type evaluation struct {
	ROCAUC, PRAUC, TrueRatio float64
	F1, Precision, Recall    float64
	hasLabels                bool
}

func evaluate(y []int, scores []float64, labels []bool) (evaluation, error) {
	var ev evaluation
	var err error
	if ev.ROCAUC, ev.PRAUC, err = metrics.AUCs(y, scores); err != nil {
		return ev, err
	}
	pos := 0
	for _, v := range y {
		pos += v
	}
	ev.TrueRatio = float64(pos) / float64(len(y))
	if labels != nil {
		c, err := metrics.Count(y, toInts(labels))
		if err != nil {
			return ev, err
		}
		ev.F1, ev.Precision, ev.Recall, ev.hasLabels = c.F1(), c.Precision(), c.Recall(), true
	}
	return ev, nil
}

func evaluateEpoch(y []int, scores []float64, labels []bool) epochMetrics {
	ev, err := evaluate(y, scores, labels)
	if err != nil {
		return epochMetrics{math.NaN(), math.NaN(), math.NaN()}
	}
	m := epochMetrics{ev.ROCAUC, ev.PRAUC, math.NaN()}
	if ev.hasLabels {
		m.f1 = ev.F1
	}
	return m
}

// deltaBar is a member's final δ̄ and selected ratio, NaN for methods without them.
func deltaBar(h []lib.Epoch) (float64, float64) {
	if len(h) == 0 {
		return math.NaN(), math.NaN()
	}
	last := h[len(h)-1]
	return last.DeltaBar, last.SelectedRatio
}

// ratioSpread is the mean, std, min and max of the selected ratio over the search epochs.
func ratioSpread(h []lib.Epoch) *spread {
	var xs []float64
	for _, e := range h {
		if !math.IsNaN(e.SelectedRatio) {
			xs = append(xs, e.SelectedRatio)
		}
	}
	if len(xs) == 0 {
		return nil
	}
	s := spread{Min: xs[0], Max: xs[0]}
	for _, x := range xs {
		s.Mean += x / float64(len(xs))
		s.Min, s.Max = math.Min(s.Min, x), math.Max(s.Max, x)
	}
	for _, x := range xs {
		s.Std += (x - s.Mean) * (x - s.Mean) / float64(len(xs))
	}
	s.Std = math.Sqrt(s.Std)
	return &s
}

// source names a data set in errors: its file, or its name when it was built in memory.
func source(ds *data.Dataset) string {
	if ds.Path != "" {
		return ds.Path
	}
	return ds.Name
}

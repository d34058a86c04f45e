package main

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/metrics"
	"github.com/udocc/udocc/models"
	"github.com/udocc/udocc/torch"
	"github.com/udocc/udocc/training"
)

// fitted is a finished fit of one table: the trained run, the final scores and labels
// (of the ensemble when there are several seeds), the per-epoch metrics and the summary.
type fitted struct {
	ds      *data.Dataset
	scaler  *data.Scaler
	cfg     training.Config
	run     *training.Run
	scores  []float64 // final scores, the ensemble's with several seeds
	labels  []bool    // nil without a threshold
	epochs  [][]epochMetrics
	summary summary
	dir     string
	// ens and thr are the ensemble method's combination and threshold (nil and NaN for
	// the paper's methods, whose thresholds are per member).
	ens *models.Ensemble
	thr float64
}

// epochMetrics are a member's metrics after one epoch, where labels are known.
type epochMetrics struct {
	rocauc, prauc, f1 float64
}

// fitTable standardises ds, trains every seed in lockstep and scores the rows.
func fitTable(ds *data.Dataset, o fitOptions, prog *progress) (*fitted, error) {
	seeds, err := parseSeeds(o.seeds)
	if err != nil {
		return nil, err
	}
	method := o.method
	if method == training.EnsembleMethod {
		if len(seeds) == 1 {
			seeds = training.EnsembleSeeds(seeds[0], o.members)
		}
		method = "oc" // every member is a one-class Deep SVDD; Ensemble scores them
	}
	hidden, _ := models.Preset(ds.Name)
	if o.arch != "" {
		if hidden, err = models.ParseHidden(o.arch); err != nil {
			return nil, usagef("--arch: %v", err)
		}
	}
	cfg := o.Config
	cfg.Hidden = hidden
	cfg.Scores = training.ScoreSource(o.scores)
	// A data-parallel rank trains on its block of the rows, standardised with the whole
	// table's scaler from all-reduced sums; its results cover the whole table.
	block, scaler, n := ds, (*data.Scaler)(nil), ds.N
	if o.dist != nil {
		block = rankBlock(ds, o.dist)
		if n, err = tableRows(o.dist, block.N); err != nil {
			return nil, err
		}
		scaler, err = data.FitScalerParts(block, o.dist.Rank() == 0, o.dist.AllReduce)
		cfg.Dist = o.dist
	} else {
		scaler, err = data.FitScaler(ds)
	}
	if err != nil {
		return nil, err
	}
	std, err := scaler.Transform(block)
	if err != nil {
		return nil, err
	}
	opt := training.MethodOptions{Ratio: o.ratio, CurveEpochs: []int{cfg.Epochs}}
	if o.method == "proposed" {
		if opt.Rule, err = ruleFor(o.threshold, o.ties); err != nil {
			return nil, err
		}
	}
	if cfg.Epochs < 2 {
		opt.CurveEpochs = nil
	}
	members := make([]training.Member, len(seeds))
	for i, s := range seeds {
		if members[i], err = training.NewMember(method, s, n, opt); err != nil {
			return nil, fmt.Errorf("%s (%d rows): %w", source(ds), n, err)
		}
	}
	torch.SetNumThreads(o.threads)
	f := &fitted{ds: ds, scaler: scaler, cfg: cfg, epochs: make([][]epochMetrics, len(seeds)), thr: math.NaN()}
	hooks := &training.Hooks{Progress: prog.update}
	if ds.Y != nil && ds.N == n { // a rank other than 0 holds only its block's labels
		hooks.Epoch = func(k, e int, scores []float64, labels []bool) {
			f.epochs[k] = append(f.epochs[k], evaluateEpoch(ds.Y, scores, labels))
		}
	}
	start := time.Now()
	run, err := training.FitGroup(std.X, std.N, std.D, cfg, members, hooks)
	if errors.Is(err, training.ErrDiverged) {
		return nil, fmt.Errorf("%s: %w; try a lower --lr (now %g)", source(ds), err, cfg.LR)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source(ds), err)
	}
	f.run = run
	if o.method == training.EnsembleMethod {
		if err := f.combine(o); err != nil {
			return nil, fmt.Errorf("%s: %w", source(ds), err)
		}
	} else {
		f.scores, f.labels = models.CombineMembers(memberScores(run.Results), thresholds(run.Results))
	}
	f.summary = f.summarise(o, seeds, time.Since(start).Seconds())
	return f, nil
}

func memberScores(rs []training.Result) [][]float64 {
	out := make([][]float64, len(rs))
	for i, r := range rs {
		out[i] = r.Scores
	}
	return out
}

func thresholds(rs []training.Result) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = r.Threshold
		if r.Labels == nil {
			out[i] = math.Inf(1)
		}
	}
	return out
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
	if ev.ROCAUC, err = metrics.ROCAUC(y, scores); err != nil {
		return ev, err
	}
	if ev.PRAUC, err = metrics.PRAUC(y, scores); err != nil {
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
func deltaBar(r training.Result) (float64, float64) {
	if len(r.History) == 0 {
		return math.NaN(), math.NaN()
	}
	rec := r.History[len(r.History)-1].Record
	return rec.DeltaBar, rec.SelectedRatio
}

// ratioSpread is the mean, std, min and max of the selected ratio over the search epochs.
func ratioSpread(r training.Result) *spread {
	var xs []float64
	for _, h := range r.History {
		if !math.IsNaN(h.Record.SelectedRatio) {
			xs = append(xs, h.Record.SelectedRatio)
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

package bench

import (
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/udocc/udocc/internal/dynamics"
	"github.com/udocc/udocc/internal/method"
	"github.com/udocc/udocc/internal/torch"
	"github.com/udocc/udocc/internal/training"
	"github.com/udocc/udocc/metrics"
)

// groupInfo is what every line of a group shares.
type groupInfo struct {
	id          string
	size, seeds int
	pre, fine   float64
}

// line turns one member's result into its results line.
func (r *runner) line(d *dataset, t task, res training.Result, g groupInfo) (*Line, error) {
	n := d.ds.N
	fail := func(err error) (*Line, error) {
		return nil, fmt.Errorf("bench: %s %s seed %d: %w", d.name, t.spec.Name, t.seed, err)
	}
	l := &Line{
		Dataset: d.name, File: filepath.Base(d.path), DataSHA: d.sha, N: n, D: d.ds.D,
		Anomalies: d.anomalies, TrueRatio: Num(d.ratio),
		Method: t.spec.Name, Base: t.spec.Method, Rule: t.key.Rule, Seed: t.seed, Param: NaN(),
		F1: NaN(), Precision: NaN(), Recall: NaN(), SelectedRatio: NaN(), DeltaBar: NaN(), Threshold: NaN(),
		Config:   d.config,
		Versions: Versions{Udocc: r.o.Version, Libtorch: torch.Version(), Go: runtime.Version()},
		Device:   r.o.Train.Device, Group: string(r.o.Group), Session: r.session.ID,
	}
	if method.UsesRatio(t.spec.Method) {
		l.Param = Num(d.ratio)
	}
	roc, pr, err := metrics.AUCs(d.ds.Y, res.Scores)
	if err != nil {
		return fail(err)
	}
	l.ROCAUC, l.PRAUC = Num(roc), Num(pr)
	if res.Labels != nil {
		s, err := count(d.ds.Y, res.Labels)
		if err != nil {
			return fail(err)
		}
		l.Flagged, l.F1, l.Precision, l.Recall = s.Flagged, s.F1, s.Precision, s.Recall
		l.SelectedRatio, l.Threshold = Num(float64(l.Flagged)/float64(n)), Num(res.Threshold)
	}
	if k := len(res.History); t.spec.soft() && k > 0 {
		radius := res.History[k-1].Radius
		out := make([]bool, n)
		for i, v := range res.Scores {
			out[i] = v > radius*radius
		}
		s, err := count(d.ds.Y, out)
		if err != nil {
			return fail(err)
		}
		s.Radius = Num(radius)
		l.LossSphere = &s
	}
	l.Timing = Timing{
		GroupID: g.id, PretrainSeconds: g.pre, FinetuneSeconds: g.fine,
		GroupSize: g.size, GroupSeeds: g.seeds, Threads: r.o.Threads,
	}
	for _, h := range res.History {
		l.Loss = append(l.Loss, Num(h.Loss))
		l.Timing.EpochSeconds = append(l.Timing.EpochSeconds, h.Seconds)
	}
	if t.spec.Method == method.Proposed.Name {
		proposedTrace(l, res, n)
		if slices.Contains(CurveDatasets, d.name) {
			p, ok := res.Member.Selector.(*dynamics.Proposed)
			if !ok {
				return fail(fmt.Errorf("proposed member has a %T selector", res.Member.Selector))
			}
			l.Crossings = p.Accumulated()
		}
	}
	l.Finished = time.Now().UTC().Format(time.RFC3339Nano)
	return l, nil
}

// count compares the labels (true = anomaly) with y; Radius is left for the caller.
func count(y []int, labels []bool) (Sphere, error) {
	s := Sphere{Radius: NaN()}
	pred := make([]int, len(labels))
	for i, b := range labels {
		if b {
			pred[i] = 1
			s.Flagged++
		}
	}
	c, err := metrics.Count(y, pred)
	if err != nil {
		return Sphere{}, err
	}
	s.F1, s.Precision, s.Recall = Num(c.F1()), Num(c.Precision()), Num(c.Recall())
	return s, nil
}

// proposedTrace records proposed's epochs, its final δ̄ and selected ratio (n − δ̄)/n,
// and how its δ searches ended.
func proposedTrace(l *Line, res training.Result, n int) {
	tr := &EpochTrace{}
	st := &SearchStats{}
	for _, h := range res.History {
		rec := h.Record
		tr.DeltaStar = append(tr.DeltaStar, rec.DeltaStar)
		tr.DeltaBar = append(tr.DeltaBar, Num(rec.DeltaBar))
		tr.SelectedRatio = append(tr.SelectedRatio, Num(rec.SelectedRatio))
		tr.Ties = append(tr.Ties, rec.Ties)
		tr.MinScaled = append(tr.MinScaled, Num(rec.MinScaled))
		tr.TrainSize = append(tr.TrainSize, h.TrainSize)
		tr.Floored = append(tr.Floored, rec.Floored)
		if rec.DeltaStar == 0 {
			continue
		}
		st.Epochs++
		if rec.DeltaStar == 2 {
			st.LowEdge++
		}
		if rec.DeltaStar == n-1 {
			st.HighEdge++
		}
		if rec.Ties > 1 {
			st.Tied++
		}
		if rec.Floored {
			st.Floored++
		}
	}
	l.Epochs, l.Search = tr, st
	if k := len(res.History); k > 0 {
		last := res.History[k-1].Record
		if !math.IsNaN(last.DeltaBar) {
			l.DeltaBar, l.SelectedRatio = Num(last.DeltaBar), Num(last.SelectedRatio)
		}
	}
}

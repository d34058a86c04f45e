package method

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/dynamics"
	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/training"
)

// The paper's methods (Section V-A): proposed, the adaptive threshold of ranking-based
// training dynamics (its δ rule, Config.Delta), and its baselines oc (one-class Deep
// SVDD on every row, no threshold), sb (soft boundary, ν = the ratio), otsu and tar
// (training on the rows below Otsu's threshold or the ratio's quantile). What sets them
// apart is how a member trains (Method, package dynamics); fitted, each is
// members trained in lockstep from their seeds, each with its own threshold on its
// distances (+Inf for oc). One member's score is its distance; several members' score
// is the mean of their distances, each divided by its scale (its threshold, or for oc
// its median distance over the training rows: memberScales), fitted here on the
// training rows and saved, so that a row's score never depends on the rows scored with
// it; their threshold is then 1 (combinedThreshold).

// paper is the fitted state of one of the paper's methods.
type paper struct {
	nw      *Networks
	members []models.Member // their thresholds (nil for oc) and scales (nil for one member)
}

func (p *paper) Networks() *Networks { return p.nw }
func (p *paper) Close()              { p.nw.Close() }

// view is a description holding only p's members, for their thresholds and scales.
func (p *paper) view() *models.Meta { return &models.Meta{Members: p.members} }

// Threshold is the one member's threshold, or 1 for several members that all have one
// (+Inf for oc).
func (p *paper) Threshold() float64 { return combinedThreshold(p.view().Thresholds()) }

// Marshal writes the members (files, thresholds, scales) into meta.
func (p *paper) Marshal(meta *models.Meta) { meta.Members = slices.Clone(p.members) }

// loadPaper is the saved model of one of the paper's methods, meta, on its networks nw.
func loadPaper(meta *models.Meta, nw *Networks) *paper {
	return &paper{nw: nw, members: meta.Members}
}

// Score is the members' distances of each row, combined by their saved scales
// (combineMembers).
func (p *paper) Score(ctx context.Context, ds *data.Dataset, _ []float64) ([]float64, [][]float64, error) {
	dist, rec, err := p.nw.outputs(ctx, ds)
	if err != nil {
		return nil, nil, err
	}
	if err := checkScored(p.nw.Scaler, ds, true, dist, rec, nil); err != nil {
		return nil, nil, err
	}
	wide := widenEach(dist)
	v := p.view()
	s, _ := combineMembers(wide, v.Thresholds(), v.Scales())
	if err := checkScored(p.nw.Scaler, ds, true, nil, nil, s); err != nil {
		return nil, nil, err
	}
	return s, wide, nil
}

// fitPaper is Fit of one of the paper's methods: its members trained in lockstep on
// every row, their thresholds, and their scales fitted on every row's distances under
// the trained networks.
func fitPaper(ctx context.Context, t Table, cfg Config) (Fitted, *Trace, error) {
	ds := t.DS
	n := t.rows()
	members := make([]training.Member, len(cfg.Seeds))
	mo := cfg.Member
	for i, s := range cfg.Seeds {
		if cfg.Delta != "" {
			// A rule may keep state: one per member.
			var err error
			if mo.Rule, err = dynamics.NewRule(cfg.Delta, cfg.Ties); err != nil {
				return nil, nil, err
			}
		}
		var err error
		if members[i], err = cfg.Method.NewMember(s, n, mo); err != nil {
			return nil, nil, fmt.Errorf("udocc: %w", err)
		}
	}
	run, err := training.FitGroup(ds.X, ds.N, ds.D, cfg.Train, members, cfg.hooks(ctx))
	if err != nil {
		return nil, nil, trainErr(ctx, err)
	}
	nw, err := takeNetworks(run, false, t.Scaler, models.Sizes(ds.D, cfg.Train.Hidden))
	p := &paper{nw: nw}
	if err == nil {
		p.members = nw.memberFiles()
		for k, r := range run.Results {
			if r.Labels == nil {
				continue
			}
			thr := r.Threshold
			if math.IsInf(thr, 1) && len(r.Scores) > 0 {
				// The rule flagged no row (Otsu on scores that are all equal: no cut). The
				// largest training score labels the training rows alike, and, unlike +Inf,
				// is a number model.json can hold; a new row above it is flagged.
				thr = slices.Max(r.Scores)
			}
			p.members[k].Threshold = &thr
		}
	}
	tr := &Trace{Members: traceMembers(run)}
	// The run's results go before the networks rescore the table (fitEnsemble).
	run.Close()
	runtime.GC()
	if err != nil {
		return nil, nil, err
	}
	if err := p.fitScales(ctx, t, cfg, tr); err != nil {
		nw.Close()
		return nil, nil, err
	}
	return p, tr, nil
}

// fitScales scores every row with the trained networks and fits the members' scales on
// their distances (several members only); tr gets the scores and the distances.
func (p *paper) fitScales(ctx context.Context, t Table, cfg Config, tr *Trace) error {
	dist, rec, err := scoreRows(ctx, p.nw, t)
	if err != nil {
		return err
	}
	if cfg.Trace {
		tr.Dist, tr.Rec = slices.Clone(dist), slices.Clone(rec)
	}
	wide := widenEach(dist)
	v := p.view()
	if len(wide) > 1 {
		for k, div := range memberScales(wide, v.Thresholds()) {
			p.members[k].Scale = &div
		}
	}
	tr.Scores, _ = combineMembers(wide, v.Thresholds(), v.Scales())
	if err := checkScored(p.nw.Scaler, t.DS, t.Dist == nil, nil, nil, tr.Scores); err != nil {
		return err
	}
	for k, thr := range v.Thresholds() {
		mem := &tr.Members[k]
		mem.Scores, mem.Threshold = wide[k], thr
		mem.Labels = mem.Label(mem.Scores)
	}
	return nil
}

// combineMembers combines the final scores of the paper's methods' members (the
// per-member scores scores[k] and scales div[k], memberScales). One member is returned
// as it is. With several, each member's score is divided by its scale, so that 1 is
// every member's boundary (or its median training score), and the quotients are
// averaged; a row is anomalous when that average is above 1. Rows are labelled only when
// every member has a threshold (thr[k] finite); labels are nil otherwise.
// combinedThreshold is the threshold of the result. A row's combined score depends on
// that row alone: the scales are fitted on the training rows and saved with the model.
func combineMembers(scores [][]float64, thr, div []float64) ([]float64, []bool) {
	labelled := true
	for _, t := range thr {
		labelled = labelled && !math.IsInf(t, 0)
	}
	label := func(s []float64, t float64) []bool {
		if !labelled {
			return nil
		}
		out := make([]bool, len(s))
		for i, v := range s {
			out[i] = v > t
		}
		return out
	}
	if len(scores) == 1 {
		return scores[0], label(scores[0], thr[0])
	}
	out := make([]float64, len(scores[0]))
	for k, s := range scores {
		for i, v := range s {
			out[i] += v / div[k] / float64(len(scores))
		}
	}
	return out, label(out, 1)
}

// memberScales are the divisors combineMembers scales the members' scores by, fitted on
// the training rows' scores: each member's own threshold where every member has one,
// else its median training score (1 where that is not positive: scores all 0, or most
// of them, have nothing to scale by).
func memberScales(scores [][]float64, thr []float64) []float64 {
	labelled := true
	for _, t := range thr {
		labelled = labelled && !math.IsInf(t, 0)
	}
	out := make([]float64, len(scores))
	for k, s := range scores {
		div := thr[k]
		if !labelled || !(div > 0) {
			div, _ = dynamics.Quantile(s, 0.5)
		}
		if !(div > 0) {
			div = 1
		}
		out[k] = div
	}
	return out
}

// combinedThreshold is the threshold of combineMembers' scores in their own units: the
// member's own for one member, 1 for several, +Inf when some member has none.
func combinedThreshold(thr []float64) float64 {
	if len(thr) == 1 {
		return thr[0]
	}
	for _, t := range thr {
		if math.IsInf(t, 0) {
			return math.Inf(1)
		}
	}
	return 1
}

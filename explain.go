package udocc

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/parallel"
	"github.com/udocc/udocc/internal/torch"
)

// DefaultExplainSteps are the points of the midpoint rule with which the
// IntegratedGradients method integrates the distance's gradient along the path from the
// baseline row (ExplainOptions.Steps).
const DefaultExplainSteps = 16

// MaxExplainSteps bounds ExplainOptions.Steps: each step is a pass of the networks over
// every row explained, and the midpoint rule's error at 1024 points is far below a
// float32 score's resolution.
const MaxExplainSteps = 1024

// ExplainMethod is how Explain attributes a score to the features (Attribution).
type ExplainMethod string

// The explanation methods. On the paper sets, occlusion's three leading features lower a
// flagged row's score more than three random ones far more often than the gradient
// methods' do, and name the moved features of shifted anomalies as often or more
// (docs/explain.md).
const (
	// Occlusion, the default: feature j's part is the row's score less its score with
	// feature j set to the baseline's.
	Occlusion ExplainMethod = "occlusion"
	// IntegratedGradients: each distance's gradient integrated along the straight path
	// from the baseline row, and each feature's reconstruction term less the baseline's.
	IntegratedGradients ExplainMethod = "integrated-gradients"
	// GradientInput: each distance's gradient at the row times the row's standardised
	// values, and each feature's reconstruction term less the baseline's.
	GradientInput ExplainMethod = "gradient-input"
)

// explainChunk is the most rows explained in one call of the shim per network.
const explainChunk = 1024

// normalRows is the most unflagged training rows whose per-feature median and spread the
// fit keeps for explanations (Model.Normal), at an even stride: a median of 10^5 values
// is as good as one of all of them.
var normalRows = 100_000

// ExplainOptions choose how Explain attributes a score; the zero value is the default.
type ExplainOptions struct {
	// Method is the attribution; "" means Occlusion.
	Method ExplainMethod
	// Steps are, for IntegratedGradients, the points of the midpoint rule that integrates
	// the distance's gradient from the baseline row to the row, at most
	// MaxExplainSteps; 0 means DefaultExplainSteps.
	Steps int
}

// Attribution is why one row scores as it does: each feature's part of the row's score,
// measured against the baseline row, the unflagged training rows' per-feature median
// (Normal).
//
// For the ensemble method the score is w·z_D(mean_k z_{D,k}) + (1−w)·z_R(mean_k z_{R,k})
// (w = Model.DistanceWeight, z the robust scales fitted on the training rows), linear in
// every member's distance D_k and reconstruction error R_k; feature j's part is Σ_k (∂score/∂D_k · a_{D,kj} + ∂score/∂R_k · a_{R,kj}), with a_{D,kj}
// and a_{R,kj} feature j's parts of D_k and R_k. By Occlusion they are D_k and R_k of the
// row less those of the row with feature j set to the baseline's, so Features[j] is the
// score less the score of that row: what removing the feature's departure from the
// normal rows takes off the score. By IntegratedGradients a_{R,kj} is feature j's term of
// R_k at the row less its term at the baseline (the terms sum to R_k) and a_{D,kj} is D_k's
// integrated gradients along the straight path from the baseline in the standardised
// inputs (they sum to D_k(row) − D_k(baseline) up to the quadrature), so Σ_j Features[j]
// is Score − Base to within the quadrature; GradientInput's distance parts do not sum
// to anything. The paper's methods' scores are attributed the same way through their
// combination: member k's distance divided by its threshold, averaged; with several
// members of which some have no threshold, each member's distance counts 1/K (the
// combination then divides by the median score of the rows it is given, which is not the
// model's).
type Attribution struct {
	// Row is the row's index in the rows explained.
	Row int
	// Score is the row's score (Model.Score), Base the baseline row's.
	Score, Base float64
	// Features[j] is feature j's part of Score − Base, in score units.
	Features []float64
}

// Shares are the features' parts divided by the sum of their magnitudes: the magnitudes
// sum to 1 (all 0 where every part is 0), and a negative share lowers the score.
func (a Attribution) Shares() []float64 {
	tot := 0.0
	for _, v := range a.Features {
		tot += math.Abs(v)
	}
	out := make([]float64, len(a.Features))
	if tot > 0 {
		for j, v := range a.Features {
			out[j] = v / tot
		}
	}
	return out
}

// Top lists the n features (all, where n exceeds them) whose parts raise the score the
// most, the largest first, ties in column order.
func (a Attribution) Top(n int) []int {
	idx := make([]int, len(a.Features))
	for j := range idx {
		idx[j] = j
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		switch fi, fj := a.Features[i], a.Features[j]; {
		case fi > fj:
			return -1
		case fi < fj:
			return 1
		}
		return 0
	})
	return idx[:min(max(n, 0), len(idx))]
}

// Normal returns, per feature and in the data's units, the median and the spread (the
// median absolute deviation) of the training rows the model did not flag (of every
// training row for a method without labels): the baseline of Explain. Both are nil for
// a model saved without them.
func (m *Model) Normal() (median, spread []float64) {
	if m.meta.Normal == nil {
		return nil, nil
	}
	return slices.Clone(m.meta.Normal.Median), slices.Clone(m.meta.Normal.Spread)
}

// Explain attributes the scores of rows (as Score takes them) to their features, row by
// row, with the default ExplainOptions.
func (m *Model) Explain(rows [][]float64) ([]Attribution, error) {
	ds, err := dataset(rows, m.meta.Sizes[0])
	if err != nil {
		return nil, err
	}
	return m.ExplainDataset(ds, nil, ExplainOptions{})
}

// ExplainDataset is Explain for the rows rows of a table read with package data (nil:
// every row), in that order; ds must have the training table's columns, in its order.
// Attribution.Row is the row's index in ds.
func (m *Model) ExplainDataset(ds *data.Dataset, rows []int, o ExplainOptions) ([]Attribution, error) {
	if err := m.calls.enter(); err != nil {
		return nil, err
	}
	defer m.calls.leave()
	torch.SetNumThreads(workers(m.threads))
	d := m.meta.Sizes[0]
	if ds.D != d || len(ds.X) != ds.N*ds.D || ds.N < 1 {
		return nil, fmt.Errorf("udocc: %d rows of %d columns in %d values; the model was trained on %d columns", ds.N, ds.D, len(ds.X), d)
	}
	if m.meta.Normal == nil {
		return nil, errors.New("udocc: the model keeps no median of its normal rows (it was saved by an older udocc): fit it again to explain rows")
	}
	if o.Steps < 0 || o.Steps > MaxExplainSteps {
		return nil, fmt.Errorf("udocc: ExplainOptions.Steps %d: want 0 (the default, %d) to %d", o.Steps, DefaultExplainSteps, MaxExplainSteps)
	}
	distPart, recPart := torch.DistanceOcclusion, torch.ReconstructionOcclusion
	switch o.Method {
	case "", Occlusion:
	case IntegratedGradients, GradientInput:
		distPart, recPart = torch.DistancePart, torch.ReconstructionPart
	default:
		return nil, fmt.Errorf("udocc: ExplainOptions.Method %q: want %q, %q or %q", o.Method, Occlusion, IntegratedGradients, GradientInput)
	}
	if rows == nil {
		rows = make([]int, ds.N)
		for i := range rows {
			rows[i] = i
		}
	}
	for r, i := range rows {
		if i < 0 || i >= ds.N {
			return nil, fmt.Errorf("udocc: rows[%d] is %d: want an index of the table's %d rows, 0 to %d", r, i, ds.N, ds.N-1)
		}
	}
	out := make([]Attribution, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	sub := &data.Dataset{Name: ds.Name, N: len(rows), D: d, X: make([]float32, len(rows)*d)}
	for r, i := range rows {
		copy(sub.X[r*d:(r+1)*d], ds.Row(i))
	}
	scores, _, err := m.ScoreDataset(sub)
	if err != nil {
		return nil, err
	}
	base, err := m.baseScore()
	if err != nil {
		return nil, err
	}
	for r, i := range rows {
		out[r] = Attribution{Row: i, Score: scores[r], Base: base, Features: make([]float64, d)}
	}
	b := make([]float32, d)
	for j, v := range m.meta.Normal.Median {
		b[j] = float32(v)
	}
	m.meta.Scaler.Standardise(b, b)
	distBase, alphas := b, []float32(nil)
	switch o.Method {
	case IntegratedGradients:
		alphas = midpoints(orDefault(o.Steps, DefaultExplainSteps))
	case GradientInput:
		distBase, alphas = make([]float32, d), []float32{1}
	}
	if err := m.attribute(out, sub, distBase, b, alphas, distPart, recPart); err != nil {
		return nil, err
	}
	return out, nil
}

// attribute adds every network's attributions of the rows of sub to out's Features, with
// the weights of partWeights, in chunks of explainChunk rows: the model's networks (each
// member's encoder, then its autoencoder) attribute a chunk on the fit's threads
// (torch.NumThreads), one network a task, and the parts are added network after network,
// as on one thread, so the sums do not depend on the thread count.
func (m *Model) attribute(out []Attribution, sub *data.Dataset, distBase, b, alphas []float32, distPart, recPart torch.Part) error {
	d := sub.D
	cD, cR := m.partWeights()
	type net struct {
		g    *torch.Group
		base []float32
		part torch.Part
		c    float64
		what string
	}
	var nets []net
	for k, g := range m.nets {
		nets = append(nets, net{g, distBase, distPart, cD[k], fmt.Sprintf("member %d", k)})
	}
	for k, g := range m.aes {
		if cR == nil {
			break
		}
		nets = append(nets, net{g, b, recPart, cR[k], fmt.Sprintf("member %d autoencoder", k)})
	}
	chunk := min(sub.N, explainChunk)
	x := make([]float32, chunk*d)
	atts := make([][]float32, len(nets))
	for i := range atts {
		atts[i] = make([]float32, chunk*d)
	}
	for lo := 0; lo < sub.N; lo += explainChunk {
		hi := min(lo+explainChunk, sub.N)
		xc := x[:(hi-lo)*d]
		m.meta.Scaler.Standardise(xc, sub.X[lo*d:hi*d])
		err := parallel.ForErr(len(nets), torch.NumThreads(), func(i int) error {
			nt := nets[i]
			if err := nt.g.AttributionsTo(atts[i][:len(xc)], xc, hi-lo, d, nt.base, alphas, nt.part); err != nil {
				return fmt.Errorf("udocc: %s: rows %d to %d (1-based): %w", nt.what, lo+1, hi, err)
			}
			return nil
		})
		if err != nil {
			return err
		}
		// Row r's parts are added network after network whichever thread adds them.
		parallel.For(hi-lo, torch.NumThreads(), func(r int) {
			f := out[lo+r].Features
			for i, nt := range nets {
				for j, v := range atts[i][r*d : (r+1)*d] {
					f[j] += nt.c * float64(v)
				}
			}
		})
	}
	return nil
}

// orDefault is v, or def where v is 0.
func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// midpoints are the n points (s + 1/2)/n of the midpoint rule on [0, 1].
func midpoints(n int) []float32 {
	out := make([]float32, n)
	for s := range out {
		out[s] = float32((float64(s) + 0.5) / float64(n))
	}
	return out
}

// baseScore is the score of the baseline row, the normal rows' per-feature median.
func (m *Model) baseScore() (float64, error) {
	d := m.meta.Sizes[0]
	ds := &data.Dataset{Name: "baseline", N: 1, D: d, X: make([]float32, d)}
	for j, v := range m.meta.Normal.Median {
		ds.X[j] = float32(v)
	}
	s, _, err := m.ScoreDataset(ds)
	if err != nil {
		return 0, err
	}
	return s[0], nil
}

// partWeights are the derivatives of the score with respect to each member's distance
// and reconstruction error (cR nil where the score has no reconstruction part); the
// score is linear in both (Attribution).
func (m *Model) partWeights() (cD, cR []float64) {
	k := float64(len(m.nets))
	cD = make([]float64, len(m.nets))
	if e := m.meta.Ensemble; e != nil {
		w := e.DistanceWeight
		for i, sc := range e.Distance {
			cD[i] = w / (k * sc.Spread * e.DistanceMean.Spread)
		}
		if w < 1 {
			cR = make([]float64, len(e.Recon))
			for i, sc := range e.Recon {
				cR[i] = (1 - w) / (k * sc.Spread * e.ReconMean.Spread)
			}
		}
		return cD, cR
	}
	thr := m.meta.Thresholds()
	if len(thr) == 1 {
		cD[0] = 1
		return cD, nil
	}
	labelled := !math.IsInf(models.CombinedThreshold(thr), 1)
	for i, t := range thr {
		cD[i] = 1 / k
		if labelled && t > 0 {
			cD[i] = 1 / (k * t)
		}
	}
	return cD, nil
}

// fitNormal learns the per-feature median and spread of the training rows ds that the
// model does not flag (of every row without labels, or where every row it samples is
// flagged), at most normalRows of them at an even stride over the whole table. In a
// data-parallel fit ds is this rank's block and every rank learns the same numbers from
// every rank's rows.
func (m *Model) fitNormal(ds *data.Dataset, rk *ranks) error {
	n, offset := ds.N, 0
	if rk != nil {
		n = rk.n
		for r := 0; r < rk.d.Rank(); r++ {
			offset += rk.counts[r]
		}
	}
	step := max(1, (n+normalRows-1)/normalRows)
	for _, flaggedToo := range []bool{false, true} {
		var x []float32
		for i := 0; i < ds.N; i++ {
			g := offset + i
			if g%step == 0 && (flaggedToo || m.labels == nil || !m.labels[g]) {
				x = append(x, ds.Row(i)...)
			}
		}
		if rk != nil {
			var err error
			if x, err = rk.gatherRows(x); err != nil {
				return err
			}
		}
		if len(x) > 0 {
			m.meta.Normal = models.FitNormal(x, len(x)/ds.D, ds.D)
			return nil
		}
	}
	return errors.New("udocc: no training rows to learn the normal rows' medians from")
}

// gatherRows concatenates every rank's x, of any length, in rank order.
func (r *ranks) gatherRows(x []float32) ([]float32, error) {
	counts := make([]float64, r.d.World())
	counts[r.d.Rank()] = float64(len(x))
	if err := r.d.AllReduce(counts); err != nil {
		return nil, fmt.Errorf("udocc: %w", err)
	}
	per := make([]int, len(counts))
	for i, c := range counts {
		per[i] = int(c)
	}
	all, err := r.d.AllGather(x, per)
	if err != nil {
		return nil, fmt.Errorf("udocc: %w", err)
	}
	return all, nil
}

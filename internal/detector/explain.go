package detector

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/parallel"
	"github.com/udocc/udocc/internal/torch"
)

// ExplainMethod is how Explain attributes a score to the features (Attribution).
type ExplainMethod string

// The explanation methods. Shapley values, the default, sum to the row's rise over the
// baseline row, so that every flagged row has features that raise its score; occlusion
// and the gradient methods are kept as options (docs/explain.md measures them all).
const (
	// Shapley, the default: feature j's part is its Shapley value in the game whose
	// players are the features and whose value of a coalition S is the score of the row
	// with the features outside S set to the baseline's: the mean, over the orders in
	// which the features can move from the baseline to the row, of what feature j's move
	// adds to the score. Exact over the 2^k coalitions of a row's k active features (off
	// the baseline's value; the others' values are 0) for k ≤ 12,
	// estimated from ExplainOptions.Samples permutations beyond (Attribution.StdErr).
	// The parts sum to Score − Base.
	Shapley ExplainMethod = "shapley"
	// Occlusion: feature j's part is the row's score less its score with feature j set
	// to the baseline's.
	Occlusion ExplainMethod = "occlusion"
	// IntegratedGradients: each distance's gradient integrated along the straight path
	// from the baseline row, and each feature's reconstruction term less the baseline's.
	IntegratedGradients ExplainMethod = "integrated-gradients"
	// GradientInput: each distance's gradient at the row times the row's standardised
	// values, and each feature's reconstruction term less the baseline's.
	GradientInput ExplainMethod = "gradient-input"
)

// DefaultExplainMethod is the explanation method "" gives on this model, by name:
// defaultExplainMethod's.
func (m *Model) DefaultExplainMethod() string { return string(m.defaultExplainMethod()) }

// defaultExplainMethod is the explanation ExplainOptions.Method "" gives on this model:
// Shapley for at most ShapleyMaxFeatures features, else IntegratedGradients, and
// Occlusion for a model that reads its table's principal components (Ensemble.Components).
func (m *Model) defaultExplainMethod() ExplainMethod {
	if m.meta.Projection != nil {
		return Occlusion
	}
	if m.Inputs() <= ShapleyMaxFeatures {
		return Shapley
	}
	return IntegratedGradients
}

// explainChunk is the most rows explained in one call of the shim per network.
const explainChunk = 1024

// explainBudget (a variable for the tests) bounds the memory of an explanation, in float32 values: the largest
// tensor of the shim's calls that run at once, summed over the networks that run at
// once (explainChunkOf), and the rows Shapley values score at a time (4 MB). A block
// takes well under a second, so that a cancelled context stops an explanation soon.
var explainBudget = 1 << 20

// normalRows is the most unflagged training rows whose per-feature median and spread the
// fit keeps for explanations (Model.normal), at an even stride: a median of 10^5 values
// is as good as one of all of them.
var normalRows = 100_000

// ExplainOptions choose how Explain attributes a score; the zero value is the default.
type ExplainOptions struct {
	// Method is the attribution; "" means Shapley for a model of at most 40 features
	// and IntegratedGradients for a wider one (docs/explain.md measures both), and
	// Occlusion for a model that reads its table's principal components
	// (Ensemble.Components), which the gradient methods refuse.
	Method ExplainMethod
	// Steps are, for IntegratedGradients, the points of the midpoint rule that integrates
	// the distance's gradient from the baseline row to the row, at most
	// 1024; 0 means 16.
	Steps int
	// Samples are, for Shapley, the permutations of a row's active features (those off
	// the baseline's value) from which the values are estimated, in antithetic pairs (an
	// odd count is rounded up, and 4 is the least): k−1 scored rows each, for k active
	// features. 0 means exact values for k ≤ 5 (k ≤ 12 with Exact) and 8 permutations
	// beyond; a positive count estimates whatever k is.
	Samples int
	// Exact, for Shapley with Samples 0, computes exact values for rows of up to 12
	// active features, 2^k scored rows a row of k, where the default samples beyond 5.
	Exact bool
}

// Attribution is why one row scores as it does: each feature's part of the row's rise
// over the baseline row, the unflagged training rows' per-feature median (Normal).
//
// For the ensemble method the score is w·z_D(mean_k z_{D,k}) + (1−w)·z_R(mean_k z_{R,k})
// (w the ensemble's distance weight, saved in model.json, z the robust scales fitted on the training rows), linear in
// every member's distance D_k and reconstruction error R_k. By Shapley (the default)
// Features[j] is feature j's Shapley value of the score, with the features outside a
// coalition set to the baseline's; the parts sum to Score − Base. The other methods
// attribute each member's parts and weigh them as the score does: feature j's part is
// Σ_k (∂score/∂D_k · a_{D,kj} + ∂score/∂R_k · a_{R,kj}), with a_{D,kj} and a_{R,kj}
// feature j's parts of D_k and R_k. By Occlusion they are D_k and R_k of the row less
// those of the row with feature j set to the baseline's, so Features[j] is the score less
// the score of that row: what removing the feature's departure from the normal rows
// takes off the score. By IntegratedGradients a_{R,kj} is feature j's term of R_k at the
// row less its term at the baseline (the terms sum to R_k) and a_{D,kj} is D_k's
// integrated gradients along the straight path from the baseline in the standardised
// inputs (they sum to D_k(row) − D_k(baseline) up to the quadrature), so Σ_j Features[j]
// is Score − Base to within the quadrature; GradientInput's distance parts do not sum
// to anything. The paper's methods' scores are attributed the same way through their
// combination (package method, paper.go): member k's distance divided by its scale (its
// threshold, or its median training score where some member has none), averaged.
type Attribution struct {
	// Row is the row's index in the rows explained.
	Row int
	// Score is the row's score (Model.Score), Base the baseline row's. Of a model fitted
	// with answers (Learn), both are the networks' label-free scores: the answers'
	// nearest-row evidence is not split among the features.
	Score, Base float64
	// Features[j] is feature j's part of Score − Base, in score units: positive where
	// the feature raises the score, negative where it lowers it.
	Features []float64
	// StdErr[j] is the standard error of Features[j] where the Shapley values are
	// estimated from permutations (the spread of the antithetic pairs' means over the
	// square root of their count); nil where they are exact or another method's.
	StdErr []float64
	// Pair are the two features with the largest parts (−1, −1 for a row of one
	// feature), and Interaction their interaction in score units: what setting both to
	// the baseline's takes off the score beyond what setting each alone takes off,
	// score − s(−i) − s(−j) + s(−i,−j). A row that is unusual only in the combination
	// of two features (each alone being usual given the other) has a large positive
	// interaction, though neither feature alone raises its score much.
	Pair        [2]int
	Interaction float64
}

// Rise is the row's score less the baseline row's.
func (a Attribution) Rise() float64 { return a.Score - a.Base }

// Shares are the parts of the features that raise the score divided by the sum of those
// parts: the raising features share 100 % of the rise (their shares sum to 1), and a
// feature that lowers the score, or does nothing, has share 0 (Lowering lists them).
func (a Attribution) Shares() []float64 {
	tot := 0.0
	for _, v := range a.Features {
		if v > 0 {
			tot += v
		}
	}
	out := make([]float64, len(a.Features))
	if tot > 0 {
		for j, v := range a.Features {
			if v > 0 {
				out[j] = v / tot
			}
		}
	}
	return out
}

// Top lists at most n of the features that raise the score (a positive part), the
// largest part first, ties in column order: fewer than n where fewer raise it.
func (a Attribution) Top(n int) []int {
	return ranked(a.Features, n, func(v float64) float64 { return v })
}

// Lowering lists at most n of the features that lower the score (a negative part), the
// one that lowers it most first, ties in column order.
func (a Attribution) Lowering(n int) []int {
	return ranked(a.Features, n, func(v float64) float64 { return -v })
}

// Interacts reports whether the interaction of the two leading features carries at
// least a quarter of the row's rise over the baseline (a row at or under the
// baseline: never).
func (a Attribution) Interacts() bool {
	return a.Pair[0] >= 0 && a.Rise() > 0 && a.Interaction >= InteractionShare*a.Rise()
}

// Carrying lists the fewest features that raise the score whose parts together carry at
// least frac of the row's rise over the baseline (Rise), the largest part first: Top(n)
// for the smallest such n. It is nil for a row at or under the baseline, and where all
// the raising parts together carry less (an estimate's or another method's parts need
// not sum to the rise). Carrying(0.5) longer than one feature says that no single feature
// carries half the rise: the row is unusual in a group of features, each of which adds a
// little (satellite's flagged rows depart in one spectral band over most of the nine
// pixels of a block at once).
func (a Attribution) Carrying(frac float64) []int {
	rise := a.Rise()
	if !(rise > 0) {
		return nil
	}
	top := a.Top(len(a.Features))
	sum := 0.0
	for n, j := range top {
		if sum += a.Features[j]; sum >= frac*rise {
			return top[:n+1]
		}
	}
	return nil
}

// ranked are at most n indices of the positive key(v) of values, the largest first, ties
// in index order.
func ranked(values []float64, n int, key func(float64) float64) []int {
	var idx []int
	for j, v := range values {
		if key(v) > 0 {
			idx = append(idx, j)
		}
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		switch ki, kj := key(values[i]), key(values[j]); {
		case ki > kj:
			return -1
		case ki < kj:
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
// row, with the default ExplainOptions; ctx as ExplainDataset takes it.
func (m *Model) Explain(ctx context.Context, rows [][]float64) ([]Attribution, error) {
	ds, err := dataset(rows, m.Inputs())
	if err != nil {
		return nil, err
	}
	return m.ExplainDataset(ctx, ds, nil, ExplainOptions{})
}

// ExplainDataset is Explain for the rows rows of a table read with package data (nil:
// every row), in that order; ds must have the training table's columns, in its order.
// Attribution.Row is the row's index in ds. Beside the attributions it returns (d values
// a row; a caller with many rows explains them a slice at a time, as udocc fit does), the
// rows are explained in blocks of bounded memory (explainBudget), whatever their number
// and the thread count, and ctx is checked between blocks: a cancelled ctx stops the
// explanation within a block (well under a second) and its error is returned.
func (m *Model) ExplainDataset(ctx context.Context, ds *data.Dataset, rows []int, o ExplainOptions) ([]Attribution, error) {
	if err := m.calls.enter(); err != nil {
		return nil, err
	}
	defer m.calls.leave()
	defer torch.WithThreads(workers(m.threads))()
	d := m.Inputs()
	if ds == nil {
		return nil, errors.New("udocc: no rows")
	}
	if ds.D != d || len(ds.X) != ds.N*ds.D || ds.N < 1 {
		return nil, fmt.Errorf("udocc: %d rows of %d columns in %d values; the model was trained on %d columns", ds.N, ds.D, len(ds.X), d)
	}
	if m.meta.Normal == nil {
		return nil, errors.New("udocc: the model keeps no median of its normal rows (it was saved by an older udocc): fit it again to explain rows")
	}
	if o.Steps < 0 || o.Steps > MaxExplainSteps {
		return nil, fmt.Errorf("udocc: ExplainOptions.Steps %d: want 0 (the default, %d) to %d", o.Steps, DefaultExplainSteps, MaxExplainSteps)
	}
	if o.Samples < 0 {
		return nil, fmt.Errorf("udocc: ExplainOptions.Samples %d < 0", o.Samples)
	}
	if o.Method == "" {
		o.Method = m.defaultExplainMethod()
	}
	distPart, recPart := torch.DistanceOcclusion, torch.ReconstructionOcclusion
	switch o.Method {
	case Shapley, Occlusion:
	case IntegratedGradients, GradientInput:
		if m.meta.Projection != nil {
			return nil, fmt.Errorf("udocc: ExplainOptions.Method %q: the model reads its table's %d leading principal components, not its columns (Ensemble.Components): explain it by %q or %q", o.Method, m.Components(), Occlusion, Shapley)
		}
		distPart, recPart = torch.DistancePart, torch.ReconstructionPart
	default:
		return nil, fmt.Errorf("udocc: ExplainOptions.Method %q: want %q, %q, %q or %q", o.Method, Shapley, Occlusion, IntegratedGradients, GradientInput)
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
	if ctx == nil {
		ctx = context.Background()
	}
	sub := &data.Dataset{Name: ds.Name, N: len(rows), D: d, X: make([]float32, len(rows)*d)}
	for r, i := range rows {
		copy(sub.X[r*d:(r+1)*d], ds.Row(i))
	}
	scores, _, err := m.scoreDataset(ctx, sub, false)
	if err != nil {
		return nil, err
	}
	base, err := m.baseScore(ctx)
	if err != nil {
		return nil, err
	}
	for r, i := range rows {
		out[r] = Attribution{Row: i, Score: scores[r], Base: base, Features: make([]float64, d), Pair: [2]int{-1, -1}}
	}
	median := make([]float32, d)
	for j, v := range m.meta.Normal.Median {
		median[j] = float32(v)
	}
	if o.Method == Shapley {
		if err := m.shapley(ctx, out, sub, median, o.Samples, o.Exact); err != nil {
			return nil, err
		}
		return out, m.interactions(ctx, out, sub, median)
	}
	if m.meta.Projection != nil { // occlusion, through the components
		if err := m.occludeProjected(ctx, out, sub, median); err != nil {
			return nil, err
		}
		return out, m.interactions(ctx, out, sub, median)
	}
	b := slices.Clone(median)
	m.meta.Scaler.Standardise(b, b)
	distBase, alphas := b, []float32(nil)
	switch o.Method {
	case IntegratedGradients:
		alphas = midpoints(orDefault(o.Steps, DefaultExplainSteps))
	case GradientInput:
		distBase, alphas = make([]float32, d), []float32{1}
	}
	if err := m.attribute(ctx, out, sub, distBase, b, alphas, distPart, recPart); err != nil {
		return nil, err
	}
	return out, m.interactions(ctx, out, sub, median)
}

// interactions sets every attribution's Pair, its two leading features, and their
// Interaction: 3 scored rows an attribution, in blocks of explainBudget values.
func (m *Model) interactions(ctx context.Context, out []Attribution, sub *data.Dataset, median []float32) error {
	d := sub.D
	if d < 2 {
		return nil
	}
	for r := range out {
		a := &out[r]
		i, j := 0, 1
		if a.Features[j] > a.Features[i] {
			i, j = j, i
		}
		for k := 2; k < d; k++ {
			switch v := a.Features[k]; {
			case v > a.Features[i]:
				i, j = k, i
			case v > a.Features[j]:
				j = k
			}
		}
		a.Pair = [2]int{i, j}
	}
	per := max(1, explainBudget/(3*d))
	x := make([]float32, 0, min(len(out), per)*3*d)
	return inBlocks(ctx, len(out), per, func(lo, hi int) error {
		x = x[:0]
		for r := lo; r < hi; r++ {
			row := sub.X[r*d : (r+1)*d]
			p := out[r].Pair
			for _, drop := range [][]int{{p[0]}, {p[1]}, {p[0], p[1]}} {
				at := len(x)
				x = append(x, row...)
				for _, j := range drop {
					x[at+j] = median[j]
				}
			}
		}
		s, _, err := m.scoreDataset(ctx, &data.Dataset{Name: sub.Name, N: 3 * (hi - lo), D: d, X: x}, false)
		if err != nil {
			return err
		}
		for r := lo; r < hi; r++ {
			v := s[3*(r-lo):]
			out[r].Interaction = out[r].Score - v[0] - v[1] + v[2]
		}
		return nil
	})
}

// inBlocks calls f on the rows [lo, hi) of n rows, per rows at a time, in order, checking
// ctx before each block; it stops at the first error.
func inBlocks(ctx context.Context, n, per int, f func(lo, hi int) error) error {
	for lo := 0; lo < n; lo += per {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := f(lo, min(lo+per, n)); err != nil {
			return err
		}
	}
	return nil
}

// attribute adds every network's attributions of the rows of sub to out's Features, with
// the weights of partWeights, in blocks of explainChunkOf rows: the model's networks (each
// member's encoder, then its autoencoder) attribute a block on the fit's threads
// (torch.NumThreads), one network a task, and the parts are added network after network,
// as on one thread, so the sums do not depend on the thread count. ctx is checked between
// blocks.
func (m *Model) attribute(ctx context.Context, out []Attribution, sub *data.Dataset, distBase, b, alphas []float32, distPart, recPart torch.Part) error {
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
	threads := torch.NumThreads()
	chunk := min(sub.N, explainChunkOf(m.meta.Sizes, len(nets), threads, distPart))
	x := make([]float32, chunk*d)
	atts := make([][]float32, len(nets))
	for i := range atts {
		atts[i] = make([]float32, chunk*d)
	}
	return inBlocks(ctx, sub.N, chunk, func(lo, hi int) error {
		xc := x[:(hi-lo)*d]
		m.meta.Scaler.Standardise(xc, sub.X[lo*d:hi*d])
		err := parallel.ForErr(len(nets), threads, func(i int) error {
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
		parallel.For(hi-lo, threads, func(r int) {
			f := out[lo+r].Features
			for i, nt := range nets {
				for j, v := range atts[i][r*d : (r+1)*d] {
					f[j] += nt.c * float64(v)
				}
			}
		})
		return nil
	})
}

// explainChunkOf is the most rows that one block of attribute gives each network: at most
// explainChunk, and few enough that the largest tensors of the networks that run at once
// (min(nets, threads) of them) hold explainBudget values in all. Occlusion's largest
// tensors are a block's d occluded copies through the widest layer (or, for the
// reconstruction, d copies of d values); the gradient methods', the block through every
// layer and back (one path point at a time); and the block's parts, nets·d values a row,
// are held beside. Sizes are the network's layer widths, the input first.
func explainChunkOf(sizes []int, nets, threads int, part torch.Part) int {
	d, wide := sizes[0], slices.Max(sizes)
	at := min(max(nets, 1), max(threads, 1))
	perRow := 0
	for _, w := range sizes {
		perRow += 4 * w
	}
	if part == torch.DistanceOcclusion || part == torch.ReconstructionOcclusion {
		perRow = (d + 1) * max(wide, d)
	}
	return max(1, min(explainChunk, explainBudget/(at*perRow+nets*d)))
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
func (m *Model) baseScore(ctx context.Context) (float64, error) {
	d := m.Inputs()
	ds := &data.Dataset{Name: "baseline", N: 1, D: d, X: make([]float32, d)}
	for j, v := range m.meta.Normal.Median {
		ds.X[j] = float32(v)
	}
	s, _, err := m.scoreDataset(ctx, ds, false)
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
	if len(m.nets) == 1 {
		cD[0] = 1
		return cD, nil
	}
	for i, div := range m.meta.Scales() { // package method, paper.go
		cD[i] = 1 / (k * div)
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
		keep := func(i int) bool {
			g := offset + i
			return g%step == 0 && (flaggedToo || m.labels == nil || !m.labels[g])
		}
		rows := 0
		for i := 0; i < ds.N; i++ {
			if keep(i) {
				rows++
			}
		}
		x := make([]float32, 0, rows*ds.D)
		for i := 0; i < ds.N; i++ {
			if keep(i) {
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
			m.meta.Normal = models.FitNormal(x, len(x)/ds.D, ds.D, torch.NumThreads())
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

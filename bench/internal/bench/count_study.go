package bench

import (
	"cmp"
	"encoding/json"
	"fmt"
	"github.com/udocc/udocc/bench/internal/countlearn"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/udocc/udocc/internal/atomicfile"
	countmodel "github.com/udocc/udocc/internal/count"
	"github.com/udocc/udocc/internal/dynamics"
	"github.com/udocc/udocc/internal/stats"
)

// The count study (`udocc-bench --study --real --corpus DIR --learn-count`) learns the
// default count (package count) from the corpus fits of the real group: every fit's
// features are drawn from its raw scores, the model is learned with every source group
// weighing alike, and every figure of the report is leave-one-group-out: each table is
// judged by a model (penalty and interval bands included) learned without its group.

// CountReport is the count study's report in the output folder.
const CountReport = "count.md"

// CountHeldout lists every fit's held-out estimate (JSON lines) in the output folder.
const CountHeldout = "count-heldout.jsonl"

// countFit is one fit of the corpus with what the count study reads of it.
type countFit struct {
	rec      RealRecord
	feats    []float64 // every count feature (countmodel.Names)
	original bool
	// cumTP[k] is the number of anomalies among the k highest scores, pos their number,
	// best the oracle F1 (the best over k): F1 of any count in O(1).
	cumTP []int32
	pos   int
	best  float64
	// dynamics is the paper's count (Algorithm 1's δ search, udocc's accumulated rule)
	// over the screening fit's fine-tuning epochs, the median over the members of
	// (n − δ̄ + 1)/n; NaN without the epochs.
	dynamics float64
	// dynamicsPre and dynamicsPreLate are the same over the screening fit's pretraining
	// epochs, which start from random weights and re-rank the rows, where the fine-tuning
	// hardly does: all of them, and the later half (the network settled).
	dynamicsPre, dynamicsPreLate float64
}

// dynamicsShare is the paper's training-dynamics count on a fit's screening epochs: for
// each member, the accumulated δ rule over its epoch-to-epoch rank changes, averaged
// into δ̄ (Eq. (6)) over the search epochs; the median over the members of the share of
// rows ranked at or above δ̄.
func dynamicsShare(epochs [][][]float32) float64 {
	var shares []float64
	for _, member := range epochs {
		if len(member) < 2 {
			continue
		}
		rule := &dynamics.Accumulated{}
		var prev []int
		sum, k := 0.0, 0
		n := len(member[0])
		for e, d := range member {
			cur := dynamics.Ranks(stats.Widen(nil, d))
			if prev != nil {
				res, err := rule.Pick(dynamics.Dynamics{Epoch: e + 1, Prev: prev, Cur: cur, Counts: dynamics.Crossings(prev, cur)})
				if err != nil {
					return math.NaN()
				}
				sum += float64(res.Delta)
				k++
			}
			prev = cur
		}
		if k > 0 {
			shares = append(shares, max(float64(n)-sum/float64(k)+1, 1)/float64(n))
		}
	}
	if len(shares) == 0 {
		return math.NaN()
	}
	return medianOf(shares)
}

// laterHalf is each member's later half of its epochs.
func laterHalf(epochs [][][]float32) [][][]float32 {
	out := make([][][]float32, len(epochs))
	for k, member := range epochs {
		out[k] = member[len(member)/2:]
	}
	return out
}

// largerKmeans is the share larger/kmeans flags on the fit (e^its feature), the default
// count before the learned ones.
func (f countFit) largerKmeans() float64 {
	return math.Exp(f.feats[slices.Index(countmodel.Names(), "larger_kmeans")])
}

// LearnCount learns the count from the fits in dir (real.jsonl and raw/), writes the
// model to modelPath and the report to dir/count.md. With judgeDir, the report also
// judges the shipped kind of count, held out by group, on the fits there: the same
// tables, seeds and copies fitted with another setting (the default's projection of wide
// tables), the count learned on dir's fits.
func LearnCount(dir, modelPath, judgeDir string, progress io.Writer) error {
	fits, err := loadCountFits(dir, progress)
	if err != nil {
		return err
	}
	var judged []countFit
	if judgeDir != "" {
		if judged, err = loadCountFits(judgeDir, progress); err != nil {
			return err
		}
		if judged, err = alignFits(fits, judged); err != nil {
			return fmt.Errorf("bench: count study: %s and %s: %w", dir, judgeDir, err)
		}
	}
	names := countmodel.Names()
	// Both counts' intervals are read from the original tables' held-out residuals
	// (LearnOptions.Originals); the copies serve the models and their response.
	opts := countlearn.LearnOptions{
		Features: names, Reliability: "agree_members", Version: 3, Originals: true,
		Trained: fmt.Sprintf("udocc-bench --study --real --corpus --learn-count: %d fits of %d tables and their resampled copies in %d source groups",
			len(fits), countOriginals(fits), len(groupNames(fits))),
	}
	samples := countSamples(fits, names, opts.Reliability)
	ridgeOpts := opts.ChooseReliability()
	ridge, err := countlearn.Learn(samples, ridgeOpts)
	if err != nil {
		return err
	}
	gated, err := countlearn.LearnGated(samples, opts)
	if err != nil {
		return err
	}
	ruleOpts := opts.ChooseReliability()
	rule, err := countlearn.LearnRule(samples, ruleOpts)
	if err != nil {
		return err
	}
	if progress != nil {
		fmt.Fprintf(progress, "count study: models learned; held-out estimates next\n")
	}
	heldRidge, err := countlearn.Heldout(samples, ridgeOpts)
	if err != nil {
		return err
	}
	heldGated, err := countlearn.HeldoutGated(samples, opts)
	if err != nil {
		return err
	}
	heldRule, err := countlearn.HeldoutRule(samples, ruleOpts)
	if err != nil {
		return err
	}
	// The model shipped is the one of least held-out mean |ln| over the groups'
	// original tables (the study's first criterion); where two are within shipTie of
	// each other, far inside the noise of 34 groups, the one that misses by more than
	// ×10 on fewer of them (the count issue's "no catastrophes").
	type learned struct {
		kind  string
		model *countmodel.Model
		held  []countmodel.Estimate
	}
	best := learned{"gated", gated, heldGated}
	for _, c := range []learned{{"ridge", ridge, heldRidge}, {"rule", rule, heldRule}} {
		lc, lb := groupMeanAbsLn(fits, c.held), groupMeanAbsLn(fits, best.held)
		if lc < lb-shipTie || math.Abs(lc-lb) <= shipTie && groupBeyond10(fits, c.held) < groupBeyond10(fits, best.held) {
			best = c
		}
	}
	model, held, kind := best.model, best.held, best.kind
	b, err := json.MarshalIndent(model, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(modelPath, append(b, '\n')); err != nil {
		return err
	}
	if progress != nil {
		fmt.Fprintf(progress, "count study: the %s count written to %s\n", kind, modelPath)
	}
	// Every fit's held-out estimate, for comparisons on the same scores (PyThresh's rules).
	var lines strings.Builder
	for i, f := range fits {
		b, _ := json.Marshal(map[string]any{"table": f.rec.Table, "group": f.rec.Group, "seed": f.rec.Seed, "source": f.rec.Source,
			"n": f.rec.N, "true": f.rec.TrueRatio, "share": held[i].Share, "low": held[i].Low, "high": held[i].High,
			"reliable": held[i].Reliable, "today": f.rec.Default.Selected, "larger_kmeans": f.largerKmeans(), "rocauc": f.rec.Default.ROCAUC})
		lines.Write(append(b, '\n'))
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, CountHeldout), []byte(lines.String())); err != nil {
		return err
	}
	var sb strings.Builder
	writeCountReport(&sb, fits, held, names, kind, heldRidge, heldGated, heldRule, ridge, gated, rule)
	if judged != nil {
		jheld, err := countlearn.HeldoutOn(kind, samples, countSamples(judged, names, opts.Reliability), opts)
		if err != nil {
			return err
		}
		writeJudged(&sb, judgeDir, kind, fits, judged, held, jheld)
	}
	return atomicfile.WriteBytes(filepath.Join(dir, CountReport), []byte(sb.String()))
}

// loadCountFits reads the fits in dir (real.jsonl and raw/) and computes each one's count
// features.
func loadCountFits(dir string, progress io.Writer) ([]countFit, error) {
	recs, err := readReal(filepath.Join(dir, RealFile))
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("bench: count study: no fits in %s", dir)
	}
	names := countmodel.Names()
	var fits []countFit
	for i, r := range recs {
		raw, err := readRaw(filepath.Join(dir, RealRaw), r)
		if err != nil {
			return nil, err
		}
		members, distRec := countmodel.Agreements(raw.Dist, raw.Rec)
		final := raw.Scores // what the product's count reads: the networks' scores
		if raw.Networks != nil {
			final = raw.Networks
		}
		f, err := countmodel.Compute(&countmodel.Inputs{Final: final, Screen: raw.Screen, MemberAgreement: members, DistRecAgreement: distRec}, names)
		if err != nil {
			return nil, fmt.Errorf("bench: count study: %s seed %d: %w", r.Table, r.Seed, err)
		}
		y := make([]int, len(raw.Y))
		for j, v := range raw.Y {
			y[j] = int(v)
		}
		cf := countFit{rec: r, feats: f, original: r.Source == "", dynamics: dynamicsShare(raw.ScreenEpochs),
			dynamicsPre: dynamicsShare(raw.ScreenPretrain), dynamicsPreLate: dynamicsShare(laterHalf(raw.ScreenPretrain))}
		cf.rankLabels(raw.Scores, y)
		fits = append(fits, cf)
		if progress != nil && (i+1)%50 == 0 {
			fmt.Fprintf(progress, "count study: features of %d/%d fits\n", i+1, len(recs))
		}
	}
	return fits, nil
}

// countSamples are the fits as the count's learner takes them: features in the order of
// names, the reliability feature rel read from them.
func countSamples(fits []countFit, names []string, rel string) []countlearn.Sample {
	r := slices.Index(names, rel)
	out := make([]countlearn.Sample, len(fits))
	for i, f := range fits {
		out[i] = countlearn.Sample{Group: f.rec.Group, Features: f.feats, Reliability: f.feats[r],
			TrueShare: f.rec.TrueRatio, Copy: !f.original}
	}
	return out
}

// alignFits returns b's fits in the order of a's, each matched by table and seed, or an
// error where the two are not the same fits (tables, seeds, copies and truths).
func alignFits(a, b []countFit) ([]countFit, error) {
	if len(a) != len(b) {
		return nil, fmt.Errorf("%d fits against %d", len(a), len(b))
	}
	type key struct {
		table string
		seed  uint64
	}
	at := make(map[key]int, len(b))
	for i, f := range b {
		at[key{f.rec.Table, f.rec.Seed}] = i
	}
	out := make([]countFit, len(a))
	for i, f := range a {
		j, ok := at[key{f.rec.Table, f.rec.Seed}]
		if !ok || b[j].rec.Group != f.rec.Group || b[j].rec.TrueRatio != f.rec.TrueRatio {
			return nil, fmt.Errorf("no fit of %s seed %d like the other's", f.rec.Table, f.rec.Seed)
		}
		out[i] = b[j]
	}
	return out, nil
}

// logoConstants is the best constant count learned leave-one-group-out, by group: the
// share of least group-weighted mean |ln(share/true)| over the other groups' fits (a
// weighted median of ln(true)).
func logoConstants(fits []countFit) map[string]float64 {
	size := map[string]int{}
	for _, f := range fits {
		size[f.rec.Group]++
	}
	out := map[string]float64{}
	for _, g := range groupNames(fits) {
		var ys, ws []float64
		for _, f := range fits {
			if f.rec.Group != g {
				ys = append(ys, math.Log(f.rec.TrueRatio))
				ws = append(ws, 1/float64(size[f.rec.Group]))
			}
		}
		out[g] = math.Exp(countlearn.WeightedQuantile(ys, ws, 0.5))
	}
	return out
}

// countAgg is a count's criteria on some fits' original tables: mean |ln|, the shares
// within ×1.5, covered by the interval and beyond ×10, the mean F1 over the oracle's.
type countAgg struct{ absLn, w15, f1, cov, beyond float64 }

// groupFigures is estimator e's criteria on the original tables of fits that keep
// accepts (a fit e gives NaN is left out): over groups (each group's mean, then their
// mean), by group, and every interval's width (high / low).
func groupFigures(fits []countFit, e estimator, keep func(f countFit) bool) (countAgg, map[string]countAgg, []float64) {
	sums := map[string]*countAgg{}
	cnt := map[string]int{}
	var widths []float64
	for i, f := range fits {
		if !f.original || !keep(f) || math.IsNaN(e.share(i)) {
			continue // a count a fit lacks: the dynamics count above TrainRows rows
		}
		r := countFigures(f, e.share(i), e.lo(i), e.hi(i))
		a := sums[f.rec.Group]
		if a == nil {
			a = &countAgg{}
			sums[f.rec.Group] = a
		}
		a.absLn += r.absLn
		a.f1 += r.f1ratio
		if r.within15 {
			a.w15++
		}
		if r.covered {
			a.cov++
		}
		if r.beyond10 {
			a.beyond++
		}
		if !math.IsNaN(r.width) {
			widths = append(widths, r.width)
		}
		cnt[f.rec.Group]++
	}
	out := map[string]countAgg{}
	var tot countAgg
	for g, a := range sums {
		c := float64(cnt[g])
		ga := countAgg{a.absLn / c, a.w15 / c, a.f1 / c, a.cov / c, a.beyond / c}
		out[g] = ga
		tot.absLn += ga.absLn
		tot.w15 += ga.w15
		tot.f1 += ga.f1
		tot.cov += ga.cov
		tot.beyond += ga.beyond
	}
	k := float64(len(out))
	tot = countAgg{tot.absLn / k, tot.w15 / k, tot.f1 / k, tot.cov / k, tot.beyond / k}
	return tot, out, widths
}

// writeJudged is the report's section on the shipped count judged, held out by group, on
// other fits of the same tables (LearnCount's judgeDir), beside the same count on the
// fits it was learned from and the held-out constant: the criteria on the original
// tables per group, then over groups, and a paired bootstrap over the groups.
func writeJudged(w io.Writer, judgeDir, kind string, fits, judged []countFit, held, jheld []countmodel.Estimate) {
	logo := logoConstants(fits)
	all := func(countFit) bool { return true }
	nan := func(int) float64 { return math.NaN() }
	of := func(h []countmodel.Estimate) estimator {
		return estimator{share: func(i int) float64 { return h[i].Share }, lo: func(i int) float64 { return h[i].Low }, hi: func(i int) float64 { return h[i].High }}
	}
	tj, gj, _ := groupFigures(judged, of(jheld), all)
	tl, _, _ := groupFigures(fits, of(held), all)
	tc, gc, _ := groupFigures(judged, estimator{share: func(i int) float64 { return logo[judged[i].rec.Group] }, lo: nan, hi: nan}, all)
	judgeDir = filepath.Base(judgeDir) // the folder's name: a report reads the same wherever it was made
	fmt.Fprintf(w, "\n## Held out on the fits in %s\n\n", judgeDir)
	fmt.Fprintf(w, "The %s count learned as above (on every group but the judged one's) judged on other fits of the same tables, seeds "+
		"and copies: those in %s (made with `--components 0`, the default's projection of tables of more than 300 columns, where the count learned from fits that read every column). Original tables, per group then over groups.\n\n", kind, judgeDir)
	fmt.Fprintf(w, "| count | mean \\|ln\\| | within ×1.5 | beyond ×10 | 80 %% interval coverage |\n|---|---|---|---|---|\n")
	fmt.Fprintf(w, "| %s, on those fits | %.3f | %.0f %% | %.0f %% | %.0f %% |\n", kind, tj.absLn, 100*tj.w15, 100*tj.beyond, 100*tj.cov)
	fmt.Fprintf(w, "| %s, on the fits it was learned from | %.3f | %.0f %% | %.0f %% | %.0f %% |\n", kind, tl.absLn, 100*tl.w15, 100*tl.beyond, 100*tl.cov)
	fmt.Fprintf(w, "| best constant (leave-one-group-out) | %.3f | %.0f %% | %.0f %% | — |\n\n", tc.absLn, 100*tc.w15, 100*tc.beyond)
	var diffs []float64
	for _, g := range groupNames(judged) {
		if a, ok := gj[g]; ok {
			diffs = append(diffs, a.absLn-gc[g].absLn)
		}
	}
	lo, mid, hi := bootstrapMean(diffs, 10000)
	fmt.Fprintf(w, "Paired bootstrap over the %d groups (10,000 resamples), on those fits, %s − best constant: %+.3f [%+.3f, %+.3f].\n",
		len(diffs), kind, mid, lo, hi)
}

func countOriginals(fits []countFit) int {
	seen := map[string]bool{}
	for _, f := range fits {
		if f.original {
			seen[f.rec.Table] = true
		}
	}
	return len(seen)
}

func groupNames(fits []countFit) []string {
	var gs []string
	for _, f := range fits {
		if !slices.Contains(gs, f.rec.Group) {
			gs = append(gs, f.rec.Group)
		}
	}
	slices.Sort(gs)
	return gs
}

// countRow is one fit's figures under one count.
type countRow struct {
	absLn, f1ratio float64
	within15       bool
	beyond10       bool
	covered        bool
	width          float64 // high/low, NaN without an interval
}

func countFigures(f countFit, share, lo, hi float64) countRow {
	n := float64(len(f.cumTP) - 1)
	share = max(share, 1/n)
	e := math.Abs(math.Log(share / f.rec.TrueRatio))
	r := countRow{absLn: e, within15: e <= math.Log(1.5)+1e-12, beyond10: e > math.Log(10), width: math.NaN()}
	if !math.IsNaN(lo) {
		r.covered = lo <= f.rec.TrueRatio && f.rec.TrueRatio <= hi
		r.width = hi / max(lo, 1/n)
	}
	k := min(int(share*n+0.5), len(f.cumTP)-1)
	if f.best > 0 {
		r.f1ratio = f.f1(k) / f.best
	}
	return r
}

// rankLabels fills cumTP, pos and best from the fit's scores and labels.
func (f *countFit) rankLabels(scores []float64, y []int) {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	f.cumTP = make([]int32, len(scores)+1)
	for k, i := range idx {
		f.cumTP[k+1] = f.cumTP[k] + int32(y[i])
	}
	f.pos = int(f.cumTP[len(scores)])
	for k := 1; k <= len(scores); k++ {
		f.best = max(f.best, f.f1(k))
	}
}

// f1 is the F1 of flagging the k highest scores.
func (f *countFit) f1(k int) float64 {
	tp := f.cumTP[k]
	if tp == 0 {
		return 0
	}
	return 2 * float64(tp) / float64(k+f.pos)
}

// slopeOf is the least-squares slope of ln(est) on ln(true), clipped to [0, 1]; NaN
// where the true shares span less than 0.5 in ln.
func slopeOf(truth, est []float64) float64 {
	var mx, my float64
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range truth {
		x := math.Log(truth[i])
		mx += x
		my += math.Log(est[i])
		lo, hi = min(lo, x), max(hi, x)
	}
	if hi-lo < 0.5 || len(truth) < 3 {
		return math.NaN()
	}
	mx /= float64(len(truth))
	my /= float64(len(truth))
	var sxy, sxx float64
	for i := range truth {
		dx := math.Log(truth[i]) - mx
		sxy += dx * (math.Log(est[i]) - my)
		sxx += dx * dx
	}
	return min(max(sxy/sxx, 0), 1)
}

// estimator is one count under study: each fit's share and interval (NaN bounds without).
type estimator struct {
	name  string
	short string // the column's name in the per-group and per-table tables
	share func(i int) float64
	lo    func(i int) float64
	hi    func(i int) float64
}

// shipTie is the difference in held-out mean |ln| under which LearnCount ships the
// count of fewer misses beyond ×10 rather than the one of less |ln|.
const shipTie = 0.01

// groupBeyond10 is the mean over groups of the share of a group's original tables'
// fits whose estimate misses the true share by more than ×10.
func groupBeyond10(fits []countFit, est []countmodel.Estimate) float64 {
	return groupMean(fits, est, func(absLn float64) float64 {
		if absLn > math.Log(10) {
			return 1
		}
		return 0
	})
}

// groupMeanAbsLn is the mean over groups of the mean |ln(estimate/true)| over a group's
// original tables.
func groupMeanAbsLn(fits []countFit, est []countmodel.Estimate) float64 {
	return groupMean(fits, est, func(absLn float64) float64 { return absLn })
}

// groupMean is the mean over groups of the mean of f(|ln(estimate/true)|) over a group's
// original tables' fits (an estimate of 0 taken as one row).
func groupMean(fits []countFit, est []countmodel.Estimate, f func(absLn float64) float64) float64 {
	sum, cnt := map[string]float64{}, map[string]int{}
	for i, fit := range fits {
		if fit.original {
			sum[fit.rec.Group] += f(math.Abs(math.Log(max(est[i].Share, 1/float64(fit.rec.N)) / fit.rec.TrueRatio)))
			cnt[fit.rec.Group]++
		}
	}
	t := 0.0
	for g, c := range cnt {
		t += sum[g] / float64(c)
	}
	return t / float64(len(cnt))
}

// pairedDiffs are, over groups, a's mean |ln| less b's, for the groups both have fits of
// (a count that lacks a group, such as the dynamics counts on tables a fit samples, is no
// error of 0 there).
func pairedDiffs(a, b map[string]countAgg, groups []string) []float64 {
	var diffs []float64
	for _, g := range groups {
		x, okA := a[g]
		y, okB := b[g]
		if okA && okB {
			diffs = append(diffs, x.absLn-y.absLn)
		}
	}
	return diffs
}

// columns are the per-group and per-table tables' columns of |ln| for ests, each
// estimator's short name (the first with "|ln|" before it where ln says so).
func columns(ests []estimator, ln bool) string {
	var b strings.Builder
	for k, e := range ests {
		if k == 0 && ln {
			fmt.Fprintf(&b, " \\|ln\\| %s |", e.short)
		} else {
			fmt.Fprintf(&b, " %s |", e.short)
		}
	}
	return b.String()
}

func writeCountReport(w io.Writer, fits []countFit, held []countmodel.Estimate, names []string, kind string, heldRidge, heldGated, heldRule []countmodel.Estimate, ridge, gated, rule *countmodel.Model) {
	nan := func(int) float64 { return math.NaN() }
	groups := groupNames(fits)
	logoConst := logoConstants(fits)
	ests := []estimator{
		{"shipped count: " + kind + " (held out by group)", "shipped", func(i int) float64 { return held[i].Share }, func(i int) float64 { return held[i].Low }, func(i int) float64 { return held[i].High }},
		{"the count of the build that made the fits (not held out)", "fits' build", func(i int) float64 { return fits[i].rec.Default.Selected }, nan, nan},
		{"larger/kmeans, the default before the learned counts (a fixed rule)", "larger/kmeans", func(i int) float64 { return fits[i].largerKmeans() }, nan, nan},
		{"constant 5 %", "5 %", func(int) float64 { return 0.05 }, nan, nan},
		{"constant 10 %", "10 %", func(int) float64 { return 0.10 }, nan, nan},
		{"best constant (leave-one-group-out)", "LOGO constant", func(i int) float64 { return logoConst[fits[i].rec.Group] }, nan, nan},
		{"the paper's dynamics count on the members (accumulated δ̄; tables a fit trains on whole, at most 2,048 rows)", "dynamics", func(i int) float64 { return fits[i].dynamics }, nan, nan},
		{"the same over the screening's pretraining epochs (from random weights; tables trained whole)", "dynamics, pretraining", func(i int) float64 { return fits[i].dynamicsPre }, nan, nan},
		{"the same over the later half of the pretraining epochs", "dynamics, later pretraining", func(i int) float64 { return fits[i].dynamicsPreLate }, nan, nan},
		{"ridge count (held out)", "ridge", func(i int) float64 { return heldRidge[i].Share }, func(i int) float64 { return heldRidge[i].Low }, func(i int) float64 { return heldRidge[i].High }},
		{"gated count (held out)", "gated", func(i int) float64 { return heldGated[i].Share }, func(i int) float64 { return heldGated[i].Low }, func(i int) float64 { return heldGated[i].High }},
		{"rule count (held out)", "rule", func(i int) float64 { return heldRule[i].Share }, func(i int) float64 { return heldRule[i].Low }, func(i int) float64 { return heldRule[i].High }},
	}
	fmt.Fprintf(w, "# The count, learned on the corpus and judged leave-one-group-out\n\n")
	fmt.Fprintf(w, "Generated by `udocc-bench --study --real --corpus DIR --learn-count` from %d fits: %d original tables "+
		"(each at its seeds) and their resampled copies, %d source groups. Every figure of the learned count is "+
		"**held out by source group**: each fit is judged by a model learned (penalty and interval bands "+
		"included) without any fit of its group. Averages are taken per group first, then over groups.\n\n",
		len(fits), countOriginals(fits), len(groups))
	fmt.Fprintf(w, "Three learned counts were fitted and judged alike; the one of least held-out mean |ln| over the groups is shipped "+
		"(internal/count/model.json), or, where two are within %.2f of each other, the one that misses by more than ×10 on fewer "+
		"fits: **%s**.\n\n", shipTie, kind)
	if u := slices.IndexFunc(rule.Coef, func(c float64) bool { return c != 0 }); u >= 0 {
		fmt.Fprintf(w, "- Rule count: the share %s flags, as it is (the rule of least group-weighted |ln| among %d); reliability feature %s; bands:",
			rule.Features[u], len(countmodel.RuleFeatures()), rule.Reliability)
		for _, b := range rule.Bands {
			fmt.Fprintf(w, " [≤ %.3f: ×%.2f to ×%.2f, reliable %v]", b.Upto, math.Exp(b.Low), math.Exp(b.High), b.Reliable)
		}
		fmt.Fprintf(w, ".\n")
	}
	fmt.Fprintf(w, "- Ridge count (least absolute deviations, ridge penalty %g chosen leave-one-group-out) on %s; reliability feature %s; bands:",
		ridge.Lambda, strings.Join(ridge.Features, ", "), ridge.Reliability)
	for _, b := range ridge.Bands {
		fmt.Fprintf(w, " [≤ %.3f: ×%.2f to ×%.2f, reliable %v]", b.Upto, math.Exp(b.Low), math.Exp(b.High), b.Reliable)
	}
	fmt.Fprintf(w, "; coefficients (standardised): ")
	for j, f := range ridge.Features {
		fmt.Fprintf(w, "%s %+.3f; ", f, ridge.Coef[j])
	}
	fmt.Fprintf(w, "intercept %.3f (share %.4f).\n", ridge.Intercept, math.Exp(ridge.Intercept))
	if g := gated.Gate; g != nil {
		side := "≤"
		if g.Above {
			side = "≥"
		}
		fmt.Fprintf(w, "- Gated count: where %s %s %.4g, the share %s flags (as it is); elsewhere the prior %.4f. Intervals: rule ×%.2f to ×%.2f (reliable %v), prior ×%.2f to ×%.2f (reliable %v).\n\n",
			g.On, side, g.Upto, g.Use, math.Exp(gated.Intercept), math.Exp(gated.Bands[1].Low), math.Exp(gated.Bands[1].High), gated.Bands[1].Reliable,
			math.Exp(gated.Bands[0].Low), math.Exp(gated.Bands[0].High), gated.Bands[0].Reliable)
	} else {
		fmt.Fprintf(w, "- Gated count: no gate beat the prior alone, %.4f.\n\n", math.Exp(gated.Intercept))
	}

	// Criteria on the original tables.
	perGroup := func(e estimator, keep func(f countFit) bool) (countAgg, map[string]countAgg, []float64) {
		return groupFigures(fits, e, keep)
	}
	aucOf := map[string]float64{}
	for _, f := range fits {
		if f.original && f.rec.Seed == 0 {
			aucOf[f.rec.Table] = f.rec.Default.ROCAUC
		}
	}
	all := func(countFit) bool { return true }
	sep := func(f countFit) bool { return f.rec.Default.ROCAUC >= 0.9 }
	fmt.Fprintf(w, "## Criteria on the original tables (every seed), per group then over groups\n\n")
	fmt.Fprintf(w, "| count | mean \\|ln\\| | within ×1.5 | beyond ×10 | F1 / oracle F1 | ROCAUC ≥ 0.9: \\|ln\\| / within ×1.5 | 80 %% interval: coverage, median width |\n|---|---|---|---|---|---|---|\n")
	for _, e := range ests {
		t, _, widths := perGroup(e, all)
		ts, _, _ := perGroup(e, sep)
		iv := "—"
		if len(widths) > 0 {
			iv = fmt.Sprintf("%.0f %%, ×%.1f", 100*t.cov, medianOf(widths))
		}
		fmt.Fprintf(w, "| %s | %.3f | %.0f %% | %.0f %% | %.2f | %.3f / %.0f %% | %s |\n", e.name, t.absLn, 100*t.w15, 100*t.beyond, t.f1, ts.absLn, 100*ts.w15, iv)
	}
	// Paired bootstrap over groups of the difference in per-group |ln|.
	_, gl, _ := perGroup(ests[0], all)
	fmt.Fprintf(w, "\nPaired bootstrap over the groups (10,000 resamples) of the difference in mean |ln| (learned − other; negative: the learned count is better), 95 %% interval, over the groups where both counts have fits (%d for the learned count):\n\n", len(gl))
	for _, e := range ests[1:] {
		_, go_, _ := perGroup(e, all)
		diffs := pairedDiffs(gl, go_, groups)
		lo, mid, hi := bootstrapMean(diffs, 10000)
		fmt.Fprintf(w, "- vs %s: %+.3f [%+.3f, %+.3f] (%d groups)\n", e.name, mid, lo, hi, len(diffs))
	}
	// Interval: width against separability.
	var ws, as []float64
	for i, f := range fits {
		if f.original {
			ws = append(ws, held[i].High/max(held[i].Low, 1/float64(f.rec.N)))
			as = append(as, f.rec.Default.ROCAUC)
		}
	}
	_, _, wsep := perGroup(ests[0], sep)
	fmt.Fprintf(w, "\nInterval width on tables of ROCAUC ≥ 0.9: median ×%.1f; Spearman of width with ROCAUC over original fits: %.2f.\n\n",
		medianOf(wsep), countmodel.Spearman(ws, as))

	// Response to resampling.
	fmt.Fprintf(w, "## Response: slope of ln(selected) on ln(true) over each table's resampled copies (and the table), seed 0, clipped to [0, 1]\n\n")
	fmt.Fprintf(w, "A count that does not respond can only guess a prior. Each candidate signal is read as a count (the shares, e^feature) where it is one.\n\n")
	fmt.Fprintf(w, "| signal | mean slope, all tables | ROCAUC ≥ 0.9 | tables |\n|---|---|---|---|\n")
	type respEst struct {
		name string
		v    func(i int) float64
	}
	resp := []respEst{{"shipped count (held out)", func(i int) float64 { return held[i].Share }},
		{"ridge count (held out)", func(i int) float64 { return heldRidge[i].Share }},
		{"gated count (held out)", func(i int) float64 { return heldGated[i].Share }},
		{"rule count (held out)", func(i int) float64 { return heldRule[i].Share }},
		{"the count of the build that made the fits", func(i int) float64 { return max(fits[i].rec.Default.Selected, 1/float64(fits[i].rec.N)) }},
		{"the paper's dynamics count (accumulated δ̄, median of members)", func(i int) float64 { return fits[i].dynamics }},
		{"the same over the screening's pretraining epochs", func(i int) float64 { return fits[i].dynamicsPre }},
		{"the same over the later half of the pretraining epochs", func(i int) float64 { return fits[i].dynamicsPreLate }}}
	for j, nm := range names {
		if strings.HasPrefix(nm, "kmeans") || strings.HasPrefix(nm, "mad") || strings.HasPrefix(nm, "iqr") {
			jj := j
			resp = append(resp, respEst{"share: " + nm, func(i int) float64 { return math.Exp(fits[i].feats[jj]) }})
		} else {
			jj := j
			resp = append(resp, respEst{"measure: " + nm + " (e^value)", func(i int) float64 { return math.Exp(fits[i].feats[jj]) }})
		}
	}
	bySource := map[string][]int{}
	for i, f := range fits {
		if f.rec.Seed != fits[0].rec.Seed {
			continue
		}
		src := f.rec.Source
		if src == "" {
			src = f.rec.Table
		}
		bySource[src] = append(bySource[src], i)
	}
	for _, r := range resp {
		var all, hi []float64
		for src, ii := range bySource {
			var tr, es []float64
			for _, i := range ii {
				tr = append(tr, fits[i].rec.TrueRatio)
				es = append(es, r.v(i))
			}
			s := slopeOf(tr, es)
			if math.IsNaN(s) {
				continue
			}
			all = append(all, s)
			if aucOf[src] >= 0.9 {
				hi = append(hi, s)
			}
		}
		fmt.Fprintf(w, "| %s | %.2f | %.2f | %d (%d) |\n", r.name, meanOf(all), meanOf(hi), len(all), len(hi))
	}

	// Per group.
	fmt.Fprintf(w, "\n## Per group: mean |ln(selected/true)| on the original tables\n\n| group | tables |%s\n|---|---|%s\n", columns(ests, false), strings.Repeat("---|", len(ests)))
	gAgg := make([]map[string]countAgg, len(ests))
	for k, e := range ests {
		_, gAgg[k], _ = perGroup(e, all)
	}
	for _, g := range groups {
		tabs := map[string]bool{}
		for _, f := range fits {
			if f.original && f.rec.Group == g {
				tabs[f.rec.Table] = true
			}
		}
		fmt.Fprintf(w, "| %s | %d |", g, len(tabs))
		for k := range ests {
			if a, ok := gAgg[k][g]; ok {
				fmt.Fprintf(w, " %.2f |", a.absLn)
			} else {
				fmt.Fprintf(w, " – |") // a count this group's fits lack
			}
		}
		fmt.Fprintln(w)
	}
	// Per table.
	fmt.Fprintf(w, "\n## Per table (original tables, mean over seeds)\n\n| table | group | n | true share | ROCAUC | learned share [80 %% interval] | reliable |%s\n|---|---|---|---|---|---|---|%s\n", columns(ests, true), strings.Repeat("---|", len(ests)))
	type tabAcc struct {
		f                  countFit
		k                  int
		share, lo, hi, auc float64
		ln                 []float64
		reliable           int
	}
	tabs := map[string]*tabAcc{}
	var order []string
	for i, f := range fits {
		if !f.original {
			continue
		}
		t := tabs[f.rec.Table]
		if t == nil {
			t = &tabAcc{f: f, ln: make([]float64, len(ests))}
			tabs[f.rec.Table] = t
			order = append(order, f.rec.Table)
		}
		t.k++
		t.share += math.Log(held[i].Share)
		t.lo += math.Log(held[i].Low)
		t.hi += math.Log(held[i].High)
		t.auc += f.rec.Default.ROCAUC
		if held[i].Reliable {
			t.reliable++
		}
		for k, e := range ests {
			if sh := e.share(i); math.IsNaN(sh) {
				t.ln[k] = math.NaN() // a count this table's fits lack
			} else {
				t.ln[k] += countFigures(f, sh, math.NaN(), math.NaN()).absLn
			}
		}
	}
	sort.Slice(order, func(a, b int) bool {
		ta, tb := tabs[order[a]], tabs[order[b]]
		if ta.f.rec.Group != tb.f.rec.Group {
			return ta.f.rec.Group < tb.f.rec.Group
		}
		return order[a] < order[b]
	})
	for _, name := range order {
		t := tabs[name]
		k := float64(t.k)
		fmt.Fprintf(w, "| %s | %s | %d | %.4f | %.3f | %.4f [%.4f, %.4f] | %d of %d |", name, t.f.rec.Group, t.f.rec.N, t.f.rec.TrueRatio, t.auc/k,
			math.Exp(t.share/k), math.Exp(t.lo/k), math.Exp(t.hi/k), t.reliable, t.k)
		for j := range ests {
			fmt.Fprintf(w, " %.2f |", t.ln[j]/k)
		}
		fmt.Fprintln(w)
	}
}

func meanOf(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func medianOf(x []float64) float64 { return stats.Median(slices.Clone(x)) }

// bootstrapMean is the 2.5th percentile, the mean and the 97.5th percentile of the mean
// of x over B resamples (fixed seed).
func bootstrapMean(x []float64, b int) (lo, mean, hi float64) {
	if len(x) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	rng := rand.New(rand.NewPCG(1, 2))
	ms := make([]float64, b)
	for i := range ms {
		s := 0.0
		for range x {
			s += x[rng.IntN(len(x))]
		}
		ms[i] = s / float64(len(x))
	}
	slices.Sort(ms)
	return ms[int(0.025*float64(b))], meanOf(x), ms[int(0.975*float64(b))-1]
}

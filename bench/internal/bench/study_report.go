package bench

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/udocc/udocc/internal/atomicfile"
	"github.com/udocc/udocc/internal/method"
	"github.com/udocc/udocc/internal/stats"
	"github.com/udocc/udocc/internal/threshold"
)

// sourceKey is the study's name of the default score source.
func sourceKey(w float64) string { return fmt.Sprintf("w%.2f", w) }

// ruleStats summarises one rule on one source over a set of records.
type ruleStats struct {
	within, total   int
	medLog, meanF1  float64
	meanF1OverOracl float64
}

func statsOf(recs []StudyRecord, source, rule string) (ruleStats, bool) {
	var st ruleStats
	var logs, f1s, rel []float64
	for _, r := range recs {
		se, ok := r.Sources[source]
		if !ok {
			continue
		}
		re, ok := se.Rules[rule]
		if !ok {
			continue
		}
		st.total++
		if threshold.WithinFactor(re.Ratio, r.TrueRatio, 1.5) {
			st.within++
		}
		logs = append(logs, threshold.LogRatioError(re.Ratio, r.TrueRatio))
		f1s = append(f1s, re.F1)
		if se.OracleF1 > 0 {
			rel = append(rel, re.F1/se.OracleF1)
		}
	}
	if st.total == 0 {
		return st, false
	}
	st.medLog, st.meanF1, st.meanF1OverOracl = stats.Median(logs), mean(f1s), mean(rel)
	return st, true
}

func mean(xs []float64) float64 { return meanStd(xs).Mean }

func filter(recs []StudyRecord, keep func(StudyRecord) bool) []StudyRecord {
	var out []StudyRecord
	for _, r := range recs {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// scoreMeans are the mean ROCAUC and PRAUC of a source over records.
func scoreMeans(recs []StudyRecord, source string) (float64, float64, int) {
	var a, p []float64
	for _, r := range recs {
		if se, ok := r.Sources[source]; ok {
			a = append(a, se.ROCAUC)
			p = append(p, se.PRAUC)
		}
	}
	return mean(a), mean(p), len(a)
}

// studySources lists the sources in the records, weights first in order.
func studySources(recs []StudyRecord) []string {
	return sortedKeys(recs, func(r StudyRecord) map[string]SourceEval { return r.Sources })
}

func studyRules(recs []StudyRecord, source string) []string {
	seen := map[string]bool{}
	for _, r := range recs {
		for k := range r.Sources[source].Rules {
			seen[k] = true
		}
	}
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// bestWeight is the distance weight with the highest mean of (ROCAUC + PRAUC) / 2 over
// the two groups, each group's mean counting once: the rule that chose
// method.DistanceWeight.
func bestWeight(paper, syn []StudyRecord) (float64, float64) {
	best, bestV := math.NaN(), math.Inf(-1)
	for _, w := range Weights {
		v := 0.0
		for _, g := range [][]StudyRecord{paper, syn} {
			a, p, n := scoreMeans(g, sourceKey(w))
			if n > 0 {
				v += (a + p) / 4
			}
		}
		if v > bestV {
			best, bestV = w, v
		}
	}
	return best, bestV
}

// bestRule is the rule with the highest mean of its within-×1.5 shares over the two
// groups on source (ties broken by mean F1 ÷ oracle): the rule that chose
// method.DefaultThresholdRule.
func bestRule(paper, syn []StudyRecord, source string) (string, float64) {
	best, bestV, bestRel := "", math.Inf(-1), math.Inf(-1)
	for _, rule := range studyRules(append(append([]StudyRecord(nil), paper...), syn...), source) {
		v, rel, groups := 0.0, 0.0, 0
		for _, g := range [][]StudyRecord{paper, syn} {
			if st, ok := statsOf(g, source, rule); ok {
				v += float64(st.within) / float64(st.total)
				rel += st.meanF1OverOracl
				groups++
			}
		}
		if groups == 0 {
			continue
		}
		v, rel = v/float64(groups), rel/float64(groups)
		if v > bestV || (v == bestV && rel > bestRel) {
			best, bestV, bestRel = rule, v, rel
		}
	}
	return best, bestV
}

// defaultRule is the study's name of the first rule of `udocc fit`'s default count, the
// larger of its counts on the screening fit's scores and on the final scores when the
// default ensemble screens. The default combines it with others
// (method.DefaultThresholdRule), which only the real group's report (StudyReal) judges;
// this study judges single rules.
func defaultRule() string {
	first, _, _ := strings.Cut(method.DefaultThresholdRule, "+")
	if method.EnsembleConfig().ScreenEpochs > 0 {
		return LargerRule(first)
	}
	return first
}

// writeStudyReport writes the study's report on recs to path: its sources, the scores
// of every source, the default's per paper set, and every rule's thresholds.
func writeStudyReport(path string, recs []StudyRecord, o StudyOptions) error {
	var b strings.Builder
	paper := filter(recs, func(r StudyRecord) bool { return r.Group == "paper" })
	syn := filter(recs, func(r StudyRecord) bool { return r.Group == "synthetic" })
	def := sourceKey(method.DistanceWeight)
	defRule := defaultRule()
	writeStudyIntro(&b, paper, syn, def, o)
	writeStudyScores(&b, recs, paper, syn)
	writeStudySetScores(&b, paper, def, o)
	writeStudyDefaultThreshold(&b, paper, syn, def, defRule, o)
	writeStudyThresholds(&b, recs, paper, syn, def)
	return atomicfile.WriteBytes(path, []byte(b.String()))
}

// writeStudyIntro writes the report's title and what its records and sources are.
func writeStudyIntro(b *strings.Builder, paper, syn []StudyRecord, def string, o StudyOptions) {
	fmt.Fprintf(b, "# Score and threshold study\n\n")
	fmt.Fprintf(b, "Written by `udocc-bench --study` from %s: %d paper-set fits (%d sets × seeds), %d synthetic tables "+
		"(normal rows of each paper set, at most %d per table, plus injected anomalies of four kinds at six ratios, package synth).\n\n",
		StudyFile, len(paper), countDistinct(paper), len(syn), o.MaxNormals)
	if len(syn) > 0 && syn[0].GeneratorSeed != 0 {
		fmt.Fprintf(b, "The synthetic tables are drawn with generator seed %d (`--generator-seed`): new tables from the same "+
			"normal rows, not the study's own (seed 0) on which the defaults were chosen.\n\n", syn[0].GeneratorSeed)
	}
	fmt.Fprintf(b, "Sources: `wX` is the default ensemble (%d seeds, method.EnsembleConfig) with distance weight w "+
		"(w1.00 = encoder distances only, w0.00 = reconstruction errors only); `old` is the previous default "+
		"(proposed, the paper's settings, one model); `iforest` is a Go isolation forest (reference only). "+
		"The default source is %s.\n\n", method.EnsembleSize, def)
}

// writeStudyScores writes every source's mean ROCAUC and PRAUC per group and kind of
// synthetic anomaly, and the best distance weight.
func writeStudyScores(b *strings.Builder, recs, paper, syn []StudyRecord) {
	fmt.Fprintf(b, "## Scores: mean ROCAUC / PRAUC\n\n| source | paper sets | synthetic | local | global | dependency | clustered |\n|---|---|---|---|---|---|---|\n")
	for _, s := range studySources(recs) {
		row := []string{s}
		for _, g := range [][]StudyRecord{paper, syn,
			filter(syn, func(r StudyRecord) bool { return r.Kind == "local" }),
			filter(syn, func(r StudyRecord) bool { return r.Kind == "global" }),
			filter(syn, func(r StudyRecord) bool { return r.Kind == "dependency" }),
			filter(syn, func(r StudyRecord) bool { return r.Kind == "clustered" })} {
			a, p, n := scoreMeans(g, s)
			if n == 0 {
				row = append(row, "—")
				continue
			}
			row = append(row, fmt.Sprintf("%.3f / %.3f", a, p))
		}
		fmt.Fprintf(b, "| %s |\n", strings.Join(row, " | "))
	}
	if w, v := bestWeight(paper, syn); !math.IsNaN(w) {
		fmt.Fprintf(b, "\nBest distance weight by the mean of (ROCAUC + PRAUC)/2 over the two groups (each group once): "+
			"**w = %.2f** (%.4f); method.DistanceWeight is %.2f.\n", w, v, method.DistanceWeight)
	}
}

// writeStudySetScores writes the default's, the old default's and the isolation
// forest's scores per paper set beside the paper's Proposed.
func writeStudySetScores(b *strings.Builder, paper []StudyRecord, def string, o StudyOptions) {
	fmt.Fprintf(b, "\n## Scores per paper set (mean over seeds, ROCAUC / PRAUC)\n\n| set | default (%s) | old default | iforest | paper Proposed ROCAUC / PRAUC |\n|---|---|---|---|---|\n", def)
	for _, name := range o.Datasets {
		rs := filter(paper, func(r StudyRecord) bool { return r.Base == name })
		if len(rs) == 0 {
			continue
		}
		row := []string{fmt.Sprintf("%s (%d seeds)", name, len(rs))}
		for _, s := range []string{def, "old", "iforest"} {
			a, p, _ := scoreMeans(rs, s)
			row = append(row, fmt.Sprintf("%.3f / %.3f", a, p))
		}
		pa, _, ok1 := paperValue(ROCAUC, name, "proposed")
		pp, _, ok2 := paperValue(PRAUC, name, "proposed")
		if ok1 && ok2 {
			row = append(row, fmt.Sprintf("%.3f / %.3f", pa.Mean/100, pp.Mean/100))
		} else {
			row = append(row, "—")
		}
		fmt.Fprintf(b, "| %s |\n", strings.Join(row, " | "))
	}
}

// writeStudyDefaultThreshold writes the best rule on the default source, and the
// default rule's threshold per paper set.
func writeStudyDefaultThreshold(b *strings.Builder, paper, syn []StudyRecord, def, defRule string, o StudyOptions) {
	if rule, v := bestRule(paper, syn, def); rule != "" {
		fmt.Fprintf(b, "\nBest threshold rule on the default source by the mean of its within-×1.5 shares in the two groups "+
			"(each group once; ties by mean F1 ÷ oracle): **%s** (%.3f); the default is %s (`screen/RULE`: "+
			"as many rows as RULE flags on the screening fit's scores; `larger/RULE`: that count or RULE's "+
			"own on the source, the larger).\n", rule, v, defRule)
	}
	fmt.Fprintf(b, "\n## The default threshold per paper set (%s, %s; mean over seeds)\n\n| set | true ratio | selected ratio | within ×1.5 (seeds) | F1 | oracle F1 |\n|---|---|---|---|---|---|\n", def, defRule)
	for _, name := range o.Datasets {
		rs := filter(paper, func(r StudyRecord) bool { return r.Base == name })
		var sel, f1, or []float64
		within := 0
		for _, r := range rs {
			se, ok := r.Sources[def]
			re, ok2 := se.Rules[defRule]
			if !ok || !ok2 {
				continue
			}
			sel, f1, or = append(sel, re.Ratio), append(f1, re.F1), append(or, se.OracleF1)
			if threshold.WithinFactor(re.Ratio, r.TrueRatio, 1.5) {
				within++
			}
		}
		if len(sel) == 0 {
			continue
		}
		fmt.Fprintf(b, "| %s | %.3f | %.3f | %d of %d | %.3f | %.3f |\n", name, rs[0].TrueRatio, mean(sel), within, len(sel), mean(f1), mean(or))
	}
}

// writeStudyThresholds writes, per source (the default first), every rule's agreement
// with the true ratio and its F1 in the two groups.
func writeStudyThresholds(b *strings.Builder, recs, paper, syn []StudyRecord, def string) {
	fmt.Fprintf(b, "\n## Thresholds\n\nPer rule and source: within ×1.5 of the true ratio (paper: mean count of 10 sets over seeds; synthetic: share of tables), "+
		"median |ln(selected/true)|, mean F1, mean F1 ÷ the oracle F1 of the same scores (flagging the true count).\n")
	cell := func(st ruleStats, ok bool, ofPaper bool) string {
		if !ok {
			return "— | — | — | —"
		}
		w := fmt.Sprintf("%.0f %%", 100*float64(st.within)/float64(st.total))
		if ofPaper {
			w = fmt.Sprintf("%.1f", 10*float64(st.within)/float64(st.total))
		}
		return fmt.Sprintf("%s | %.2f | %.3f | %.2f", w, st.medLog, st.meanF1, st.meanF1OverOracl)
	}
	for _, s := range append([]string{def}, without(studySources(recs), def)...) {
		fmt.Fprintf(b, "\n### source %s\n\n| rule | paper within ×1.5 (of 10) | paper med. |log| | paper F1 | paper F1/oracle | synthetic within ×1.5 | synthetic med. |log| | synthetic F1 | synthetic F1/oracle |\n|---|---|---|---|---|---|---|---|---|\n", s)
		for _, rule := range studyRules(recs, s) {
			ps, ok1 := statsOf(paper, s, rule)
			ss, ok2 := statsOf(syn, s, rule)
			fmt.Fprintf(b, "| %s | %s | %s |\n", rule, cell(ps, ok1, true), cell(ss, ok2, false))
		}
	}
}

func without(xs []string, x string) []string {
	var out []string
	for _, v := range xs {
		if v != x {
			out = append(out, v)
		}
	}
	return out
}

func countDistinct(recs []StudyRecord) int {
	seen := map[string]bool{}
	for _, r := range recs {
		seen[r.Base] = true
	}
	return len(seen)
}

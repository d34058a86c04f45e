package bench

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/udocc/udocc/internal/atomicfile"
	"github.com/udocc/udocc/internal/method"
	"github.com/udocc/udocc/internal/stats"
	"github.com/udocc/udocc/internal/threshold"
)

// writeRealReport writes OUT/study-real.md from the real group's records and raw files.
func writeRealReport(o RealOptions, recs []RealRecord) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# The real group: the default detector on real tables\n\n")
	fmt.Fprintf(&b, "Written by `udocc-bench --study --real` from %s: %d fits of %d tables (the paper sets and the "+
		"other folder's tables), each through the library's own FitDataset with the default settings and the fit's seed. "+
		"A table of more than %d rows is fitted on a sample of %d rows drawn from the seed, and judged on that sample's share of anomalies.\n\n",
		RealFile, len(recs), countTables(recs), RealMaxRows, RealMaxRows)
	writeRealScores(&b, recs)
	cases := realCases(recs, filepath.Join(o.Out, RealRaw), 2)
	single, pair := addLearned(cases)
	writeRealCandidates(&b, cases)
	writeRealPerTable(&b, cases, DefaultCandidate())
	writeLearned(&b, cases, single, pair)
	if err := writeCandidateCSV(filepath.Join(o.Out, "candidates.csv"), cases); err != nil {
		return err
	}
	return atomicfile.WriteBytes(filepath.Join(o.Out, RealReport), []byte(b.String()))
}

func countTables(recs []RealRecord) int {
	seen := map[string]bool{}
	for _, r := range recs {
		seen[r.Table] = true
	}
	return len(seen)
}

// realByTable groups records by table, in the order they first appear.
func realByTable(recs []RealRecord) ([]string, map[string][]RealRecord) {
	var names []string
	by := map[string][]RealRecord{}
	for _, r := range recs {
		if _, ok := by[r.Table]; !ok {
			names = append(names, r.Table)
		}
		by[r.Table] = append(by[r.Table], r)
	}
	return names, by
}

// writeRealScores is the per-table table of ROCAUC and PRAUC, the default against the
// isolation forest, means over seeds, and the means over tables.
func writeRealScores(b *strings.Builder, recs []RealRecord) {
	fmt.Fprintf(b, "## Scores per table (mean over seeds, ROCAUC / PRAUC)\n\n| table | group | rows fitted (of) | true share | seeds | default | iforest | default fit s |\n|---|---|---|---|---|---|---|---|\n")
	names, by := realByTable(recs)
	var da, dp, fa, fp []float64
	for _, name := range names {
		rs := by[name]
		var a, p, ia, ip, sec, tr []float64
		for _, r := range rs {
			a, p = append(a, r.Default.ROCAUC), append(p, r.Default.PRAUC)
			ia, ip = append(ia, r.IForest.ROCAUC), append(ip, r.IForest.PRAUC)
			sec, tr = append(sec, r.Seconds), append(tr, r.TrueRatio)
		}
		da, dp, fa, fp = append(da, mean(a)), append(dp, mean(p)), append(fa, mean(ia)), append(fp, mean(ip))
		fmt.Fprintf(b, "| %s | %s | %d (%d) | %.4f | %d | %.3f / %.3f | %.3f / %.3f | %.1f |\n",
			name, rs[0].Group, rs[0].N, rs[0].FullN, mean(tr), len(rs), mean(a), mean(p), mean(ia), mean(ip), mean(sec))
	}
	fmt.Fprintf(b, "| **mean of %d tables** | | | | | **%.3f / %.3f** | **%.3f / %.3f** | |\n\n", len(names), mean(da), mean(dp), mean(fa), mean(fp))
}

// writeRealCandidates is the table of every candidate count's criteria, best mean
// |ln(selected/true)| first.
func writeRealCandidates(b *strings.Builder, cases []*realCase) {
	fmt.Fprintf(b, "## Candidate counts (%d fits)\n\n"+
		"within ×1.5: fits whose selected share is within a factor 1.5 of the true share; mean |ln|: of selected/true "+
		"(a count of 0 taken as one row); beyond ×4: tables where most seeds miss by more than ×4; F1: flagging that many "+
		"of the highest final scores, against the oracle (the true count) on the same scores; paper sets: within ×1.5 "+
		"(mean over seeds, of 10) and mean |ln|; interval: share of fits whose true share lies in the 80 %% interval, and "+
		"its median width high/low. Rules whose cost grows with rows times iterations (gmm, gmm-log, gmm-bic, gesd, comb) "+
		"count on %d evenly spaced rows of a fit above %d rows (threshold.ShareOf, as `udocc fit` does). The default, "+
		"`udocc fit`'s count %q, is %s.\n\n"+
		"| candidate | within ×1.5 | mean \\|ln\\| | beyond ×4: tables | F1 / oracle | paper sets | interval |\n|---|---|---|---|---|---|---|\n",
		len(cases), threshold.CostlyRows, threshold.CostlyAbove, method.DefaultThresholdRule, DefaultCandidate())
	type row struct {
		name string
		st   candStats
	}
	var rows []row
	for _, name := range candidateNames(cases) {
		if st, ok := statsFor(cases, name); ok {
			rows = append(rows, row{name, st})
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].st.meanLog < rows[j].st.meanLog })
	for _, r := range rows {
		fmt.Fprintf(b, "%s\n", statsRow(r.name, r.st))
	}
	b.WriteString("\n")
}

// writeCandidateCSV writes every fit's candidate shares, one row a fit, for study outside
// the report (not kept in git).
func writeCandidateCSV(path string, cases []*realCase) error {
	names := candidateNames(cases)
	var b strings.Builder
	b.WriteString("table,group,seed,n,true")
	for _, name := range names {
		fmt.Fprintf(&b, ",%s", name)
		if _, ok := cases[0].ivals[name]; ok {
			fmt.Fprintf(&b, ",%s:lo,%s:hi", name, name)
		}
	}
	b.WriteString("\n")
	for _, c := range cases {
		fmt.Fprintf(&b, "%s,%s,%d,%d,%g", c.r.Table, c.r.Group, c.r.Seed, c.n, c.r.TrueRatio)
		for _, name := range names {
			fmt.Fprintf(&b, ",%g", c.ratios[name])
			if _, ok := cases[0].ivals[name]; ok {
				iv := c.ivals[name]
				fmt.Fprintf(&b, ",%g,%g", iv[0], iv[1])
			}
		}
		b.WriteString("\n")
	}
	return atomicfile.WriteBytes(path, []byte(b.String()))
}

// Calibrations are the learned candidates' features: each "loto/calib:F1+F2" is
// ln(share) = a + Σ b_j·ln(F_j), learned leave one table out (addCalibrated); none is
// a constant share learned from the other tables (a prior).
var Calibrations = [][]string{
	{}, {"rule/kmeans"}, {"larger/kmeans"}, {"rule/gmm-bic"}, {"medlog/all"}, {"gammagmm/paper"},
	{"larger/kmeans", "rule/gmm-bic"},
}

// CalibName is the study's name of the calibration on feats.
func CalibName(feats []string) string { return "loto/calib:" + strings.Join(feats, "+") }

// addLearned adds the default (its interval learned leave one table out) and the
// learned candidates, each measured leave one table out, and returns the meta-choices'
// picks per table.
func addLearned(cases []*realCase) (single, pair map[string]string) {
	pool := candidateNames(cases)
	single = addBestSingle(cases, "loto/best-single", pool)
	var rules []string
	for _, k := range pool {
		if strings.HasPrefix(k, "rule/") || strings.HasPrefix(k, "larger/") {
			rules = append(rules, k)
		}
	}
	pair = addBestPair(cases, "loto/best-pair", rules)
	for _, f := range Calibrations {
		addCalibrated(cases, CalibName(f), f)
	}
	def := DefaultCandidate()
	addDefault(cases)
	addResidualInterval(cases, def)
	return single, pair
}

// defaultParts are the study's names of the counts the default combines: each rule of
// method.DefaultThresholdRule, the larger of its counts on the screening fit's scores
// and on the final scores.
func defaultParts() []string {
	var out []string
	for _, r := range strings.Split(method.DefaultThresholdRule, "+") {
		out = append(out, LargerRule(r))
	}
	return out
}

// addDefault adds the default count to every case where it combines several counts (a
// single count is a candidate of its own already).
func addDefault(cases []*realCase) {
	if parts := defaultParts(); len(parts) > 1 {
		addGeo(cases, parts...)
	}
}

// DefaultCandidate is the study's name of the default count: the geometric mean of its
// rules' larger counts.
func DefaultCandidate() string {
	if parts := defaultParts(); len(parts) > 1 {
		return GeoName(parts...)
	}
	return LargerRule(method.DefaultThresholdRule)
}

// writeLearned reports the learned candidates' fits on every table (what a default
// built from them would carry) and the meta-choice's picks.
func writeLearned(b *strings.Builder, cases []*realCase, chose, pairs map[string]string) {
	fmt.Fprintf(b, "## Learned candidates fitted on every table\n\n"+
		"The rows above measure each learned candidate leave one table out. Fitted on all %d tables, "+
		"ln(share) = a + Σ b·ln(feature), with the 10th and 90th percentiles of the leave-one-table-out residuals "+
		"(the 80 %% interval is exp of the prediction plus them):\n\n| calibration | a | b | residual q10 | residual q90 |\n|---|---|---|---|---|\n", countCaseTables(cases))
	for _, f := range Calibrations {
		coef := fitCalibration(cases, f)
		res := calibrationResiduals(cases, f)
		slices.Sort(res)
		var bs []string
		for _, v := range coef[1:] {
			bs = append(bs, fmt.Sprintf("%.4f", v))
		}
		fmt.Fprintf(b, "| %s | %.4f | %s | %.4f | %.4f |\n", CalibName(f), coef[0], strings.Join(bs, ", "), stats.Quantile(res, 0.1), stats.Quantile(res, 0.9))
	}
	picks := func(chose map[string]string) string {
		count := map[string]int{}
		for _, v := range chose {
			count[v]++
		}
		var out []string
		for k, v := range count {
			out = append(out, fmt.Sprintf("%s (%d tables)", k, v))
		}
		sort.Strings(out)
		return strings.Join(out, ", ")
	}
	fmt.Fprintf(b, "\nThe meta-choices picked, table by table from the other tables: loto/best-single (the unlearned candidate of the lowest mean |ln|): %s; "+
		"loto/best-pair (the geometric mean of two rule/ or larger/ counts of the lowest mean |ln|): %s.\n\n", picks(chose), picks(pairs))
	res := logResiduals(cases, DefaultCandidate())
	fmt.Fprintf(b, "The default's interval on all %d tables: ln(true / selected) has 10th percentile %.4f and 90th %.4f over the %d fits "+
		"(method.DefaultInterval).\n\n", countCaseTables(cases), stats.Quantile(res, 0.1), stats.Quantile(res, 0.9), len(res))
}

func countCaseTables(cases []*realCase) int {
	names, _ := realCaseTables(cases)
	return len(names)
}

// PreviousDefault is the study's name of the count the default drew before the real
// group chose another: two-means' larger count.
const PreviousDefault = "larger/kmeans"

// writeRealPerTable is the default count per table, over seeds: the true share, the
// selected share, PreviousDefault's and the constant 10 %'s within-×1.5 seeds, and the
// interval (learned without the table).
func writeRealPerTable(b *strings.Builder, cases []*realCase, name string) {
	old := PreviousDefault
	fmt.Fprintf(b, "## The default count per table (%s; its interval learned without the table)\n\n"+
		"| table | true share | selected (mean over seeds) | within ×1.5 (seeds) | %s within | fixed-10%% within | 80 %% interval (mean) | holds the true share (seeds) |\n|---|---|---|---|---|---|---|---|\n", name, old)
	by := map[string][]*realCase{}
	var names []string
	for _, c := range cases {
		if _, ok := by[c.r.Table]; !ok {
			names = append(names, c.r.Table)
		}
		by[c.r.Table] = append(by[c.r.Table], c)
	}
	for _, t := range names {
		var tr, sel, lo, hi []float64
		within, oldWithin, fixed, held := 0, 0, 0, 0
		for _, c := range by[t] {
			s, ok := c.selected(name)
			if !ok {
				continue
			}
			tr, sel = append(tr, c.r.TrueRatio), append(sel, s)
			if threshold.WithinFactor(s, c.r.TrueRatio, 1.5) {
				within++
			}
			if o, ok := c.selected(old); ok && threshold.WithinFactor(o, c.r.TrueRatio, 1.5) {
				oldWithin++
			}
			if threshold.WithinFactor(0.1, c.r.TrueRatio, 1.5) {
				fixed++
			}
			if iv, ok := c.ivals[name]; ok {
				lo, hi = append(lo, iv[0]), append(hi, iv[1])
				if c.r.TrueRatio >= iv[0] && c.r.TrueRatio <= iv[1] {
					held++
				}
			}
		}
		if len(sel) == 0 {
			continue
		}
		fmt.Fprintf(b, "| %s | %.4f | %.4f | %d of %d | %d | %d | %.4f – %.4f | %d |\n", t, mean(tr), mean(sel), within, len(sel), oldWithin, fixed, mean(lo), mean(hi), held)
	}
	b.WriteString("\n")
}

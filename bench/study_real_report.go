package bench

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/udocc/udocc/internal/atomicfile"
)

// writeRealReport writes OUT/study-real.md from the real group's records and raw files.
func writeRealReport(o RealOptions, recs []RealRecord) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# The real group: the default detector on real tables\n\n")
	fmt.Fprintf(&b, "Written by `udocc bench --study --real` from %s: %d fits of %d tables (the paper sets and the "+
		"other folder's tables), each through the library's own FitDataset with DefaultOptions and the fit's seed. "+
		"A table of more than %d rows is fitted on a sample of %d rows drawn from the seed, and judged on that sample's share of anomalies.\n\n",
		RealFile, len(recs), countTables(recs), RealMaxRows, RealMaxRows)
	writeRealScores(&b, recs)
	cases := realCases(recs, filepath.Join(o.Out, RealRaw), 2)
	learned := addLearned(cases)
	writeRealCandidates(&b, cases)
	writeLearned(&b, cases, learned)
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
		"its median width high/low.\n\n"+
		"| candidate | within ×1.5 | mean \\|ln\\| | beyond ×4: tables | F1 / oracle | paper sets | interval |\n|---|---|---|---|---|---|---|\n", len(cases))
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

// addLearned adds the learned candidates, each measured leave one table out, and
// returns the meta-choice's pick per table.
func addLearned(cases []*realCase) map[string]string {
	pool := candidateNames(cases)
	chose := addBestSingle(cases, "loto/best-single", pool)
	for _, f := range Calibrations {
		addCalibrated(cases, CalibName(f), f)
	}
	return chose
}

// writeLearned reports the learned candidates' fits on every table (what a default
// built from them would carry) and the meta-choice's picks.
func writeLearned(b *strings.Builder, cases []*realCase, chose map[string]string) {
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
		fmt.Fprintf(b, "| %s | %.4f | %s | %.4f | %.4f |\n", CalibName(f), coef[0], strings.Join(bs, ", "), quantileOf(res, 0.1), quantileOf(res, 0.9))
	}
	count := map[string]int{}
	for _, v := range chose {
		count[v]++
	}
	var picks []string
	for k, v := range count {
		picks = append(picks, fmt.Sprintf("%s (%d tables)", k, v))
	}
	sort.Strings(picks)
	fmt.Fprintf(b, "\nThe meta-choice (loto/best-single: the unlearned candidate of the lowest mean |ln| on the other tables) picked: %s.\n\n", strings.Join(picks, ", "))
}

func countCaseTables(cases []*realCase) int {
	names, _ := realCaseTables(cases)
	return len(names)
}

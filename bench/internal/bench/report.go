package bench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/udocc/udocc/internal/atomicfile"
	"github.com/udocc/udocc/internal/dynamics"
	"github.com/udocc/udocc/internal/odds"
)

// report is the selected lines of a results file, grouped for the report's tables.
type report struct {
	readable   int
	bad        []int
	superseded int // lines of another config fingerprint or δ rule than the latest
	duplicates int // lines repeating a key; the last one is used
	datasets   []string
	methods    []string
	info       map[string]*Line // the latest line of each data set
	cells      map[cellKey]*cell
	sessions   []Session
}

type cellKey struct{ dataset, method string }

// cell is the runs of one (data set, method spec), one line per seed, by seed.
type cell struct {
	rule  string
	lines []*Line
}

// WriteReport regenerates report.md and its figures in out from out/results.jsonl and
// out/sessions.json alone, and returns the report's path.
func WriteReport(out string) (string, error) {
	res, err := ReadResults(filepath.Join(out, ResultsFile))
	if err != nil {
		return "", err
	}
	sessions, err := ReadSessions(filepath.Join(out, SessionsFile))
	if err != nil {
		return "", err
	}
	rep := collect(res, sessions)
	if err := os.MkdirAll(filepath.Join(out, FiguresDir), 0o755); err != nil {
		return "", fmt.Errorf("bench: %w", err)
	}
	figs, err := rep.figures(filepath.Join(out, FiguresDir))
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	rep.write(&b, figs)
	path := filepath.Join(out, ReportFile)
	if err := atomicfile.WriteBytes(path, b.Bytes()); err != nil {
		return "", fmt.Errorf("bench: %w", err)
	}
	return path, nil
}

// collect selects the lines the report uses. Per data set only the config fingerprint
// of its latest line counts, and per (data set, method) only the δ rule of its latest
// line (plain "proposed" follows the default rule, which may change between sessions);
// the other lines are counted as superseded. Per seed the last line wins.
func collect(res *Results, sessions []Session) *report {
	r := &report{readable: len(res.Lines), bad: res.Bad, info: map[string]*Line{}, cells: map[cellKey]*cell{}, sessions: sessions}
	for i := range res.Lines {
		r.info[res.Lines[i].Dataset] = &res.Lines[i]
	}
	current := func(l *Line) bool {
		latest := r.info[l.Dataset]
		return l.Config.Fingerprint == latest.Config.Fingerprint && l.DataSHA == latest.DataSHA
	}
	latestRule := map[cellKey]string{}
	for i := range res.Lines {
		if l := &res.Lines[i]; current(l) {
			latestRule[cellKey{l.Dataset, l.Method}] = l.Rule
		}
	}
	bySeed := map[cellKey]map[uint64]*Line{}
	for i := range res.Lines {
		l := &res.Lines[i]
		k := cellKey{l.Dataset, l.Method}
		if !current(l) || l.Rule != latestRule[k] {
			r.superseded++
			continue
		}
		if bySeed[k] == nil {
			bySeed[k] = map[uint64]*Line{}
		}
		if bySeed[k][l.Seed] != nil {
			r.duplicates++
		}
		bySeed[k][l.Seed] = l
	}
	for k, seeds := range bySeed {
		c := &cell{rule: latestRule[k]}
		for _, l := range seeds {
			c.lines = append(c.lines, l)
		}
		sort.Slice(c.lines, func(i, j int) bool { return c.lines[i].Seed < c.lines[j].Seed })
		r.cells[k] = c
		if !slices.Contains(r.datasets, k.dataset) {
			r.datasets = append(r.datasets, k.dataset)
		}
		if !slices.Contains(r.methods, k.method) {
			r.methods = append(r.methods, k.method)
		}
	}
	sortDatasets(r.datasets)
	sortMethods(r.methods)
	return r
}

// sortDatasets orders the ODDS sets as Table I, the others after them by name.
func sortDatasets(names []string) {
	pos := map[string]int{}
	for i, s := range odds.Sets() {
		pos[s.Name] = i
	}
	rank := func(s string) int {
		if p, ok := pos[s]; ok {
			return p
		}
		return len(pos)
	}
	sort.SliceStable(names, func(i, j int) bool {
		a, b := rank(names[i]), rank(names[j])
		if a != b {
			return a < b
		}
		return names[i] < names[j]
	})
}

// sortMethods orders the methods as the paper's tables, each rule variant after plain
// proposed, by name.
func sortMethods(specs []string) {
	rank := func(s string) int {
		base, _, _ := strings.Cut(s, ":")
		if i := slices.Index(DefaultMethods, base); i >= 0 {
			return 2 * i
		}
		return 2 * len(DefaultMethods)
	}
	sort.SliceStable(specs, func(i, j int) bool {
		a, b := rank(specs[i]), rank(specs[j])
		if a != b {
			return a < b
		}
		return specs[i] < specs[j]
	})
}

// cell returns the runs of a data set and method, nil when there are none.
func (r *report) cell(dataset, method string) *cell { return r.cells[cellKey{dataset, method}] }

// values are a per-seed field of the cell's lines.
func (c *cell) values(f func(*Line) Num) []float64 {
	out := make([]float64, len(c.lines))
	for i, l := range c.lines {
		out[i] = float64(f(l))
	}
	return out
}

// metric is the cell's mean ± std of m over seeds, in percent.
func (c *cell) metric(m Metric) stat {
	s := meanStd(c.values(func(l *Line) Num {
		switch m {
		case ROCAUC:
			return l.ROCAUC
		case PRAUC:
			return l.PRAUC
		}
		return l.F1
	}))
	s.Mean, s.Std = 100*s.Mean, 100*s.Std
	return s
}

// write renders the whole report.
func (r *report) write(b *bytes.Buffer, figs map[string]string) {
	fmt.Fprintf(b, "# udocc benchmark: does it reproduce the paper?\n\n")
	fmt.Fprintf(b, "Generated %s by `udocc-bench` from `%s` and `%s` alone (`udocc-bench --report-only` regenerates it).\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), ResultsFile, SessionsFile)
	if len(r.datasets) == 0 {
		b.WriteString("The results file holds no usable runs yet.\n\n")
		r.writeIgnored(b)
		return
	}
	r.writeSetup(b)
	r.writeVerdict(b)
	for _, m := range Metrics {
		r.writeMetric(b, m)
	}
	r.writeSpheres(b)
	r.writeBest(b)
	r.writeRatios(b, figs)
	r.writeCurves(b, figs)
	r.writeTimings(b)
	r.writeIgnored(b)
}

// writeSetup lists what was run and how the numbers are compared.
func (r *report) writeSetup(b *bytes.Buffer) {
	b.WriteString("## Setup\n\n")
	first := r.info[r.datasets[0]]
	fmt.Fprintf(b, "- udocc %s, libtorch %s, %s, device %s, group mode %s, %d libtorch thread(s) per group.\n",
		first.Versions.Udocc, first.Versions.Libtorch, first.Versions.Go, first.Device, first.Group, first.Timing.Threads)
	fmt.Fprintf(b, "- Training (paper Section V-A unless changed): %d pretraining epochs, %d fine-tuning epochs, batch %d, Adam lr %g, weight decay %g, SB warm-up %d, scores ranked: %s; features standardised; SB's ν and TAR's ratio are the true anomaly ratio.\n",
		first.Config.PretrainEpochs, first.Config.Epochs, first.Config.BatchSize, first.Config.LR, first.Config.WeightDecay, first.Config.WarmUp, first.Config.Scores)
	fmt.Fprintf(b, "- Methods: %s. Plain `proposed` runs the default δ rule of its day; these lines recorded %s (the default now is `%s`).\n",
		"`"+strings.Join(r.methods, "`, `")+"`", r.defaultRules(), ruleLabel(dynamics.DefaultRule()))
	b.WriteString("- Metrics are percentages. **± is the population standard deviation over seeds** (divided by k, numpy's default); the paper does not say which std it reports (the sample std is 5.4% larger at 10 seeds).\n")
	b.WriteString("- *Within* means |ours − paper| ≤ the paper's std, ours rounded to one decimal as the paper prints. Every proposed variant is compared with the paper's Proposed column.\n\n")
	b.WriteString("| data set | n | d | anomalies | true ratio | architecture | config | seeds run |\n|---|---|---|---|---|---|---|---|\n")
	for _, ds := range r.datasets {
		l := r.info[ds]
		seeds := map[uint64]bool{}
		for _, m := range r.methods {
			if c := r.cell(ds, m); c != nil {
				for _, x := range c.lines {
					seeds[x.Seed] = true
				}
			}
		}
		fmt.Fprintf(b, "| %s | %d | %d | %d | %.3f | %s | `%s` | %d |\n", ds, l.N, l.D, l.Anomalies, float64(l.TrueRatio),
			archText(l.Config.Arch), l.Config.Fingerprint, len(seeds))
	}
	b.WriteString("\n")
}

// defaultRules lists the δ rules the plain proposed runs recorded.
func (r *report) defaultRules() string {
	var rules []string
	for _, ds := range r.datasets {
		if c := r.cell(ds, "proposed"); c != nil && !slices.Contains(rules, "`"+c.rule+"`") {
			rules = append(rules, "`"+c.rule+"`")
		}
	}
	if len(rules) == 0 {
		return "none (no plain proposed runs)"
	}
	return strings.Join(rules, ", ")
}

func archText(a []int) string {
	s := make([]string, len(a))
	for i, v := range a {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, "-")
}

// writeIgnored says which lines the report did not use.
func (r *report) writeIgnored(b *bytes.Buffer) {
	b.WriteString("## Lines not used\n\n")
	fmt.Fprintf(b, "%d readable lines; ", r.readable)
	if len(r.bad) == 0 {
		b.WriteString("no unreadable lines; ")
	} else {
		fmt.Fprintf(b, "%d unreadable (lines %s: torn by a kill mid-write or edited; skipped); ", len(r.bad), intList(r.bad, 20))
	}
	fmt.Fprintf(b, "%d superseded by a later config or δ rule; %d repeated a run already counted (the last was used).\n",
		r.superseded, r.duplicates)
}

func intList(xs []int, most int) string {
	var s []string
	for i, x := range xs {
		if i == most {
			s = append(s, fmt.Sprintf("… %d more", len(xs)-most))
			break
		}
		s = append(s, fmt.Sprint(x))
	}
	return strings.Join(s, ", ")
}

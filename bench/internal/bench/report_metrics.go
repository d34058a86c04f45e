package bench

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
)

// comparison is one (data set, method, metric) of ours against the paper's.
type comparison struct {
	dataset, method string
	ours            stat
	paper           paperCell
	table           string
	hasPaper        bool
}

func (c comparison) diff() float64 { return c.ours.Mean - c.paper.Mean }

// within reports whether ours lies within the paper's std of the paper's mean; the
// comparison is made on the numbers as the paper prints them, to one decimal.
func (c comparison) within() bool {
	return math.Abs(math.Round(10*c.ours.Mean)/10-c.paper.Mean) <= c.paper.Std+1e-9
}

// comparisons lists every cell of metric m that has a value of ours.
func (r *report) comparisons(m Metric) []comparison {
	var out []comparison
	for _, ds := range r.datasets {
		for _, method := range r.methods {
			c := r.cell(ds, method)
			if c == nil {
				continue
			}
			s := c.metric(m)
			if s.K == 0 {
				continue
			}
			p, table, ok := paperValue(m, ds, c.lines[0].Base)
			out = append(out, comparison{ds, method, s, p, table, ok})
		}
	}
	return out
}

// writeVerdict counts the comparisons outside the paper's std and checks the paper's
// headline claim, that the proposed method beats plain OC.
func (r *report) writeVerdict(b *bytes.Buffer) {
	b.WriteString("## Verdict\n\n")
	total, beyond := 0, 0
	var parts []string
	perMethod := map[string][2]int{}
	for _, m := range Metrics {
		t, k := 0, 0
		for _, c := range r.comparisons(m) {
			if !c.hasPaper {
				continue
			}
			t++
			pm := perMethod[c.method]
			pm[0]++
			if !c.within() {
				k++
				pm[1]++
			}
			perMethod[c.method] = pm
		}
		total, beyond = total+t, beyond+k
		parts = append(parts, fmt.Sprintf("%s %d of %d", m, k, t))
	}
	if total == 0 {
		b.WriteString("No data set of the paper is in the results: nothing to compare.\n\n")
		return
	}
	fmt.Fprintf(b, "**Our mean differs from the paper's by more than the paper's std in %d of %d comparisons** (%s).\n\n",
		beyond, total, strings.Join(parts, ", "))
	b.WriteString("| method | comparisons | beyond the paper's std | mean ours − paper (points) |\n|---|---|---|---|\n")
	for _, method := range r.methods {
		pm := perMethod[method]
		if pm[0] == 0 {
			continue
		}
		sum, k := 0.0, 0
		for _, m := range Metrics {
			for _, c := range r.comparisons(m) {
				if c.method == method && c.hasPaper {
					sum += c.diff()
					k++
				}
			}
		}
		fmt.Fprintf(b, "| %s | %d | %d | %+.1f |\n", method, pm[0], pm[1], sum/float64(k))
	}
	b.WriteString("\n")
	r.writeClaims(b)
}

// writeClaims checks the paper's claim that pseudo-labelling with the proposed
// threshold beats plain OC in ROCAUC and PRAUC, data set by data set.
func (r *report) writeClaims(b *bytes.Buffer) {
	for _, method := range r.methods {
		if !strings.HasPrefix(method, "proposed") {
			continue
		}
		for _, m := range []Metric{ROCAUC, PRAUC} {
			ours, paper, k := 0, 0, 0
			for _, ds := range r.datasets {
				p, oc := r.cell(ds, method), r.cell(ds, "oc")
				pp, _, ok1 := paperValue(m, ds, "proposed")
				po, _, ok2 := paperValue(m, ds, "oc")
				if p == nil || oc == nil || !ok1 || !ok2 {
					continue
				}
				k++
				if p.metric(m).Mean > oc.metric(m).Mean {
					ours++
				}
				if pp.Mean > po.Mean {
					paper++
				}
			}
			if k > 0 {
				fmt.Fprintf(b, "- `%s` has a higher mean %s than `oc` on %d of %d data sets (the paper's Proposed: %d of %d).\n",
					method, m, ours, k, paper, k)
			}
		}
	}
	b.WriteString("\n")
}

// writeMetric is one metric's table: ours and the paper's side by side.
func (r *report) writeMetric(b *bytes.Buffer, m Metric) {
	tables := map[Metric]string{ROCAUC: "Tables II and IV", PRAUC: "Tables II and IV", F1: "Tables III and IV"}
	fmt.Fprintf(b, "## %s (paper %s)\n\n", m, tables[m])
	cs := r.comparisons(m)
	beyond, t := 0, 0
	for _, c := range cs {
		if c.hasPaper {
			t++
			if !c.within() {
				beyond++
			}
		}
	}
	fmt.Fprintf(b, "%d of %d comparisons lie outside the paper's std.", beyond, t)
	if m == F1 {
		b.WriteString(" OC has no threshold, hence no F1. Precision and recall are ours (the paper's Fig. 2 shows them only as bars).")
	}
	b.WriteString("\n\n| data set | method | seeds | ours | paper | table | ours − paper | within paper std |")
	if m == F1 {
		b.WriteString(" precision | recall |")
	}
	b.WriteString("\n|---|---|---|---|---|---|---|---|")
	if m == F1 {
		b.WriteString("---|---|")
	}
	b.WriteString("\n")
	for _, c := range cs {
		paper, table, diff, within := "—", "—", "—", "—"
		if c.hasPaper {
			paper, table = fmt.Sprintf("%.1f ± %.1f", c.paper.Mean, c.paper.Std), c.table
			diff = fmt.Sprintf("%+.1f", c.diff())
			within = "yes"
			if !c.within() {
				within = "**no**"
			}
		}
		fmt.Fprintf(b, "| %s | %s | %d | %.1f ± %.1f | %s | %s | %s | %s |", c.dataset, c.method, c.ours.K, c.ours.Mean, c.ours.Std, paper, table, diff, within)
		if m == F1 {
			cl := r.cell(c.dataset, c.method)
			pr := meanStd(cl.values(func(l *Line) Num { return l.Precision }))
			rc := meanStd(cl.values(func(l *Line) Num { return l.Recall }))
			fmt.Fprintf(b, " %.1f ± %.1f | %.1f ± %.1f |", 100*pr.Mean, 100*pr.Std, 100*rc.Mean, 100*rc.Std)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// writeBest compares the best method per data set, ours and the paper's, among the
// methods of Tables II and III (the TAR oracle left out, as the paper does).
func (r *report) writeBest(b *bytes.Buffer) {
	b.WriteString("## Best method per data set\n\n")
	b.WriteString("Highest mean among SB, OC, OC+Otsu and Proposed (F1: SB, OC+Otsu, Proposed), every proposed variant counted as Proposed; the TAR oracle is left out, as in the paper's bold face.\n\n")
	b.WriteString("| data set |")
	for _, m := range Metrics {
		fmt.Fprintf(b, " %s ours | %s paper |", m, m)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|---|", len(Metrics)) + "\n")
	for _, ds := range r.datasets {
		fmt.Fprintf(b, "| %s |", ds)
		for _, m := range Metrics {
			ours, best := "—", math.Inf(-1)
			for _, method := range r.methods {
				c := r.cell(ds, method)
				if c == nil || !slices.Contains(paperMethods[m], c.lines[0].Base) {
					continue
				}
				if s := c.metric(m); s.K > 0 && s.Mean > best {
					ours, best = fmt.Sprintf("%s (%.1f)", method, s.Mean), s.Mean
				}
			}
			paper, pbest := "—", math.Inf(-1)
			for _, method := range paperMethods[m] {
				p, _, ok := paperValue(m, ds, method)
				switch {
				case ok && p.Mean > pbest:
					paper, pbest = fmt.Sprintf("%s (%.1f)", method, p.Mean), p.Mean
				case ok && p.Mean == pbest:
					paper = strings.Replace(paper, " (", ", "+method+" (", 1)
				}
			}
			fmt.Fprintf(b, " %s | %s |", ours, paper)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

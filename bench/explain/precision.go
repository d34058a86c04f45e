package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/udocc/udocc/bench/internal/bench"
	"github.com/udocc/udocc/data"
	udocc "github.com/udocc/udocc/internal/detector"
)

// precisionSamples are the permutation counts -precision compares, and precisionRef the
// reference's (sampled Shapley values converge as 1/√permutations: at 128 the
// reference's own error is a quarter of 8's).
var (
	precisionSamples = []int{4, 6, 8}
	precisionRef     = 128
)

// precisionMax is the most flagged rows of a table -precision explains (evenly spaced in
// the table's order beyond it).
const precisionMax = 200

// precision is one permutation count's agreement with the reference on a table's rows.
type precision struct {
	top1, top3, tv, secs float64 // sums over rows (secs: the table's)
	rows                 int
}

// precisionReport fits the default detector (seed 0) on every table of the corpus in dir
// (GROUPS.csv) that the default explains by sampled Shapley values (more than
// CheapExactShapleyFeatures and at most ShapleyMaxFeatures columns), or on those named,
// and compares the Shapley values of its flagged rows from precisionSamples permutations
// with those from precisionRef: how often the feature named first is the reference's,
// how many of the first three are among the reference's first three, and the total
// variation between the shares (Attribution.Shares). Per table, then per source group and
// over the groups.
func precisionReport(dir string, names []string, threads, maxRows int, regression bool) error {
	tables, err := bench.ReadCorpus(dir)
	if err != nil {
		return err
	}
	opts := udocc.Options{Threads: threads}
	type row struct {
		group string
		p     []precision
	}
	var rows []row
	cols := make([]string, 0, len(precisionSamples))
	for _, s := range precisionSamples {
		cols = append(cols, fmt.Sprint(s))
	}
	if regression { // the regressions at the permutations' budgets, s·(k−1) coalitions
		for _, name := range []string{"kernel", "leverage"} {
			for _, s := range precisionSamples {
				cols = append(cols, fmt.Sprintf("%s %d", name, s))
			}
		}
	}
	nEst := len(cols)
	fmt.Printf("| table | group | d | flagged (explained) | top feature = reference's, %% (%s permutations) | top three in reference's top three, %% | total variation of the shares | seconds |\n", strings.Join(cols, " / "))
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, t := range tables {
		if len(names) > 0 && !slices.Contains(names, t.Name) {
			continue
		}
		ds, _, _, err := bench.LoadRealTable(t.Path, 0, maxRows)
		if err != nil {
			return err
		}
		if ds.D <= udocc.CheapExactShapleyFeatures || ds.D > udocc.ShapleyMaxFeatures {
			continue
		}
		m, err := udocc.FitDataset(context.Background(), ds, nil, opts)
		if err != nil {
			return fmt.Errorf("%s: %w", t.Name, err)
		}
		flagged := flaggedRows(m)
		explained := flagged
		if len(flagged) > precisionMax {
			explained = make([]int, precisionMax)
			for i := range explained {
				explained[i] = flagged[i*len(flagged)/precisionMax]
			}
		}
		if len(explained) == 0 {
			continue
		}
		// The reference explains copies of the rows appended after the table's: the
		// permutations are drawn from a row's index, so the reference's are then
		// independent of the estimates' (the baseline, the normal rows' median, is the
		// model's, whatever rows are beside).
		twice := &data.Dataset{Name: ds.Name, N: ds.N + len(explained), D: ds.D, X: slices.Clone(ds.X), Features: ds.Features, Named: ds.Named}
		copies := make([]int, len(explained))
		for i, r := range explained {
			twice.X = append(twice.X, ds.Row(r)...)
			copies[i] = ds.N + i
		}
		ref, err := m.ExplainDataset(context.Background(), twice, copies, udocc.ExplainOptions{Method: udocc.Shapley, Samples: precisionRef})
		if err != nil {
			return fmt.Errorf("%s: %w", t.Name, err)
		}
		ps := make([]precision, len(precisionSamples))
		for k, s := range precisionSamples {
			start := time.Now()
			atts, err := m.ExplainDataset(context.Background(), ds, explained, udocc.ExplainOptions{Method: udocc.Shapley, Samples: s})
			if err != nil {
				return fmt.Errorf("%s: %w", t.Name, err)
			}
			ps[k].secs = time.Since(start).Seconds()
			for r, a := range atts {
				ps[k].add(a, ref[r])
			}
		}
		if regression {
			for _, lev := range []bool{false, true} {
				for _, s := range precisionSamples {
					start := time.Now()
					phis, err := regressionShapley(m, ds, explained, func(k int) int { return s * (k - 1) }, lev)
					if err != nil {
						return fmt.Errorf("%s: %w", t.Name, err)
					}
					p := precision{secs: time.Since(start).Seconds()}
					for r, phi := range phis {
						p.add(udocc.Attribution{Features: phi}, ref[r])
					}
					ps = append(ps, p)
				}
			}
		}
		rows = append(rows, row{t.Group, ps})
		fmt.Printf("| %s | %s | %d | %d (%d) | %s | %s | %s | %s |\n", t.Name, t.Group, ds.D, len(flagged), len(explained),
			each(ps, func(p precision) string { return fmt.Sprintf("%.1f", 100*p.top1/float64(p.rows)) }),
			each(ps, func(p precision) string { return fmt.Sprintf("%.1f", 100*p.top3/float64(p.rows)) }),
			each(ps, func(p precision) string { return fmt.Sprintf("%.3f", p.tv/float64(p.rows)) }),
			each(ps, func(p precision) string { return fmt.Sprintf("%.2f", p.secs) }))
	}
	// Per group (each table's mean over its rows), then over the groups.
	groups := map[string][][]precision{}
	for _, r := range rows {
		groups[r.group] = append(groups[r.group], r.p)
	}
	keys := make([]string, 0, len(groups))
	for g := range groups {
		keys = append(keys, g)
	}
	sort.Strings(keys)
	mean := func(f func(precision) float64) []float64 {
		out := make([]float64, nEst)
		for _, g := range keys {
			for k := 0; k < nEst; k++ {
				var s float64
				for _, p := range groups[g] {
					s += f(p[k])
				}
				out[k] += s / float64(len(groups[g])) / float64(len(keys))
			}
		}
		return out
	}
	fmtAll := func(v []float64, scale float64, prec int) string {
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = fmt.Sprintf("%.*f", prec, scale*x)
		}
		return strings.Join(parts, " / ")
	}
	fmt.Println()
	fmt.Printf("Over %d tables of %d source groups (per group first, then over groups), %s permutations against %d:\n\n", len(rows), len(keys), strings.Join(cols, " / "), precisionRef)
	fmt.Printf("- top feature = the reference's: %s %%\n", fmtAll(mean(func(p precision) float64 { return p.top1 / float64(p.rows) }), 100, 1))
	fmt.Printf("- top three in the reference's top three: %s %%\n", fmtAll(mean(func(p precision) float64 { return p.top3 / float64(p.rows) }), 100, 1))
	fmt.Printf("- total variation of the shares: %s\n", fmtAll(mean(func(p precision) float64 { return p.tv / float64(p.rows) }), 1, 3))
	var secs []float64
	for k := 0; k < nEst; k++ {
		var s float64
		for _, r := range rows {
			s += r.p[k].secs
		}
		secs = append(secs, s)
	}
	fmt.Printf("- seconds explaining, all tables: %s\n", fmtAll(secs, 1, 2))
	return nil
}

// add scores one row's attribution a against the reference's ref.
func (p *precision) add(a, ref udocc.Attribution) {
	p.rows++
	ta, tr := a.Top(3), ref.Top(3)
	if len(ta) > 0 && len(tr) > 0 && ta[0] == tr[0] {
		p.top1++
	} else if len(ta) == 0 && len(tr) == 0 {
		p.top1++
	}
	if len(tr) > 0 {
		in := 0
		for _, j := range ta {
			if slices.Contains(tr, j) {
				in++
			}
		}
		p.top3 += float64(in) / float64(len(tr))
	} else {
		p.top3++
	}
	sa, sr := a.Shares(), ref.Shares()
	var tv float64
	for j := range sa {
		tv += math.Abs(sa[j] - sr[j])
	}
	p.tv += tv / 2
}

// each formats f of every permutation count's precision, joined by " / ".
func each(ps []precision, f func(precision) string) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = f(p)
	}
	return strings.Join(parts, " / ")
}

package bench

import (
	"bytes"
	"fmt"
	"math"
	"strings"
)

// spreadEpochs are the last epochs over which the selected ratio's std says how settled
// the threshold is.
const spreadEpochs = 25

// collapseRow is the collapse check of one variant on one data set: the pseudo-normal
// set's smallest size against half the true normal count.
type collapseRow struct {
	ds       string
	runs     int     // runs with a per-epoch trace
	below    int     // runs whose smallest training set fell below bound
	smallest int     // the smallest training set of any run and epoch
	bound    float64 // (n − anomalies)/2
}

// collapseRows are v's collapse checks, one per data set with traced runs.
func (r *report) collapseRows(v variant) []collapseRow {
	var out []collapseRow
	for _, ds := range r.datasets {
		c := r.variantCell(ds, v)
		if c == nil {
			continue
		}
		info := r.info[ds]
		x := collapseRow{ds: ds, smallest: math.MaxInt, bound: float64(info.N-info.Anomalies) / 2}
		for _, l := range c.lines {
			if l.Epochs == nil || len(l.Epochs.TrainSize) == 0 {
				continue
			}
			least := l.Epochs.TrainSize[0]
			for _, s := range l.Epochs.TrainSize {
				least = min(least, s)
			}
			x.runs++
			x.smallest = min(x.smallest, least)
			if float64(least) < x.bound {
				x.below++
			}
		}
		if x.runs > 0 {
			out = append(out, x)
		}
	}
	return out
}

// collapseCount is how many of v's traced runs fell below half the true normal count.
func (r *report) collapseCount(v variant) (below, runs int) {
	for _, x := range r.collapseRows(v) {
		below, runs = below+x.below, runs+x.runs
	}
	return below, runs
}

// writeCollapse checks whether the pseudo-normal set collapsed: the smallest set any
// epoch trained on (|D_N^e|, the line's epochs.train_size) against (n − anomalies)/2.
func (r *report) writeCollapse(b *bytes.Buffer, vs []variant) {
	b.WriteString("### Collapse of the pseudo-normal set\n\n")
	b.WriteString("The smallest pseudo-normal set any epoch of any seed trained on, against half the true normal count (n − anomalies)/2, and the runs whose smallest set fell below that bound.\n\n")
	b.WriteString("| data set | variant | runs | smallest train size | bound (n − anomalies)/2 | runs below |\n|---|---|---|---|---|---|\n")
	for _, ds := range r.datasets {
		for _, v := range vs {
			for _, x := range r.collapseRows(v) {
				if x.ds == ds {
					below := fmt.Sprint(x.below)
					if x.below > 0 {
						below = "**" + below + "**"
					}
					fmt.Fprintf(b, "| %s | %s | %d | %d | %g | %s |\n", ds, v, x.runs, x.smallest, x.bound, below)
				}
			}
		}
	}
	var parts []string
	below, runs := 0, 0
	for _, v := range vs {
		k, m := r.collapseCount(v)
		below, runs = below+k, runs+m
		parts = append(parts, fmt.Sprintf("%s %d of %d", v, k, m))
	}
	fmt.Fprintf(b, "\n**%d runs of %d fell below half the true normal count** (%s).\n\n", below, runs, strings.Join(parts, ", "))
}

// spread is the mean over a cell's seeds of the std of the per-epoch selected ratio over
// the last spreadEpochs epochs (all epochs where a run has fewer).
func spread(c *cell) stat {
	var stds []float64
	for _, l := range c.lines {
		if l.Epochs == nil || len(l.Epochs.SelectedRatio) == 0 {
			continue
		}
		sr := floats(l.Epochs.SelectedRatio)
		stds = append(stds, meanStd(sr[max(0, len(sr)-spreadEpochs):]).Std)
	}
	return meanStd(stds)
}

// writeSpread shows how settled each variant's threshold is at the end of training.
func (r *report) writeSpread(b *bytes.Buffer, vs []variant) {
	b.WriteString("### How settled the selected ratio is\n\n")
	fmt.Fprintf(b, "Per run, the std of the per-epoch selected ratio (n − δ̄)/n over the last %d epochs; the mean over seeds. 0 means the threshold no longer moved.\n\n", spreadEpochs)
	b.WriteString("| data set |")
	for _, v := range vs {
		fmt.Fprintf(b, " %s |", v)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(vs)) + "\n")
	perVariant := make([][]float64, len(vs))
	for _, ds := range r.datasets {
		fmt.Fprintf(b, "| %s |", ds)
		for i, v := range vs {
			text := "—"
			if c := r.variantCell(ds, v); c != nil {
				if s := spread(c); s.K > 0 {
					text = fmt.Sprintf("%.4f", s.Mean)
					perVariant[i] = append(perVariant[i], s.Mean)
				}
			}
			fmt.Fprintf(b, " %s |", text)
		}
		b.WriteString("\n")
	}
	var parts []string
	for i, v := range vs {
		if s := meanStd(perVariant[i]); s.K > 0 {
			parts = append(parts, fmt.Sprintf("%.4f for %s (%s)", s.Mean, v, plural(s.K, "data set")))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(b, "\nAveraged over data sets, the std over the last %d epochs is %s.\n", spreadEpochs, strings.Join(parts, ", "))
	}
	b.WriteString("\n")
}

// plural is "1 data set", "2 data sets".
func plural(k int, noun string) string {
	if k == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", k, noun)
}

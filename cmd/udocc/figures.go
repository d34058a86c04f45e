package main

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strings"

	lib "github.com/udocc/udocc/internal/detector"
	"github.com/udocc/udocc/internal/plots"
	"github.com/udocc/udocc/internal/stats"
)

// figures draws the fit's four figures into dir: the Eq. (5) curve of the last epoch,
// the selected ratio over epochs, the score histogram and the losses. With several
// seeds the curve, ratio and loss figures show the first member, and say so in their
// titles. A figure with nothing to show (the curve of a method that searches no δ) is
// not drawn.
//
// Labels write δ̄ as "mean δ*": gonum/plot draws a combining macron (U+0304) as a glyph
// of its own after the δ, or not at all, so "δ̄" would read as δ.
func (f *fitted) figures(dir string) error {
	first, hist := f.members[0], f.m.History()[0]
	member := f.ds.Name
	if len(f.members) > 1 {
		member = fmt.Sprintf("%s, seed %d of %d", f.ds.Name, first.Seed, len(f.members))
	}
	trueRatio := math.NaN()
	if f.summary.TrueRatio != nil {
		trueRatio = *f.summary.TrueRatio
	}
	n := float64(f.ds.N)
	save := func(name string, err error) error {
		if err != nil {
			return fmt.Errorf("figure %s: %w", name, err)
		}
		return nil
	}
	if fig, ok := curveFigure(hist, n, trueRatio, member, f.summary.Config.Threshold); ok {
		if err := save("delta_curve.png", fig.Save(filepath.Join(dir, "delta_curve.png"))); err != nil {
			return err
		}
	}
	if fig, ok := ratioFigure(hist, f.ds.N, trueRatio, member); ok {
		if err := save("selected_ratio.png", fig.Save(filepath.Join(dir, "selected_ratio.png"))); err != nil {
			return err
		}
	}
	if err := save("scores.png", f.histogram().Save(filepath.Join(dir, "scores.png"))); err != nil {
		return err
	}
	return save("loss.png", lossFigure(first.PretrainLoss, hist, member).Save(filepath.Join(dir, "loss.png")))
}

// curveFigure is Eq. (5) at the last epoch that carries a curve, with δ*, δ̄ and the
// true boundary n(1 − true ratio) marked.
func curveFigure(hist []lib.Epoch, n, trueRatio float64, name, rule string) (plots.Figure, bool) {
	for j := len(hist) - 1; j >= 0; j-- {
		rec := hist[j]
		if rec.Curve == nil {
			continue
		}
		var xs, ys []float64
		for d, v := range rec.Curve {
			if !math.IsNaN(v) {
				xs, ys = append(xs, float64(d)), append(ys, v)
			}
		}
		marks := []plots.Mark{
			plots.VMark(fmt.Sprintf("δ* = %d", rec.DeltaStar), float64(rec.DeltaStar), plots.Orange, false),
			plots.VMark(fmt.Sprintf("mean δ* = %.1f", rec.DeltaBar), rec.DeltaBar, plots.Green, false),
		}
		if !math.IsNaN(trueRatio) {
			marks = append(marks, plots.VMark(fmt.Sprintf("true boundary n(1−%.3f)", trueRatio), n*(1-trueRatio), plots.Red, true))
		}
		return plots.Figure{
			Title:  fmt.Sprintf("%s: δ rule %s at epoch %d", name, rule, rec.Epoch),
			XLabel: "rank threshold δ", YLabel: curveLabel(rule),
			Series: []plots.Series{{Name: "scaled crossings", X: xs, Y: ys, Color: plots.Blue}},
			Marks:  marks,
		}, true
	}
	return plots.Figure{}, false
}

// ratioFigure is the selected anomaly ratio (n − δ̄)/n over epochs, with the ratio of
// each epoch's own δ* and the true ratio.
func ratioFigure(hist []lib.Epoch, rows int, trueRatio float64, name string) (plots.Figure, bool) {
	var ep, sel, star []float64
	n := float64(rows)
	for _, h := range hist {
		ep = append(ep, float64(h.Epoch))
		sel = append(sel, h.SelectedRatio)
		s := math.NaN()
		if h.DeltaStar > 0 {
			s = (n - float64(h.DeltaStar)) / n
		}
		star = append(star, s)
	}
	any := false
	for _, v := range sel {
		any = any || !math.IsNaN(v)
	}
	if !any {
		return plots.Figure{}, false
	}
	fig := plots.Figure{
		Title:  name + ": selected anomaly ratio over epochs",
		XLabel: "fine-tuning epoch", YLabel: "anomaly ratio",
		Series: []plots.Series{
			{Name: "selected, (n − mean δ*)/n", X: ep, Y: sel, Color: plots.Blue},
			{Name: "this epoch's δ*, (n − δ*)/n", X: ep, Y: star, Color: plots.Grey},
		},
	}
	if !math.IsNaN(trueRatio) {
		fig.Marks = []plots.Mark{plots.HMark(fmt.Sprintf("true ratio %.3f", trueRatio), trueRatio, plots.Red, true)}
	}
	return fig, true
}

// histogram shows the scores, split by the true label where known, with the threshold:
// log10 of the paper's methods' squared distances, and the ensemble's combined score (a
// robust z, negative for most normal rows) as it is.
func (f *fitted) histogram() plots.Histogram {
	at := func(s float64) float64 { return math.Log10(math.Max(s, 1e-12)) }
	label := "log10 anomaly score"
	ensemble := f.o.Method == ensembleMethod
	if ensemble {
		at = func(s float64) float64 { return s }
		label = "combined anomaly score (robust z of distances and reconstruction errors)"
	}
	// Each group's values are counted first and copied once into a slice of that size;
	// the ensemble's scores of an unlabelled table are shown as they are, not copied
	// (at 10^7 rows a growing copy was the peak of a whole fit).
	logs := func(keep func(i int) bool) []float64 {
		if ensemble && f.ds.Y == nil {
			return f.m.Scores()
		}
		k := 0
		for i := range f.m.Scores() {
			if keep(i) {
				k++
			}
		}
		out := make([]float64, 0, k)
		for i, s := range f.m.Scores() {
			if keep(i) {
				out = append(out, at(s))
			}
		}
		return out
	}
	h := plots.Histogram{Title: f.ds.Name + ": anomaly scores", XLabel: label, Bins: 60, LogCount: true}
	if ensemble && plots.HeavyTailed(f.m.Scores()) {
		h.SymLog, h.XLabel = true, "combined anomaly score (robust z; asinh axis: linear near 0, log beyond)"
	}
	if f.ds.Y != nil {
		h.Groups = []plots.Series{
			{Name: "true normal", Y: logs(func(i int) bool { return f.ds.Y[i] == 0 }), Color: plots.Blue},
			{Name: "true anomaly", Y: logs(func(i int) bool { return f.ds.Y[i] == 1 }), Color: plots.Red},
		}
	} else {
		h.Groups = []plots.Series{{Name: "all rows", Y: logs(func(int) bool { return true }), Color: plots.Blue}}
		if labels := f.m.Labels(); labels != nil {
			// The flagged rows drawn over all rows, in their own colour: a copy of the
			// few flagged ones only.
			var fl []float64
			for i, s := range f.m.Scores() {
				if labels[i] {
					fl = append(fl, at(s))
				}
			}
			h.Groups = append(h.Groups, plots.Series{Name: "flagged", Y: fl, Color: plots.Red})
		}
	}
	if t := f.summary.Threshold; t != nil && (*t > 0 || ensemble) {
		h.Marks = []plots.Mark{plots.VMark(fmt.Sprintf("threshold (%d flagged)", f.summary.Flagged), at(*t), plots.Orange, true)}
		h.Marks = append(h.Marks, intervalCuts(f.m, at)...)
	}
	return h
}

// intervalCuts mark the scores above which the 80 % interval's low and high shares of
// rows lie (the ensemble's default count); none for another rule or a share of half the
// rows or more. Each cut is a selection, O(n), where a sort of every score was a tenth
// of a large table's writing.
func intervalCuts(m *lib.Model, at func(float64) float64) []plots.Mark {
	lo, hi := m.RatioInterval()
	scores := m.Scores()
	n := len(scores)
	if math.IsNaN(lo) {
		return nil
	}
	v := slices.Clone(scores) // reordered by each selection
	var marks []plots.Mark
	for i, share := range []float64{lo, hi} {
		k := int(share*float64(n) + 0.5)
		if k < 1 || k >= n/2 {
			continue
		}
		// The two ends told apart: the fewest rows the interval allows, and the most.
		name, c := "80 %% interval, fewest: top %.1f %%", color.Color(plots.Grey)
		if i == 1 {
			name, c = "80 %% interval, most: top %.1f %%", plots.Purple
		}
		marks = append(marks, plots.VMark(fmt.Sprintf(name, 100*share), at(stats.Kth(v, n-k-1)), c, true))
	}
	return marks
}

// lossFigure shows the pretraining and fine-tuning losses per epoch.
func lossFigure(pretrain []float64, hist []lib.Epoch, name string) plots.Figure {
	var pe, pl, fe, fl []float64
	for i, l := range pretrain {
		pe, pl = append(pe, float64(i+1)), append(pl, l)
	}
	for _, h := range hist {
		fe, fl = append(fe, float64(h.Epoch)), append(fl, h.Loss)
	}
	return plots.Figure{
		Title:  name + ": training loss",
		XLabel: "epoch (of each stage)", YLabel: "mean minibatch loss (log scale)", LogY: true,
		Series: []plots.Series{
			{Name: "pretraining (autoencoder MSE)", X: pe, Y: pl, Color: plots.Purple},
			{Name: "fine-tuning (Deep SVDD)", X: fe, Y: fl, Color: plots.Blue},
		},
	}
}

// curveLabel names the objective a δ rule minimises.
func curveLabel(rule string) string {
	if strings.HasPrefix(rule, "paper") {
		return "Eq. (5): crossings / (δ(n−δ))"
	}
	return "bounded crossings so far / random expectation"
}

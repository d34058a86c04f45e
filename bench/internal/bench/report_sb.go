package bench

import (
	"bytes"
	"fmt"
)

// writeSpheres compares SB's two candidate boundaries per data set: the model's R, which
// labels the rows (the (1−ν) quantile of the final eval-mode distances' roots), and the
// loss's R after the last minibatch of training (Ruff's training loop, train mode),
// applied to the same scores (Line.LossSphere). Data sets whose SB lines lack the loss's
// sphere (results written before it was recorded) are left out.
func (r *report) writeSpheres(b *bytes.Buffer) {
	type row struct {
		ds                    string
		nu                    float64
		model, loss, paper    stat
		flagM, flagL, pL, rcL stat
		hasPaper              bool
	}
	var rows []row
	for _, ds := range r.datasets {
		c := r.cell(ds, "sb")
		if c == nil {
			continue
		}
		complete := true
		for _, l := range c.lines {
			complete = complete && l.LossSphere != nil
		}
		if !complete {
			continue
		}
		frac := func(k int, l *Line) Num { return Num(float64(k) / float64(l.N)) }
		x := row{ds: ds, nu: float64(c.lines[0].TrueRatio), model: c.metric(F1)}
		x.loss = pct(meanStd(c.values(func(l *Line) Num { return l.LossSphere.F1 })))
		x.pL = pct(meanStd(c.values(func(l *Line) Num { return l.LossSphere.Precision })))
		x.rcL = pct(meanStd(c.values(func(l *Line) Num { return l.LossSphere.Recall })))
		x.flagM = meanStd(c.values(func(l *Line) Num { return frac(l.Flagged, l) }))
		x.flagL = meanStd(c.values(func(l *Line) Num { return frac(l.LossSphere.Flagged, l) }))
		if p, _, ok := paperValue(F1, ds, "sb"); ok {
			x.paper, x.hasPaper = stat{Mean: p.Mean, Std: p.Std, K: 1}, true
		}
		rows = append(rows, x)
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("### SB's boundary: which R labels the rows\n\n")
	b.WriteString("SB flags a row when its final eval-mode score is outside the sphere, ‖φ(x)−c‖² > R². " +
		"The labels above use the model's R: the (1−ν) quantile of the roots of those scores (Ruff's get_radius), " +
		"which the saved model keeps. Beside it, the R of the loss after the last training minibatch " +
		"(Ruff's training loop: the quantile of that minibatch's train-mode distances), applied to the same scores " +
		"as Ruff's test scores ‖φ(x)−c‖² − R² do. Flagged is the fraction of rows labelled anomalous; ν is the true ratio.\n\n")
	b.WriteString("| data set | ν | model's R: flagged | F1 | loss's last R: flagged | F1 | precision | recall | paper F1 (III) |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, x := range rows {
		paper := "—"
		if x.hasPaper {
			paper = fmt.Sprintf("%.1f ± %.1f", x.paper.Mean, x.paper.Std)
		}
		fmt.Fprintf(b, "| %s | %.3f | %.3f | %.1f ± %.1f | %.3f | %.1f ± %.1f | %.1f | %.1f | %s |\n",
			x.ds, x.nu, x.flagM.Mean, x.model.Mean, x.model.Std, x.flagL.Mean, x.loss.Mean, x.loss.Std,
			x.pL.Mean, x.rcL.Mean, paper)
	}
	b.WriteString("\n")
}

// pct is s in percent.
func pct(s stat) stat {
	s.Mean, s.Std = 100*s.Mean, 100*s.Std
	return s
}

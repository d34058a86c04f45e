package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// progress shows training progress on stderr: a bar redrawn in place when stderr is a
// terminal, plain lines otherwise, nothing when quiet. The library says where it is
// through a callback (update); only the command draws.
type progress struct {
	w     io.Writer
	tty   bool
	quiet bool
	start time.Time
	// plan is a fit's stages in order with their epochs (setPlan), from which the time
	// left is estimated; nil: none is estimated.
	plan []stagePlan
	// last is when the last plain line was written (every lineEvery at most, beside a
	// stage's first and last epochs).
	last time.Time
}

// lineEvery is how often, at most, plain progress writes a line within a stage.
const lineEvery = 10 * time.Second

// stagePlan is one stage of a fit and its epochs.
type stagePlan struct {
	name   string
	epochs int
}

// setPlan sets a fit's stages from its options: the ensemble's screening fit (its
// autoencoder's epochs, then its fine-tuning's), then pretraining and fine-tuning.
func (p *progress) setPlan(screen, pretrain, finetune int) {
	p.plan = nil
	if screen > 0 {
		p.plan = append(p.plan, stagePlan{"screen-pretrain", screen}, stagePlan{"screen-finetune", finetune})
	}
	p.plan = append(p.plan, stagePlan{"pretrain", pretrain}, stagePlan{"finetune", finetune})
}

// left estimates the time left after epoch e of stage, from the time so far per epoch
// done over the plan's every epoch; 0, false without a plan that names the stage.
func (p *progress) left(stage string, e int, elapsed time.Duration) (time.Duration, bool) {
	done, all, found := 0, 0, false
	for _, s := range p.plan {
		all += s.epochs
		switch {
		case s.name == stage:
			done += e
			found = true
		case !found:
			done += s.epochs
		}
	}
	if !found || done == 0 {
		return 0, false
	}
	return time.Duration(float64(elapsed) * float64(all-done) / float64(done)), true
}

func newProgress(w io.Writer, quiet bool) *progress {
	p := &progress{w: w, quiet: quiet, start: time.Now()}
	if f, ok := w.(*os.File); ok {
		p.tty = term.IsTerminal(int(f.Fd()))
	}
	return p
}

const barWidth = 30

func bar(fraction float64) string {
	k := min(barWidth, int(barWidth*fraction+1e-9)) // 1e-9: 30 × 0.7 is 21 bars, not 20
	return "[" + strings.Repeat("=", k) + strings.Repeat(" ", barWidth-k) + "]"
}

// update shows epoch e of total of a fit's stage ("pretrain" or "finetune"): a bar, or
// plain lines at a stage's first and last epochs and every lineEvery between, so that
// a log holds a few lines a stage, not one an epoch.
func (p *progress) update(stage string, e, total int) {
	if p.quiet {
		return
	}
	el := time.Since(p.start)
	elapsed := round(el)
	times := fmt.Sprint(elapsed)
	if left, ok := p.left(stage, e, el); ok {
		times = fmt.Sprintf("%v elapsed, about %v left", elapsed, round(left))
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%-15s %s %3d/%-3d %s ", stage, bar(float64(e)/float64(total)), e, total, times)
		if e == total {
			fmt.Fprintln(p.w)
		}
		return
	}
	if now := time.Now(); e == 1 || e == total || now.Sub(p.last) >= lineEvery {
		fmt.Fprintf(p.w, "%s epoch %d/%d (%s)\n", stage, e, total, times)
		p.last = now
	}
}

// phase says that a step after training is done (explaining, writing), with what it
// did: a line, on a terminal as elsewhere.
func (p *progress) phase(name, detail string) {
	if p == nil || p.quiet {
		return
	}
	line := fmt.Sprintf("%s: %s (%v)", name, detail, round(time.Since(p.start)))
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s\n", line)
		return
	}
	fmt.Fprintln(p.w, line)
}

func round(d time.Duration) time.Duration {
	if d < time.Minute {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

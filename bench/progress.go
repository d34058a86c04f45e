package bench

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// progress shows the whole grid's progress on one writer (stderr): a bar redrawn in
// place with an estimate of the time left when it is a terminal, a plain line at every
// 5% and every finished group otherwise. Work is counted in row-epochs (see cost), so
// the estimate is the elapsed time scaled by the work left; it is safe for concurrent
// use by the jobs.
type progress struct {
	w     io.Writer // nil: silent
	tty   bool
	mu    sync.Mutex
	start time.Time
	total float64
	done  float64
	runs  int
	fin   int
	step  int // last 5% step printed (plain lines)
	drawn time.Time
}

func newProgress(w io.Writer, total float64, runs int) *progress {
	p := &progress{w: w, start: time.Now(), total: total, runs: runs}
	if f, ok := w.(*os.File); ok {
		p.tty = term.IsTerminal(int(f.Fd()))
	}
	return p
}

// add counts units of work done.
func (p *progress) add(units float64) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += units
	p.show("")
}

// finished counts the runs of a group that ended (written or failed) and names it.
func (p *progress) finished(runs int, what string) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fin += runs
	p.show(what)
}

// close ends the bar's line on a terminal.
func (p *progress) close() {
	if p.w == nil || !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.draw(true)
	fmt.Fprintln(p.w)
}

func (p *progress) show(what string) {
	if p.tty {
		if what != "" {
			fmt.Fprintf(p.w, "\r\033[K%s\n", what)
			p.draw(true)
			return
		}
		p.draw(false)
		return
	}
	step := int(20 * p.fraction())
	if what == "" && step <= p.step {
		return
	}
	p.step = max(p.step, step)
	line := fmt.Sprintf("bench: %3.0f%%, %d/%d runs, %s", 100*p.fraction(), p.fin, p.runs, p.times())
	if what != "" {
		line += ": " + what
	}
	fmt.Fprintln(p.w, line)
}

// draw redraws the terminal bar, at most five times a second unless forced.
func (p *progress) draw(force bool) {
	if !force && time.Since(p.drawn) < 200*time.Millisecond {
		return
	}
	p.drawn = time.Now()
	const width = 30
	k := int(width * p.fraction())
	fmt.Fprintf(p.w, "\r\033[Kbench [%s%s] %3.0f%% %d/%d runs, %s",
		strings.Repeat("=", k), strings.Repeat(" ", width-k), 100*p.fraction(), p.fin, p.runs, p.times())
}

func (p *progress) fraction() float64 {
	if p.total <= 0 {
		return 1
	}
	return min(1, p.done/p.total)
}

// times is the elapsed time and the estimate of the time left.
func (p *progress) times() string {
	el := time.Since(p.start)
	s := fmt.Sprintf("%s elapsed", round(el))
	if f := p.fraction(); f > 0 && f < 1 {
		s += fmt.Sprintf(", about %s left", round(time.Duration(float64(el)*(1-f)/f)))
	}
	return s
}

func round(d time.Duration) time.Duration {
	if d < time.Minute {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

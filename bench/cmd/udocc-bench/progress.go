package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/udocc/udocc/bench/internal/bench"
)

// progress shows a grid's progress on stderr (bench.Options.Progress): a bar with an
// estimate of the time left, redrawn at most five times a second, with each event on a
// line of its own above it, when stderr is a terminal; otherwise a plain line at every
// 5 % and every event; nothing when quiet.
type progress struct {
	w     io.Writer
	tty   bool
	quiet bool
	start time.Time
	step  int       // plain lines: the last 5 % step printed
	drawn time.Time // terminal: when the bar was last drawn
}

func newProgress(w io.Writer, quiet bool) *progress {
	p := &progress{w: w, quiet: quiet, start: time.Now()}
	if f, ok := w.(*os.File); ok {
		p.tty = term.IsTerminal(int(f.Fd()))
	}
	return p
}

// show draws s.
func (p *progress) show(s bench.Progress) {
	if p.quiet {
		return
	}
	times := p.times(s.Done)
	if p.tty {
		if s.Event != "" {
			fmt.Fprintf(p.w, "\r\033[K%s\n", s.Event)
		} else if time.Since(p.drawn) < 200*time.Millisecond && s.Done < 1 {
			return
		}
		p.drawn = time.Now()
		fmt.Fprintf(p.w, "\r\033[Kbench %s %3.0f%% %d/%d runs, %s", bar(s.Done), 100*s.Done, s.Finished, s.Runs, times)
		return
	}
	step := int(20 * s.Done)
	if s.Event == "" && step <= p.step {
		return
	}
	p.step = max(p.step, step)
	line := fmt.Sprintf("bench: %3.0f%%, %d/%d runs, %s", 100*s.Done, s.Finished, s.Runs, times)
	if s.Event != "" {
		line += ": " + s.Event
	}
	fmt.Fprintln(p.w, line)
}

// end ends the bar's line on a terminal.
func (p *progress) end() {
	if p.tty && !p.quiet && !p.drawn.IsZero() {
		fmt.Fprintln(p.w)
	}
}

// times is the elapsed time and, from the share done, an estimate of the time left.
func (p *progress) times(done float64) string {
	el := time.Since(p.start)
	s := fmt.Sprintf("%s elapsed", round(el))
	if done > 0 && done < 1 {
		s += fmt.Sprintf(", about %s left", round(time.Duration(float64(el)*(1-done)/done)))
	}
	return s
}

const barWidth = 30

func bar(fraction float64) string {
	k := min(barWidth, int(barWidth*fraction+1e-9)) // 1e-9: 30 × 0.7 is 21 bars, not 20
	return "[" + strings.Repeat("=", k) + strings.Repeat(" ", barWidth-k) + "]"
}

func round(d time.Duration) time.Duration {
	if d < time.Minute {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

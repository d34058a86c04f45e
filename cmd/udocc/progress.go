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
// terminal, a plain line every tenth of a stage otherwise, nothing when quiet.
type progress struct {
	w     io.Writer
	tty   bool
	quiet bool
	start time.Time
}

func newProgress(w io.Writer, quiet bool) *progress {
	p := &progress{w: w, quiet: quiet, start: time.Now()}
	if f, ok := w.(*os.File); ok {
		p.tty = term.IsTerminal(int(f.Fd()))
	}
	return p
}

func (p *progress) update(stage string, e, total int) {
	if p.quiet {
		return
	}
	elapsed := time.Since(p.start).Round(100 * time.Millisecond)
	if p.tty {
		const width = 30
		done := width * e / total
		fmt.Fprintf(p.w, "\r%-9s [%s%s] %3d/%-3d %v ", stage, strings.Repeat("=", done), strings.Repeat(" ", width-done), e, total, elapsed)
		if e == total {
			fmt.Fprintln(p.w)
		}
		return
	}
	step := max(1, total/10)
	if e%step == 0 || e == total {
		fmt.Fprintf(p.w, "%s epoch %d/%d (%v)\n", stage, e, total, elapsed)
	}
}

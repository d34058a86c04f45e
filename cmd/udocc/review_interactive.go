package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
)

// interactive asks the review's rows in the terminal, one at a time with its
// explanation: a (anomaly), n (normal), s (skip: left waiting in the file), q (quit).
// Every answer is saved at once, so the review can be stopped (q, end of input, Ctrl-C)
// and resumed by running it again; rows asked before and not answered come first, and
// when none is left the next round is asked.
func (s *reviewSession) interactive(ctx context.Context, in io.Reader, w io.Writer) error {
	// The answers are read on a goroutine of their own, so that Ctrl-C (ctx) ends the
	// session while it waits for one.
	lines, stop := make(chan string), make(chan struct{})
	defer close(stop)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			case <-stop:
				return
			}
		}
	}()
	fmt.Fprintf(w, "udocc review: %s (%d rows), answers saved in %s as you give them\n", s.data, s.ds.N, s.lf.path)
	fmt.Fprintf(w, "  a: anomaly  n: normal  s: skip  q: quit\n")
	s.printEstimate(ctx, w)
	skipped := map[int]bool{}
loop:
	for ctx.Err() == nil {
		l := s.nextPending(skipped)
		if l == nil {
			added, err := s.ask(ctx)
			if err != nil {
				return err
			}
			if len(added) == 0 {
				fmt.Fprintf(w, "no rows left to ask\n")
				break
			}
			fmt.Fprintf(w, "round %d: %d rows\n", added[0].round, len(added))
			continue
		}
		fmt.Fprint(w, s.describe(l))
		fmt.Fprint(w, "anomaly? [a/n/s/q] ")
		var text string
		var ok bool
		select {
		case text, ok = <-lines:
		case <-ctx.Done():
		}
		if !ok {
			fmt.Fprintln(w)
			break
		}
		switch strings.ToLower(strings.TrimSpace(text)) {
		case "a", "1", "y", "yes":
			if err := s.answer(ctx, l.row, 1); err != nil {
				return err
			}
			s.printEstimate(ctx, w)
		case "n", "0", "no":
			if err := s.answer(ctx, l.row, 0); err != nil {
				return err
			}
			s.printEstimate(ctx, w)
		case "s", "":
			skipped[l.row] = true
		case "q":
			break loop
		default:
			fmt.Fprintf(w, "  answer a (anomaly), n (normal), s (skip) or q (quit)\n")
		}
	}
	answers, anomalies, pending := s.lf.counts()
	fmt.Fprintf(w, "udocc review: %d answers (%d anomalies) in %s, %d rows waiting; run it again to go on, or udocc cut --model %s --labels %s --out DIR\n",
		answers, anomalies, s.lf.path, pending, s.f.model, s.lf.path)
	return nil
}

// nextPending is the first line asked and not answered nor skipped, in the file's order.
func (s *reviewSession) nextPending(skipped map[int]bool) *labelLine {
	for _, l := range s.lf.lines {
		if !l.answered() && !l.userPick() && !skipped[l.row] {
			return l
		}
	}
	return nil
}

// describe is a line's row as the terminal shows it: where it ranks, what raises its
// score, and its values.
func (s *reviewSession) describe(l *labelLine) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nrow %d", l.row)
	if s.ds.IDs != nil {
		fmt.Fprintf(&b, " (%s %s)", s.idColumn(), l.cells[s.idColumn()])
	}
	fmt.Fprintf(&b, ": rank %d of %d, score %.6g, round %d\n", l.rank, l.n, l.score, l.round)
	if why := s.raisedBy(l); why != "" {
		fmt.Fprintf(&b, "  raised by: %s\n", why)
	}
	var vals []string
	for j := range s.ds.D {
		name := featureName(s.ds.Features, j)
		vals = append(vals, name+"="+l.cells[name])
	}
	if len(vals) > 24 {
		vals = append(vals[:24], fmt.Sprintf("… (%d more in the file)", len(vals)-24))
	}
	fmt.Fprintf(&b, "  values: %s\n", strings.Join(vals, " "))
	return b.String()
}

// raisedBy lists a line's top raising features with their shares as percentages.
func (s *reviewSession) raisedBy(l *labelLine) string {
	var parts []string
	for q := 1; q <= s.explain; q++ {
		name, share := l.cells[fmt.Sprintf("feature_%d", q)], l.cells[fmt.Sprintf("share_%d", q)]
		if name == "" {
			continue
		}
		var v float64
		fmt.Sscan(share, &v)
		parts = append(parts, fmt.Sprintf("%s %.0f %%", name, 100*v))
	}
	return strings.Join(parts, ", ")
}

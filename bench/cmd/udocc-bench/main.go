// Command udocc-bench is the laboratory beside the product: the paper's benchmark grid
// (Tables II-IV, Figs. 3-4, bench/notes/reproduction.md), the studies that chose udocc fit's
// defaults (bench/notes/threshold.md), and the download of the ten ODDS tables.
//
//	udocc-bench [flags]                 the paper's grid and its report (--study: the studies)
//	udocc-bench datasets list|fetch     the ten ODDS benchmark files
//
// It is built by build.sh as bin/udocc-bench. Exit status: 0 on success, 2 for a usage
// error, 1 for any other error; each error is one line on stderr. Ctrl-C (SIGINT) or
// SIGTERM stops a grid at the end of its runs' current epoch; the runs already written
// to results.jsonl stay, and a rerun resumes from them.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/pflag"

	lib "github.com/udocc/udocc/internal/detector"
	"github.com/udocc/udocc/internal/torch"
)

// Version is the version of udocc the bench measures.
const Version = lib.Version

func main() {
	torch.Preload()
	torch.KeepFreedPages()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // the next signal kills
	}()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command line and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	name, runCmd := "udocc-bench", runBench
	if len(args) > 0 && args[0] == "datasets" {
		name, runCmd, args = "udocc-bench datasets", runDatasets, args[1:]
	}
	err := runCmd(ctx, args, stdout, stderr)
	var ue usageError
	switch {
	case err == nil, errors.Is(err, pflag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "%s: %s (see '%s -h')\n", name, oneLine(err), name)
		return 2
	default:
		fmt.Fprintf(stderr, "%s: %s\n", name, oneLine(err))
		return 1
	}
}

// usageError marks errors that are the caller's: they exit with status 2.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// newFlags makes a flag set whose -h prints the defaults to stdout.
func newFlags(name, args, summary string, stdout io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SortFlags = false
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(stdout, "%s %s\n\n%s\n\nFlags:\n", name, args, summary)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// parse parses args, turning flag errors into usage errors; -h returns pflag.ErrHelp.
func parse(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	return nil
}

// oneLine is err's message on one line: libtorch's messages may span several.
func oneLine(err error) string {
	var parts []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "; ")
}

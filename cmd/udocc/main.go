// Command udocc finds anomalies in a table without labels: it trains Deep SVDD one-class
// networks through libtorch (by default an ensemble of five), scores every row, and
// chooses how many rows to flag.
//
//	udocc fit [flags] DATA                train, score and label DATA (.csv, .parquet, .mat, .npy, .npz)
//	udocc score --model DIR DATA          apply a saved model to new rows
//	udocc explain --model DIR DATA        say which features drive rows' scores
//	udocc review --model DIR --labels FILE DATA
//	                                      pick rows to label; count anomalies from the answers
//	udocc cut --model DIR --out DIR2      write a model with a new threshold, without training
//	                                      (--labels FILE: the answers' count and threshold)
//	udocc serve --model DIR               serve a saved model over HTTP
//	udocc demo                            the whole job on a built-in synthetic table
//	udocc version                         versions of udocc and libtorch
//
// The paper's benchmark and the studies are another command, udocc-bench
// (bench/cmd/udocc-bench).
//
// Exit status: 0 on success, 2 for a usage error, 1 for any other error; each error is
// one line on stderr. Ctrl-C (SIGINT) or SIGTERM stops a command at the end of the
// epoch it is in: fit and score then leave --out as it was and exit 1; a second signal
// kills at once (the outputs are one transaction, so that too leaves --out whole).
package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	lib "github.com/udocc/udocc/internal/detector"
	"github.com/udocc/udocc/internal/torch"
)

// Version is udocc's version, the library's.
const Version = lib.Version

// usageError marks errors that are the caller's: they exit with status 2.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// command is one subcommand.
type command struct {
	name, args, summary string
	run                 func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"fit", "[flags] DATA", "train, score and label a table", runFit},
		{"score", "--model DIR [flags] DATA", "apply a saved model to new rows", runScore},
		{"explain", "--model DIR [flags] DATA", "say which features drive rows' scores", runExplain},
		{"review", "--model DIR --labels L DATA", "pick rows to label; count the anomalies from the answers", runReview},
		{"cut", "--model DIR --out DIR2 [flags]", "write a model with a new threshold (a share, a count, or answers), without training", runCut},
		{"serve", "--model DIR [flags]", "serve a saved model over HTTP (docs/serve.md)", runServe},
		{"demo", "[flags]", "fit a built-in synthetic table and compare with the truth", runDemo},
		{"version", "", "print the versions of udocc and libtorch", runVersion},
	}
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "udocc %s: unsupervised anomaly detection with Deep SVDD and an adaptive threshold\n\nUsage:\n", Version)
	for _, c := range commands() {
		fmt.Fprintf(w, "  udocc %-9s %-30s %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'udocc help COMMAND' (or 'udocc COMMAND -h') for a command's flags and their defaults.")
}

func main() {
	// libtorch loads beside the command (bench/notes/cost.md): its constructors run while the
	// flags are parsed and the table is read.
	torch.Preload()
	// A program owns its process: it keeps the pages its fits free (the library never
	// sets malloc by itself; see torch.KeepFreedPages).
	torch.KeepFreedPages()
	if t0, ok := processStart(time.Now()); ok {
		processT0 = t0
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // the next signal kills, as if udocc did not catch them
	}()
	os.Exit(runContext(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command line and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdout, stderr)
}

// runContext executes one command line, stopping when ctx is cancelled, and returns
// the exit status.
func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "--help":
		usage(stdout)
		return 0
	case "help": // udocc help COMMAND is udocc COMMAND -h
		if len(args) == 1 {
			usage(stdout)
			return 0
		}
		args = []string{args[1], "-h"}
	case "--version", "-version":
		args = []string{"version"}
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, args[1:], stdout, stderr)
		var ue usageError
		switch {
		case err == nil:
			return 0
		case errors.Is(err, pflag.ErrHelp):
			return 0
		case errors.As(err, &ue):
			fmt.Fprintf(stderr, "udocc %s: %s (see 'udocc %s -h')\n", c.name, withFlags(oneLine(err), err), c.name)
			return 2
		default:
			fmt.Fprintf(stderr, "udocc %s: %s\n", c.name, withFlags(oneLine(err), err))
			return 1
		}
	}
	fmt.Fprintf(stderr, "udocc: unknown command %q (see 'udocc -h')\n", args[0])
	return 2
}

// newFlags makes a subcommand's flag set whose -h prints the defaults to stdout.
func newFlags(name, args, summary string, stdout io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SortFlags = false
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(stdout, "udocc %s %s\n\n%s\n\nFlags:\n", name, args, summary)
		if !printGroups(fs, stdout) {
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			fs.SetOutput(io.Discard)
		}
	}
	return fs
}

// groupKey is the annotation that puts a flag in a group of the help (groupFlags).
const groupKey = "udocc_group"

// groupFlags puts each named flag of fs in its group of the help, in the order groups
// lists them: the help then prints the groups one after the other, a flag in none last.
func groupFlags(fs *pflag.FlagSet, groups []flagGroup) {
	for _, g := range groups {
		for _, name := range g.flags {
			if fs.Lookup(name) != nil {
				fs.SetAnnotation(name, groupKey, []string{g.name})
			}
		}
	}
}

// flagGroup is a heading of the help and its flags.
type flagGroup struct {
	name  string
	flags []string
}

// printGroups prints fs's flags group by group (groupFlags), in the order the groups
// were first given; false where no flag has a group.
func printGroups(fs *pflag.FlagSet, w io.Writer) bool {
	var order []string
	byGroup := map[string]*pflag.FlagSet{}
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Deprecated != "" {
			return
		}
		g := "Other"
		if a := f.Annotations[groupKey]; len(a) > 0 {
			g = a[0]
		}
		sub, ok := byGroup[g]
		if !ok {
			sub = pflag.NewFlagSet(g, pflag.ContinueOnError)
			sub.SortFlags = false
			byGroup[g] = sub
			order = append(order, g)
		}
		sub.AddFlag(f)
	})
	if len(order) == 0 || len(order) == 1 && order[0] == "Other" {
		return false
	}
	slices.SortStableFunc(order, func(a, b string) int {
		return cmp.Compare(groupRank(a), groupRank(b))
	})
	for i, g := range order {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s:\n%s", g, byGroup[g].FlagUsages())
	}
	return true
}

// groupRank orders the help's groups: as groupOrder lists them, any other after.
func groupRank(g string) int {
	if i := slices.Index(groupOrder, g); i >= 0 {
		return i
	}
	return len(groupOrder)
}

// groupOrder is the order of the help's groups.
var groupOrder = []string{"Input and columns", "Count and threshold", "Output", "Synthetic table", "Training (advanced)"}

// fitGroups are the groups of fit's flags (and demo's, which share them).
var fitGroups = []flagGroup{
	{"Input and columns", []string{"label", "positive", "id", "columns", "drop", "drop-text", "missing", "header", "format", "delimiter", "decimal", "x-var"}},
	{"Count and threshold", []string{"contamination", "threshold", "labels"}},
	{"Output", []string{"out", "force", "json", "quiet", "explain", "explain-rows", "scores-to", "append-to", "digits", "member-scores"}},
	{"Training (advanced)", []string{"preset", "method", "members", "arch", "pretrain-epochs", "screen-epochs", "trim", "train-rows",
		"components", "gaussian", "epochs", "batch-size", "lr", "pretrain-lr", "weight-decay", "ratio", "ties", "rank-scores",
		"seed", "seeds", "device", "threads", "nproc", "dist-timeout"}},
}

// noteDeprecated says on w, for each deprecated flag of fs that args set, its new name
// (pflag.MarkDeprecated hides it from the help; its own note goes to fs's output, which
// is discarded).
func noteDeprecated(fs *pflag.FlagSet, w io.Writer) {
	fs.Visit(func(f *pflag.Flag) {
		if f.Deprecated != "" {
			fmt.Fprintf(w, "udocc %s: --%s is deprecated: %s\n", fs.Name(), f.Name, f.Deprecated)
		}
	})
}

// parse parses args, turning flag errors into usage errors. On -h pflag has already
// called fs.Usage, so ErrHelp is returned as it is.
func parse(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	return nil
}

// oneLine is err's message on one line: libtorch's messages may span several, and the
// command promises one line on stderr per error.
func oneLine(err error) string {
	var parts []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "; ")
}

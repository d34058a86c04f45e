package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/udocc/udocc/internal/odds"
)

func runDatasets(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("udocc-bench datasets", "list|fetch [flags] [NAME...]",
		"List the ten ODDS data sets of the paper's Table I, or download them with SHA-256 verification\n"+
			"(resumable; files placed in the folder by hand are verified and kept).", stdout)
	dir := fs.String("data", defaultDataDir(), "folder of the .mat files (as udocc-bench --data)")
	fs.StringVar(dir, "dir", defaultDataDir(), "the same as --data")
	fs.MarkDeprecated("dir", "use --data")
	base := fs.String("base-url", "", "fetch every file from BASE-URL/<name>.mat instead of the ODDS links (a mirror)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usagef("want list or fetch")
	}
	names := fs.Args()[1:]
	for _, n := range names {
		if _, ok := odds.Lookup(n); !ok {
			return usagef("unknown data set %q (see 'udocc-bench datasets list')", n)
		}
	}
	switch fs.Arg(0) {
	case "list":
		fmt.Fprintf(stdout, "%-11s %6s %4s %9s %7s  %s\n", "name", "n", "d", "anomalies", "ratio", "in "+*dir)
		for _, s := range odds.Sets() {
			state := "missing"
			if _, err := os.Stat(filepath.Join(*dir, s.File)); err == nil {
				state = "present (run fetch to verify)"
			}
			fmt.Fprintf(stdout, "%-11s %6d %4d %9d %7.4f  %s\n", s.Name, s.N, s.D, s.Anomalies, float64(s.Anomalies)/float64(s.N), state)
		}
		return nil
	case "fetch":
		res, err := odds.Fetch(ctx, odds.FetchOptions{Dir: *dir, BaseURL: *base, Names: names, Progress: stderr})
		for _, r := range res {
			how := "verified"
			if r.Downloaded {
				how = "downloaded and verified"
			}
			fmt.Fprintf(stdout, "%s: %s\n", r.Path, how)
		}
		return err
	}
	return usagef("unknown datasets command %q: want list or fetch", fs.Arg(0))
}

// defaultDataDir is $UDOCC_DATA, the shared ODDS folder beside the checkout, or ./odds.
func defaultDataDir() string {
	if d := odds.FindDir(); d != "" {
		return d
	}
	return "odds"
}

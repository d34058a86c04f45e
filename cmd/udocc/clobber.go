package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/udocc/udocc/data"
)

// checkClobber refuses, before anything is read, trained or written, outputs that would
// destroy the user's data:
//   - --scores-to or --append-to naming an input (DATA, or a file of --model), as the
//     same file (os.SameFile: the same path, a hard link or a symbolic link to it), even
//     with --force;
//   - an --out folder that holds DATA, --model, or the --scores-to or --append-to file,
//     which the run's outputs replace whole;
//   - --scores-to or --append-to over an existing file that udocc did not write, unless
//     --force. udocc recognises its own tables by their columns score, rank and label
//     side by side where it writes them (data.HasScoreColumns: after row in scores.csv's
//     header, last in what --append-to writes, CSV or Parquet).
//
// data is DATA ("-": stdin, which no output can be); model is --model, or "" for fit.
func checkClobber(dataPath, model string, o outputFlags, t tableFlags) error {
	var inputs []string
	if dataPath != "-" {
		inputs = append(inputs, dataPath)
	}
	if model != "" {
		// The folder's entries by name, never filepath.Glob: a --model path holding
		// [, * or ? is literal, and a pattern would match other files, or none.
		entries, _ := os.ReadDir(model)
		for _, e := range entries {
			inputs = append(inputs, filepath.Join(model, e.Name()))
		}
	}
	for _, out := range []struct{ flag, path string }{{"--scores-to", t.scoresTo}, {"--append-to", t.appendTo}} {
		if out.path == "" || out.path == "-" {
			continue
		}
		st, err := os.Stat(out.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("%s %s: %w", out.flag, out.path, err)
		}
		for _, in := range inputs {
			if is, err := os.Stat(in); err == nil && os.SameFile(st, is) {
				return usagef("%s %s is the input %s: writing it would destroy it; name another file", out.flag, out.path, in)
			}
		}
		if st.IsDir() {
			return usagef("%s %s is a folder; name a file", out.flag, out.path)
		}
		ours, err := data.HasScoreColumns(out.path)
		if err != nil {
			return fmt.Errorf("%s %s: %w", out.flag, out.path, err)
		}
		if !ours && !o.force {
			return usagef("%s %s exists and is not a table udocc wrote (no columns %s side by side); name another file, or give --force to replace it",
				out.flag, out.path, strings.Join(data.ScoreColumns(), ", "))
		}
	}
	if o.out != "" {
		if err := checkOutHolds(o.out, dataPath, model, t); err != nil {
			return err
		}
	}
	return nil
}

// checkOutHolds refuses an --out folder that holds DATA, is (or holds) --model, or
// would hold the --scores-to or --append-to file, which the run's swap would replace.
func checkOutHolds(out, dataPath, model string, t tableFlags) error {
	outReal := resolved(out)
	for _, in := range []struct{ what, path string }{{"DATA", dataPath}, {"--model", model}, {"--scores-to", t.scoresTo}, {"--append-to", t.appendTo}} {
		if in.path == "" || in.path == "-" {
			continue
		}
		if rel, err := filepath.Rel(outReal, resolved(in.path)); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return usagef("--out %s holds %s %s, which the run's outputs replace; name another --out", out, in.what, in.path)
		}
	}
	return nil
}

// resolved is path absolute, with the symbolic links of its longest existing part
// resolved (a file not yet written, or a folder not yet made, keeps its last names).
func resolved(path string) string {
	p, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	var rest []string
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(append([]string{p}, rest...)...)
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}

// Command pythresh puts PyThresh's rules beside udocc's count on the same scores: it
// writes every original table's default fit of a corpus study (`udocc-bench --study
// --real --out DIR`) as a scores.csv folder, runs ../shared/peers/pythresh_rules.py on
// them, and leaves the rules' JSON lines for table.py, which ranks every rule beside the
// learned count held out by source group (DIR/count-heldout.jsonl).
//
//	go run ./bench/pythresh -study /work/study2 -out /tmp/pt      # writes /tmp/pt/rules.jsonl
//	python3 bench/pythresh/table.py /work/study2 /tmp/pt/rules.jsonl > bench/study-real/pythresh.md
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/udocc/udocc/bench/internal/bench"
)

func main() {
	study := flag.String("study", "", "folder of a corpus study (real.jsonl, raw/)")
	out := flag.String("out", "", "folder for the scores and rules.jsonl")
	seed := flag.Uint64("seed", 0, "the fits' seed")
	maxScores := flag.Int("max-scores", 5000, "fits of more rows keep this many evenly spaced scores")
	rules := flag.String("rules", "../shared/peers/pythresh_rules.py", "PyThresh's runner")
	flag.Parse()
	if *study == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "pythresh: -study and -out are required")
		os.Exit(2)
	}
	if err := run(*study, *out, *rules, *seed, *maxScores); err != nil {
		fmt.Fprintln(os.Stderr, "pythresh:", err)
		os.Exit(1)
	}
}

func run(study, out, rules string, seed uint64, maxScores int) error {
	dirs, err := bench.ExportRealScores(study, filepath.Join(out, "scores"), seed, maxScores)
	if err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(out, "rules.jsonl"))
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.Command("/usr/bin/python3", append([]string{rules}, dirs...)...)
	cmd.Stdout, cmd.Stderr = f, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", rules, err)
	}
	return f.Sync()
}

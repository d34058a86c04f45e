package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestThreadsBitIdentical fits one table with the default ensemble (five members, a
// screening fit and the final one) and with the paper's method at --threads 1, 2 and 3
// (three: members split unevenly over the threads): scores.csv, model.json and every
// saved network must be the same bytes.
func TestThreadsBitIdentical(t *testing.T) {
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 1500, 5, false, 33)
	for _, preset := range [][]string{nil, {"--preset", "paper"}} {
		var first string
		for _, threads := range []string{"1", "2", "3"} {
			out := filepath.Join(dir, "out"+threads+string(rune('a'+len(preset))))
			args := []string{"fit", "--pretrain-epochs", "3", "--epochs", "4", "--quiet", "--threads", threads, "--out", out}
			if preset == nil {
				args = append(args, "--screen-epochs", "3")
			}
			args = append(append(args, preset...), "table.csv")
			mustUdocc(t, dir, args...)
			if first == "" {
				first = out
				continue
			}
			files, err := filepath.Glob(filepath.Join(first, "model", "*"))
			if err != nil || len(files) < 2 {
				t.Fatalf("%v: saved files %v (%v)", preset, files, err)
			}
			for _, f := range append(files, filepath.Join(first, "scores.csv")) {
				rel, _ := filepath.Rel(first, f)
				a, errA := os.ReadFile(f)
				b, errB := os.ReadFile(filepath.Join(out, rel))
				if errA != nil || errB != nil {
					t.Fatalf("%v: %s: %v, %v", preset, rel, errA, errB)
				}
				if !bytes.Equal(a, b) {
					t.Errorf("%v: %s differs between --threads 1 and --threads %s", preset, rel, threads)
				}
			}
		}
	}
}

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/udocc/udocc/internal/disttrace"
	"github.com/udocc/udocc/internal/method"
)

// TestFitNprocCollectives is the library's TestCollectiveSequence through the binary:
// `udocc fit --nproc W` (W = 2 and 3) with every method, on a table with a label column
// (rank 0 alone then keeps the per-epoch history) and without, with --quiet and without
// (rank 0 alone reports progress). Every rank writes the collectives it enters
// (UDOCC_DIST_TRACE) and the traces must be the same lines; the run must succeed, where a
// rank that ran another collective would leave its peers to time out.
func TestFitNprocCollectives(t *testing.T) {
	needGloo(t)
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "plain.csv"), 90, 3, false, 21)
	writeTable(t, filepath.Join(dir, "labelled.csv"), 90, 3, true, 21)
	methods := append([]string{method.Ensemble.Name}, method.Methods...)
	for _, world := range []int{2, 3} {
		for _, name := range methods {
			for _, labelled := range []bool{false, true} {
				for _, quiet := range []bool{false, true} {
					t.Run(fmt.Sprintf("W=%d/%s/labelled=%v/quiet=%v", world, name, labelled, quiet), func(t *testing.T) {
						args := []string{"fit", "--nproc", fmt.Sprint(world), "--dist-timeout", "30s",
							"--pretrain-epochs", "2", "--epochs", "4", "--method", name}
						if name == method.Ensemble.Name {
							args = append(args, "--screen-epochs", "2", "--members", "2")
						}
						if m, _ := method.MethodNamed(name); m.Ratio {
							args = append(args, "--ratio", "0.1")
						}
						if quiet {
							args = append(args, "--quiet")
						}
						table := "plain.csv"
						if labelled {
							table = "labelled.csv"
							args = append(args, "--label", "y")
						}
						out := filepath.Join(dir, "out-"+fmt.Sprint(world)+name+fmt.Sprint(labelled, quiet))
						prefix := out + ".trace"
						args = append(args, "--out", out, table)
						cmd := exec.Command(udoccBin, args...)
						cmd.Dir = dir
						cmd.Env = append(os.Environ(), "UDOCC_DIST_TRACE="+prefix)
						var stderr bytes.Buffer
						cmd.Stderr = &stderr
						if err := cmd.Run(); err != nil {
							t.Errorf("udocc %v: %v\n%s", args, err, stderr.String())
						}
						if _, _, err := disttrace.Compare(prefix, world); err != nil {
							t.Fatal(err)
						}
					})
				}
			}
		}
	}
}

package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestInterrupt sends SIGINT (Ctrl-C) to fits that are training, once when progress
// says pretraining runs and once when it says fine-tuning runs, into an --out that is
// absent and into one that holds a good result. Each fit stops at the end of its
// epoch (the first progress line comes a tenth into the stage, so nine tenths are
// left when the signal is sent), exits 1 with one line saying it was
// interrupted, leaves --out as it was (absent, or the previous result byte for byte)
// and leaves nothing else behind: nothing beside --out, nothing in its TMPDIR.
func TestInterrupt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 60, 3, false, 61)
	prev := filepath.Join(dir, "prev")
	mustUdocc(t, dir, fitArgs("--out", prev, "table.csv")...)
	cases := []struct {
		name  string
		stage string // the progress line after which SIGINT is sent
		args  []string
		out   string // prev, or a folder that does not exist
	}{
		{"pretraining, no --out yet", "pretrain epoch", []string{"--pretrain-epochs", "5000", "--epochs", "2"}, filepath.Join(dir, "absent")},
		{"fine-tuning, a previous result in --out", "finetune epoch", []string{"--pretrain-epochs", "1", "--epochs", "5000"}, prev},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := snapshot(t, prev)
			tmp := t.TempDir()
			args := append(append([]string{"fit"}, c.args...), "--seed", "3", "--out", c.out, "table.csv")
			cmd := exec.Command(udoccBin, args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			var stdout bytes.Buffer
			cmd.Stdout = &stdout
			pipe, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Progress lines come on stderr (not a terminal): SIGINT once the stage runs.
			var stderr strings.Builder
			lines := bufio.NewScanner(pipe)
			for lines.Scan() {
				stderr.WriteString(lines.Text() + "\n")
				if strings.HasPrefix(lines.Text(), c.stage) {
					break
				}
			}
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			rest, _ := io.ReadAll(pipe)
			stderr.Write(rest)
			cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != 1 {
				t.Errorf("exit %d, want 1; stderr %q", code, stderr.String())
			}
			if !strings.Contains(stderr.String(), "udocc fit: interrupted") || !strings.HasSuffix(stderr.String(), "is as it was\n") {
				t.Errorf("stderr %q, want progress and then one line saying the fit was interrupted", stderr.String())
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout %q, want nothing", stdout.String())
			}
			if c.out != prev {
				if _, err := os.Stat(c.out); !os.IsNotExist(err) {
					t.Errorf("an interrupted fit made %s (%v)", c.out, err)
				}
			}
			if !same(before, snapshot(t, prev)) {
				t.Errorf("an interrupted fit changed %s", prev)
			}
			for _, d := range []string{dir, tmp} {
				es, _ := os.ReadDir(d)
				for _, e := range es {
					if n := e.Name(); d == tmp || (n != "table.csv" && n != "prev") {
						t.Errorf("left behind in %s: %s", d, n)
					}
				}
			}
		})
	}
}

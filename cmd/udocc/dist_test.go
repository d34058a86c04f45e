package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/udocc/udocc/internal/torch"
)

// TestFitNproc fits a table with --nproc 2 (two local ranks, each holding half of the
// rows): rank 0 writes every output once, the summary says 2 ranks, and the saved model
// loads in one process and gives the run's scores through udocc score.
func TestFitNproc(t *testing.T) {
	needGloo(t)
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 300, 4, false, 5)
	r := mustUdocc(t, dir, fitArgs("--nproc", "2", "--out", "out", "table.csv")...)
	if strings.Count(r.stdout, "udocc fit: table") != 1 {
		t.Errorf("stdout has %d reports, want rank 0's only:\n%s", strings.Count(r.stdout, "udocc fit: table"), r.stdout)
	}
	if s := readSummary(t, filepath.Join(dir, "out", "summary.json")); s["config"].(map[string]any)["ranks"] != 2.0 {
		t.Errorf("summary.json config.ranks = %v, want 2", s["config"].(map[string]any)["ranks"])
	}
	mustUdocc(t, dir, "score", "--model", filepath.Join("out", "model"), "--out", "scored", "table.csv")
	fit := readCSV(t, filepath.Join(dir, "out", "scores.csv"))
	sameScores(t, fit, readCSV(t, filepath.Join(dir, "scored", "scores.csv")), fit.header...)
}

// TestFitRankDies starts two ranks the torchrun way (the variables set by hand) and, in
// the middle of pretraining, kills rank 1 (its sockets close: rank 0 must fail at once,
// long before the 10-minute --dist-timeout) or stops it (SIGSTOP, a hung rank: rank 0
// must fail when the 5-second --dist-timeout runs out). Rank 0 must exit 1 with an error
// line that says which exchange failed, and leave no --out and nothing beside it.
func TestFitRankDies(t *testing.T) {
	needGloo(t)
	for _, c := range []struct {
		name    string
		sig     syscall.Signal
		timeout string
	}{{"killed", syscall.SIGKILL, "10m"}, {"hung", syscall.SIGSTOP, "5s"}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTable(t, filepath.Join(dir, "table.csv"), 300, 4, false, 6)
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			port := l.Addr().(*net.TCPAddr).Port
			l.Close()
			var cmds []*exec.Cmd
			var errs []*syncBuffer
			for r := 0; r < 2; r++ {
				cmd := exec.Command(udoccBin, "fit", "--pretrain-epochs", "2000", "--epochs", "2", "--dist-timeout", c.timeout, "--out", "out", "table.csv")
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "MASTER_ADDR=127.0.0.1", fmt.Sprintf("MASTER_PORT=%d", port),
					fmt.Sprintf("RANK=%d", r), "WORLD_SIZE=2")
				e := &syncBuffer{}
				cmd.Stderr = e
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				defer func() {
					if cmd.ProcessState == nil {
						_ = cmd.Process.Kill()
						_ = cmd.Wait()
					}
				}()
				cmds, errs = append(cmds, cmd), append(errs, e)
			}
			deadline := time.Now().Add(2 * time.Minute)
			// Pretraining's first epoch is done (its line is written), 1,999 to go.
			for !strings.Contains(errs[0].String(), "pretrain epoch 1/2000") {
				if time.Now().After(deadline) {
					t.Fatalf("rank 0 never began pretraining:\n%s", errs[0].String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			if err := cmds[1].Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			err = cmds[0].Wait()
			took := time.Since(start)
			if err == nil || cmds[0].ProcessState.ExitCode() != 1 {
				t.Fatalf("rank 0 after rank 1 was %s: %v, want exit status 1", c.name, err)
			}
			msg := errs[0].String()
			last := msg[strings.LastIndex(strings.TrimRight(msg, "\n"), "\n")+1:]
			if !strings.Contains(last, "failed") || !strings.Contains(last, "rank 0 of 2") {
				t.Errorf("rank 0's last line does not say what failed: %q", last)
			}
			// A liveness bound, not a speed check: rank 0 must not wait past its timeout
			// (a stopped peer would otherwise hold it for ever).
			if limit, _ := time.ParseDuration(c.timeout); took > limit+time.Minute {
				t.Errorf("rank 0 took %v to fail, past the %v timeout", took, limit)
			}
			es, _ := os.ReadDir(dir)
			for _, e := range es {
				if e.Name() != "table.csv" {
					t.Errorf("left in the folder after the failed run: %s", e.Name())
				}
			}
			t.Logf("rank 0 failed %v after rank 1 was %s: %s", took.Round(time.Millisecond), c.name, strings.TrimSpace(last))
		})
	}
}

// syncBuffer is a bytes.Buffer that a process writes while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex // its zero value works: a lazily made channel was itself a race
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// needGloo skips t where the shim has no Gloo (a shim built against a pip wheel, as on
// the CUDA machine): CPU ranks cannot form a process group there. build.sh installs
// libgloo-dev, so CI's shim has it and these tests run.
func needGloo(t *testing.T) {
	t.Helper()
	if !torch.GlooCompiled() {
		t.Skip("the shim was built without Gloo's headers (libgloo-dev): no CPU process group")
	}
}

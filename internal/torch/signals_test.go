package torch

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestPoolSignals checks that the shim's own threads (named udocc-pool) block the host's
// asynchronous signals: a Go program that profiles (SIGPROF, 100 a second) or is
// preempted (SIGURG) must get them on its own threads, never on a thread inside oneDNN's
// JIT sgemm, where a profiled explanation aborted the process with a corrupted heap on
// most runs before they were blocked (block_async_signals).
func TestPoolSignals(t *testing.T) {
	tasks, err := filepath.Glob("/proc/self/task/*")
	if err != nil || len(tasks) == 0 {
		t.Skip("no /proc/self/task: not Linux")
	}
	const n, d = 300, 6
	defer SetNumThreads(NumThreads())
	SetNumThreads(3) // pool threads for the parallel tasks as well as the guard's
	runPath(t, false, 5, synth(n, d, 5), n, d)
	tasks, _ = filepath.Glob("/proc/self/task/*")
	pool := 0
	for _, task := range tasks {
		comm, err := os.ReadFile(filepath.Join(task, "comm"))
		if err != nil || strings.TrimSpace(string(comm)) != "udocc-pool" {
			continue // a thread that ended, or not the shim's
		}
		pool++
		status, err := os.ReadFile(filepath.Join(task, "status"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(status), "\n") {
			hex, ok := strings.CutPrefix(line, "SigBlk:")
			if !ok {
				continue
			}
			mask, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			if err != nil {
				t.Fatalf("%s: SigBlk %q: %v", task, hex, err)
			}
			for _, s := range []syscall.Signal{syscall.SIGPROF, syscall.SIGURG, syscall.SIGCHLD, syscall.SIGINT} {
				if mask&(1<<(uint(s)-1)) == 0 {
					t.Errorf("pool thread %s does not block %v (SigBlk %s)", filepath.Base(task), s, strings.TrimSpace(hex))
				}
			}
			if mask&(1<<(uint(syscall.SIGSEGV)-1)) != 0 {
				t.Errorf("pool thread %s blocks SIGSEGV, which a fault must raise", filepath.Base(task))
			}
		}
	}
	if pool == 0 {
		t.Fatal("no thread named udocc-pool after a fit on 3 threads")
	}
}

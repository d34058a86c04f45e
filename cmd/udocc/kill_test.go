package main

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startUdocc starts the built binary with args in dir and returns without waiting.
func startUdocc(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(udoccBin, args...)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// TestKillAtRandom kills 20 fits with SIGKILL at random moments, each into an --out that
// holds a good result. After each kill --out holds the previous result, byte for byte,
// or the new one whole, whose model gives its scores again through score. The next fit
// clears what the killed one left beside --out.
func TestKillAtRandom(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 40, 3, false, 31)
	out := filepath.Join(dir, "out")
	fit := func(seed string) []string {
		return []string{"fit", "--pretrain-epochs", "2", "--epochs", "4", "--quiet", "--seed", seed, "--out", out, "table.csv"}
	}
	start := time.Now()
	mustUdocc(t, dir, fit("100")...)
	full := time.Since(start)
	prev := snapshot(t, out)
	r := rand.New(rand.NewPCG(12, 12))
	kept, replaced := 0, 0
	for i := range 20 {
		seed := strconv.Itoa(200 + i)
		cmd := startUdocc(t, dir, fit(seed)...)
		time.Sleep(time.Duration((0.4 + 0.8*r.Float64()) * float64(full))) // most kills in the training and the writing
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		now := snapshot(t, out)
		if same(prev, now) {
			kept++
			continue
		}
		replaced++
		checkWhole(t, dir, out, seed)
		prev = now
	}
	t.Logf("20 kills at 0.4 to 1.2 times a %v fit: %d left the previous result, %d the new one", full, kept, replaced)
	mustUdocc(t, dir, fit("7")...)
	checkWhole(t, dir, out, "7")
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		if strings.HasPrefix(e.Name(), ".out.") {
			t.Errorf("left beside --out after a whole fit: %s", e.Name())
		}
	}
}

func same(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// checkWhole checks that out is one whole result of the fit with seed: every file there,
// of that seed, and score with its model reproduces its scores.
func checkWhole(t *testing.T, dir, out, seed string) {
	t.Helper()
	for _, f := range []string{"summary.json", "scores.csv", "history.csv", "loss.png", "scores.png", "model/model.json", "model/member-" + seed + ".pt", "model/autoencoder-" + seed + ".pt"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Fatalf("seed %s: %v", seed, err)
		}
	}
	if s := readSummary(t, filepath.Join(out, "summary.json")); s["seed"].(float64) != float64(atoi(t, seed)) {
		t.Fatalf("summary.json of seed %v in the result of seed %s", s["seed"], seed)
	}
	scored := filepath.Join(dir, "scored")
	mustUdocc(t, dir, "score", "--model", filepath.Join(out, "model"), "--out", scored, "table.csv")
	fit := readCSV(t, filepath.Join(out, "scores.csv"))
	sameScores(t, fit, readCSV(t, filepath.Join(scored, "scores.csv")), fit.header...)
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

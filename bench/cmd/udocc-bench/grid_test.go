package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/udocc/udocc/bench/internal/bench"
	"github.com/udocc/udocc/internal/mat5"
	"github.com/udocc/udocc/internal/torch"
)

// benchCLI runs "udocc-bench args" in this process and returns its exit status and
// output streams.
func benchCLI(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestBenchFlags checks that mistakes on the command line exit 2 with one line naming
// them, and that a missing results file is a runtime error.
func TestBenchFlags(t *testing.T) {
	out := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown method", []string{"--methods", "sb,svm"}, 2, `"svm"`},
		{"rule on a baseline", []string{"--methods", "oc:paper"}, 2, "only proposed"},
		{"unknown rule", []string{"--methods", "proposed:guess"}, 2, `"guess"`},
		{"seed range backwards", []string{"--seeds", "3-1"}, 2, "--seeds"},
		{"unknown group mode", []string{"--group", "member"}, 2, "group"},
		{"zero jobs", []string{"--jobs", "0"}, 2, "jobs"},
		{"zero epochs", []string{"--epochs", "0"}, 2, "epochs"},
		{"zero learning rate", []string{"--lr", "0"}, 2, "--lr 0"},
		{"negative weight decay", []string{"--weight-decay", "-1e-6"}, 2, "--weight-decay -1e-06"},
		{"one-row batches", []string{"--batch-size", "1"}, 2, "batch size"},
		{"an argument", []string{"extra"}, 2, "extra"},
		{"report of nothing", []string{"--report-only", "--out", out}, 1, bench.ResultsFile},
		{"a study flag without --study", []string{"--generator-seed", "1"}, 2, "--generator-seed applies only with --study"},
		{"normals without --study", []string{"--max-normals", "50"}, 2, "--max-normals"},
		{"study report of nothing", []string{"--study", "--report-only", "--out", out}, 1, bench.StudyFile},
		{"negative normals", []string{"--study", "--max-normals", "-1", "--out", out}, 2, "--max-normals -1"},
		{"judge without learning", []string{"--study", "--real", "--judge-count", out, "--out", out}, 2, "--judge-count applies only with --learn-count"},
		{"components when learning", []string{"--study", "--real", "--learn-count", out + "/m.json", "--components", "0", "--out", out}, 2, "--components applies to the study's fits"},
		{"too many components", []string{"--study", "--real", "--components", "301", "--out", out}, 2, "--components 301"},
		{"components without --study", []string{"--components", "0"}, 2, "--components applies only with --study"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := benchCLI(append([]string{"--data", out}, c.args...)...)
			if code != c.code || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and one line naming %q", code, stdout, stderr, c.code, c.want)
			}
		})
	}
}

// TestBenchRun trains a one-data-set grid through the command line, reruns it (nothing
// left to train) and regenerates the report alone.
func TestBenchRun(t *testing.T) {
	dir, out := t.TempDir(), filepath.Join(t.TempDir(), "results")
	writeGammaMAT(t, filepath.Join(dir, "gamma.mat"), 120)
	args := []string{"--data", dir, "--datasets", "gamma", "--methods", "oc,tar,proposed:paper/smallest", "--seeds", "0-1",
		"--pretrain-epochs", "1", "--epochs", "3", "--quiet", "--out", out}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"first run trains the grid", args, "6 runs in the grid: 0 already done, 6 trained now, 0 failed"},
		{"second run skips it", args, "6 runs in the grid: 6 already done, 0 trained now, 0 failed"},
		{"report only", []string{"--report-only", "--out", out}, "report in " + filepath.Join(out, bench.ReportFile)},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := benchCLI(c.args...)
			if code != 0 || !strings.Contains(stdout, c.want) || stderr != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 0, %q and a quiet stderr", code, stdout, stderr, c.want)
			}
		})
	}
	md, err := os.ReadFile(filepath.Join(out, bench.ReportFile))
	if err != nil || !strings.Contains(string(md), "| gamma | proposed:paper/smallest | 2 |") {
		t.Errorf("report (%v) lacks gamma's proposed:paper/smallest row", err)
	}

	// Other optimiser settings are another config: the grid trains anew and the lines
	// record them.
	tuned := append(append([]string(nil), args...), "--lr", "1e-4", "--weight-decay", "0", "--batch-size", "64")
	code, stdout, stderr := benchCLI(tuned...)
	if want := "6 runs in the grid: 0 already done, 6 trained now, 0 failed"; code != 0 || !strings.Contains(stdout, want) {
		t.Fatalf("with --lr, --weight-decay, --batch-size: exit %d, stdout %q, stderr %q; want %q", code, stdout, stderr, want)
	}
	raw, err := os.ReadFile(filepath.Join(out, bench.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(raw), `"batch_size":64,"lr":0.0001,"weight_decay":0,`); got != 6 {
		t.Errorf("%d results lines record batch size 64, lr 1e-4 and weight decay 0, want 6", got)
	}
}

// TestBenchProgress checks the bench's progress as the command draws it from the
// bench's callback: without a terminal, a line at every 5% and at every event.
func TestBenchProgress(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b, start: time.Now()}
	for i := 1; i <= 100; i++ {
		p.show(bench.Progress{Done: float64(i) / 100, Runs: 2})
	}
	p.show(bench.Progress{Done: 1, Finished: 2, Runs: 2, Event: "cardio: 2 runs done in 1.0 s"})
	out := b.String()
	if n := strings.Count(out, "\n"); n != 21 {
		t.Errorf("%d lines, want 20 steps of 5%% and the event: %q", n, out)
	}
	if !strings.Contains(out, "bench: 100%, 2/2 runs, ") || !strings.HasSuffix(out, ": cardio: 2 runs done in 1.0 s\n") {
		t.Errorf("output %q lacks the last step or the event", out)
	}
	b.Reset()
	(&progress{w: &b, quiet: true}).show(bench.Progress{Done: 1, Event: "done"})
	if b.Len() != 0 {
		t.Errorf("quiet, but %q", b.String())
	}
}

// TestLargestSeed benches with the largest uint64 seed, whose range once looped
// forever: the grid trains its one run.
func TestLargestSeed(t *testing.T) {
	dir := t.TempDir()
	writeGammaMAT(t, filepath.Join(dir, "gamma.mat"), 60)
	code, stdout, stderr := benchCLI("--data", dir, "--datasets", "gamma", "--methods", "oc", "--seeds", "18446744073709551615",
		"--pretrain-epochs", "1", "--epochs", "1", "--quiet", "--out", filepath.Join(dir, "bench"))
	if code != 0 || !strings.Contains(stdout, "1 trained now") {
		t.Errorf("exit %d, stdout %q, stderr %q; want one run trained", code, stdout, stderr)
	}
}

// TestFlagsOutOfRange gives learning rates and weight decays training cannot take, and
// --seed with --seeds, and devices that are no device or lack CUDA: each is an error
// naming its flag, before anything is read, trained or written (the bench once
// panicked on --lr inf and left an empty results.jsonl).
func TestFlagsOutOfRange(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--lr", "inf"}, 2, "--lr +Inf"},
		{[]string{"--lr", "nan"}, 2, "--lr NaN"},
		{[]string{"--pretrain-lr", "inf"}, 2, "--pretrain-lr +Inf"},
		{[]string{"--pretrain-lr", "-1"}, 2, "--pretrain-lr -1"},
		{[]string{"--weight-decay", "inf"}, 2, "--weight-decay +Inf"},
		{[]string{"--weight-decay", "1e300"}, 2, "--weight-decay 1e+300"},
		{[]string{"--seed", "1", "--seeds", "2"}, 2, "--seed and --seeds"},
		{[]string{"--threads", "0"}, 2, "--threads 0"},
		{[]string{"--device", "xyz"}, 2, "--device"},
	}
	if !torch.CUDACompiled() {
		cases = append(cases, struct {
			args []string
			code int
			want string
		}{[]string{"--device", "cuda"}, 1, "without CUDA"})
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			out := filepath.Join(dir, "bench-out")
			code, stdout, stderr := benchCLI(append(append([]string{"--data", dir}, c.args...), "--out", out)...)
			if code != c.code || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and one line naming %q", code, stdout, stderr, c.code, c.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("--out was written")
			}
		})
	}
}

// TestDatasetsFlags checks the datasets command's usage errors and its -h.
func TestDatasetsFlags(t *testing.T) {
	code, stdout, stderr := benchCLI("datasets")
	if code != 2 || !strings.Contains(stderr, "list or fetch") {
		t.Errorf("datasets: exit %d, stderr %q; want 2 and list or fetch", code, stderr)
	}
	code, stdout, _ = benchCLI("datasets", "-h")
	if code != 0 || !strings.Contains(stdout, "udocc-bench datasets list|fetch") || !strings.Contains(stdout, "--data string") {
		t.Errorf("datasets -h: exit %d, stdout %q", code, stdout)
	}
	code, stdout, stderr = benchCLI("datasets", "list", "--data", t.TempDir())
	if code != 0 || !strings.Contains(stdout, "cardio") || stderr != "" {
		t.Errorf("datasets list: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// writeGammaMAT writes an n-row, 3-column MAT file with a label y, its first tenth
// shifted and labelled 1.
func writeGammaMAT(t *testing.T, path string, n int) {
	t.Helper()
	const d = 3
	x, y := make([]float64, n*d), make([]float64, n)
	for i := range n {
		for j := range d {
			x[i*d+j] = float64((i*7+j*13)%17) / 17
			if i < n/10 {
				x[i*d+j] += 3
				y[i] = 1
			}
		}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := mat5.Write(f, []mat5.Var{{Name: "X", Rows: n, Cols: d, Data: x}, {Name: "y", Rows: n, Cols: 1, Data: y}}, mat5.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
}

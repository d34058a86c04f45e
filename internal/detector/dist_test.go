package detector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/udocc/udocc/internal/detector"

	"github.com/udocc/udocc/internal/torch"
)

// distRows is the table of the data-parallel library test.
func distRows() [][]float64 { return table(500, 4, 3) }

// TestDistLibraryRank is one rank of TestDistLibrary, started by it; alone it skips.
func TestDistLibraryRank(t *testing.T) {
	dir := os.Getenv("UDOCC_DIST_TEST_DIR")
	if dir == "" {
		t.Skip("a rank of TestDistLibrary, started by it")
	}
	d, err := detector.JoinFromEnv("cpu", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rows := distRows()
	lo, hi := d.Rank()*len(rows)/d.World(), (d.Rank()+1)*len(rows)/d.World()
	o := quick()
	o.Dist = d
	m, err := detector.Fit(context.Background(), rows[lo:hi], nil, o)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if d.Rank() == 0 {
		if err := m.Save(filepath.Join(dir, "model")); err != nil {
			t.Fatal(err)
		}
	}
	b, err := json.Marshal(struct {
		Scores    []float64
		Threshold float64
	}{m.Scores(), m.Threshold()})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("rank%d.json", d.Rank())), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDistLibrary fits the default detector through the library on 2 ranks, each
// process given its block of the rows: both get the same scores and threshold for all
// rows, and the model rank 0 saved loads in one process and scores the rows as the run
// did.
func TestDistLibrary(t *testing.T) {
	needGloo(t)
	const world = 2
	dir := t.TempDir()
	runRanks(t, world, "^TestDistLibraryRank$", "UDOCC_DIST_TEST_DIR="+dir)
	if t.Failed() {
		t.FailNow()
	}
	type result struct {
		Scores    []float64
		Threshold float64
	}
	var res []result
	for r := 0; r < world; r++ {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("rank%d.json", r)))
		if err != nil {
			t.Fatal(err)
		}
		var x result
		if err := json.Unmarshal(b, &x); err != nil {
			t.Fatal(err)
		}
		res = append(res, x)
	}
	rows := distRows()
	if len(res[0].Scores) != len(rows) {
		t.Fatalf("rank 0 has %d scores, want one per row (%d)", len(res[0].Scores), len(rows))
	}
	if fmt.Sprint(res[0]) != fmt.Sprint(res[1]) {
		t.Errorf("the ranks' scores or thresholds differ")
	}
	m, err := detector.Load(filepath.Join(dir, "model"), "cpu")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	got, err := m.Score(context.Background(), rows)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i := range got {
		worst = math.Max(worst, math.Abs(got[i]-res[0].Scores[i])/math.Max(1, math.Abs(res[0].Scores[i])))
	}
	// Each rank scored its own block; one process scores all rows in one product, whose
	// float rounding may differ in the last bits.
	if worst > 1e-5 {
		t.Errorf("the loaded model's scores differ from the run's by %g (relative)", worst)
	}
	t.Logf("loaded model vs the 2-rank run's scores: largest relative difference %g; threshold %g", worst, res[0].Threshold)
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

// runRanks starts world copies of this test binary running the test named by run, as the
// ranks of one run (torchrun's variables, with env added), and waits for them all.
func runRanks(t *testing.T, world int, run string, env ...string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	var cmds []*exec.Cmd
	var logs []*strings.Builder
	for r := 0; r < world; r++ {
		cmd := exec.Command(os.Args[0], "-test.run="+run, "-test.count=1")
		cmd.Env = append(append(os.Environ(), env...), "MASTER_ADDR=127.0.0.1",
			"MASTER_PORT="+strconv.Itoa(port), "RANK="+strconv.Itoa(r), "WORLD_SIZE="+strconv.Itoa(world))
		var log strings.Builder
		cmd.Stdout, cmd.Stderr = &log, &log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, logs = append(cmds, cmd), append(logs, &log)
	}
	var failed []string
	for r, c := range cmds {
		if err := c.Wait(); err != nil {
			failed = append(failed, fmt.Sprintf("rank %d: %v\n%s", r, err, logs[r].String()))
		}
	}
	if failed != nil {
		t.Errorf("%s", strings.Join(failed, "\n"))
	}
}

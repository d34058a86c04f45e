package training

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/atomicfile"
	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/odds"
	"github.com/udocc/udocc/internal/scale"
	"github.com/udocc/udocc/internal/torch"
	"github.com/udocc/udocc/metrics"
)

// rankReport is what one rank of a data-parallel test fit writes for the test to compare.
type rankReport struct {
	Weights  []string    // stage:epoch:sha256 of every member's whole state after the epoch
	Pretrain [][]float64 // per member, the pretraining loss per epoch
	Loss     [][]float64 // per member, the fine-tuning loss per epoch
	DeltaBar [][]float64 // per member, δ̄ per epoch
	Scores   [][]float64 // per member, the final scores of every row of the table
	Mean     []float64   // the scaler's
	Scale    []float64
	ROCAUC   []float64 // per member, where the table has labels
}

// distCase is a test fit: the table, the members and the settings, the same in every
// rank and in the single-process fit it is compared with.
type distCase struct {
	name    string
	seeds   []uint64
	method  string
	pre, ft int
}

func (c distCase) table(t testing.TB) *data.Dataset {
	if c.name == "thyroid" {
		dir := odds.FindDir()
		if dir == "" {
			t.Skip("no ODDS folder: set UDOCC_DATA or put the files in ../shared/data/odds")
		}
		ds, err := data.Load(filepath.Join(dir, "thyroid.mat"), data.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}
	// 700 rows of 5 Gaussian features, the last 35 shifted far out: anomalies.
	r := rand.New(rand.NewPCG(7, 7))
	const n, d = 700, 5
	ds := &data.Dataset{Name: "gauss", N: n, D: d, X: make([]float32, n*d), Y: make([]int, n)}
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			ds.X[i*d+j] = float32(r.NormFloat64())
			if i >= n-35 {
				ds.X[i*d+j] += 4
				ds.Y[i] = 1
			}
		}
	}
	return ds
}

func (c distCase) config() Config {
	cfg := DefaultConfig()
	cfg.Hidden, _ = models.Preset(c.name)
	cfg.PretrainEpochs, cfg.Epochs, cfg.BatchSize = c.pre, c.ft, 64
	return cfg
}

func (c distCase) members(t testing.TB, n int) []Member {
	var ms []Member
	for _, s := range c.seeds {
		m, err := NewMember(c.method, s, n, MethodOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	return ms
}

var distCases = map[string]distCase{
	"gauss":   {name: "gauss", seeds: []uint64{1, 2}, method: "proposed", pre: 4, ft: 6},
	"thyroid": {name: "thyroid", seeds: []uint64{0, 1, 2, 3, 4}, method: "proposed", pre: 20, ft: 15},
	"long":    {name: "gauss", seeds: []uint64{1}, method: "proposed", pre: 100000, ft: 2},
}

// fitCase fits c on this rank's block (d nil: one process, the whole table) and reports.
func fitCase(t testing.TB, c distCase, d *torch.Dist, hooks *Hooks) rankReport {
	ds := c.table(t)
	block, first := ds, true
	reduce := func([]float64) error { return nil }
	if d != nil {
		lo, hi := d.Rank()*ds.N/d.World(), (d.Rank()+1)*ds.N/d.World()
		block = &data.Dataset{Name: ds.Name, N: hi - lo, D: ds.D, X: ds.X[lo*ds.D : hi*ds.D]}
		first, reduce = d.Rank() == 0, d.AllReduce
	}
	sc, err := scale.FitParts(block, first, reduce)
	if err != nil {
		t.Fatal(err)
	}
	std, err := sc.Transform(block)
	if err != nil {
		t.Fatal(err)
	}
	cfg := c.config()
	cfg.Dist = d
	rep := rankReport{Mean: sc.Mean, Scale: sc.Scale}
	if hooks == nil {
		hooks = &Hooks{}
	}
	hooks.Network = func(stage string, e int, g *torch.Group) {
		rep.Weights = append(rep.Weights, fmt.Sprintf("%s:%d:%s", stage, e, stateHash(t, g)))
	}
	run, err := FitGroup(std.X, std.N, std.D, cfg, c.members(t, ds.N), hooks)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	for _, r := range run.Results {
		rep.Pretrain = append(rep.Pretrain, r.PretrainLoss)
		var loss, bar []float64
		for _, h := range r.History {
			b := h.Record.DeltaBar
			if math.IsNaN(b) {
				b = -1 // no search yet (JSON has no NaN)
			}
			loss, bar = append(loss, h.Loss), append(bar, b)
		}
		rep.Loss, rep.DeltaBar = append(rep.Loss, loss), append(rep.DeltaBar, bar)
		rep.Scores = append(rep.Scores, r.Scores)
		auc, err := metrics.ROCAUC(ds.Y, r.Scores)
		if err != nil {
			t.Fatal(err)
		}
		rep.ROCAUC = append(rep.ROCAUC, auc)
	}
	return rep
}

// stateHash is a SHA-256 of every member's weights, BatchNorm statistics, center and
// radius, bit for bit.
func stateHash(t testing.TB, g *torch.Group) string {
	h := sha256.New()
	layers := len(g.Sizes()) - 1
	var names []string
	for _, part := range []string{"enc", "dec"} {
		for i := 0; i < layers; i++ {
			names = append(names, fmt.Sprintf("%s.%d.weight", part, i))
			if i+1 < layers {
				names = append(names, fmt.Sprintf("%s.%d.running_mean", part, i), fmt.Sprintf("%s.%d.running_var", part, i))
			}
		}
	}
	names = append(names, "center", "radius")
	for k := 0; k < g.K(); k++ {
		for _, name := range names {
			v, err := g.Param(k, name)
			if err != nil {
				if strings.Contains(err.Error(), "no tensor named") {
					continue // a fine-tuning group has no decoder
				}
				t.Fatal(err)
			}
			for _, f := range v {
				_ = binary.Write(h, binary.LittleEndian, math.Float32bits(f))
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// TestDistRank is one rank of a data-parallel fit, started by TestDataParallel in a
// process of its own with the torchrun variables set; run alone it skips.
func TestDistRank(t *testing.T) {
	out := os.Getenv("UDOCC_DIST_TEST_OUT")
	if out == "" {
		t.Skip("a rank of TestDataParallel, started by it")
	}
	rank, _ := strconv.Atoi(os.Getenv("RANK"))
	world, _ := strconv.Atoi(os.Getenv("WORLD_SIZE"))
	port, _ := strconv.Atoi(os.Getenv("MASTER_PORT"))
	torch.SetNumThreads(1)
	d, err := torch.NewDist(torch.DistConfig{Addr: os.Getenv("MASTER_ADDR"), Port: port, Rank: rank, World: world, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	c := distCases[os.Getenv("UDOCC_DIST_TEST_CASE")]
	hooks := &Hooks{Progress: func(stage string, e, total int) {
		if stage == "pretrain" && e == 2 {
			_ = os.WriteFile(out+".started", nil, 0o644) // the kill test waits for this
		}
	}}
	rep := fitCase(t, c, d, hooks)
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.WriteBytes(out, b); err != nil {
		t.Fatal(err)
	}
}

// freePort is a TCP port of 127.0.0.1 that nothing listened on a moment ago.
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startRanks starts world processes of this test binary, each running TestDistRank as
// one rank of case name, and returns them and the files their reports go to.
func startRanks(t *testing.T, name string, world int) ([]*exec.Cmd, []string, []*strings.Builder) {
	dir := t.TempDir()
	port := freePort(t)
	var cmds []*exec.Cmd
	var outs []string
	var logs []*strings.Builder
	for r := 0; r < world; r++ {
		out := filepath.Join(dir, fmt.Sprintf("rank%d.json", r))
		cmd := exec.Command(os.Args[0], "-test.run=^TestDistRank$", "-test.count=1")
		cmd.Env = append(os.Environ(), "UDOCC_DIST_TEST_OUT="+out, "UDOCC_DIST_TEST_CASE="+name,
			"MASTER_ADDR=127.0.0.1", fmt.Sprintf("MASTER_PORT=%d", port),
			fmt.Sprintf("RANK=%d", r), fmt.Sprintf("WORLD_SIZE=%d", world))
		var log strings.Builder
		cmd.Stdout, cmd.Stderr = &log, &log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs, logs = append(cmds, cmd), append(outs, out), append(logs, &log)
	}
	t.Cleanup(func() {
		for _, c := range cmds {
			if c.ProcessState == nil {
				_ = c.Process.Kill()
				_ = c.Wait()
			}
		}
	})
	return cmds, outs, logs
}

func runRanks(t *testing.T, name string, world int) []rankReport {
	cmds, outs, logs := startRanks(t, name, world)
	var reps []rankReport
	for r, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("rank %d: %v\n%s", r, err, logs[r].String())
		}
		b, err := os.ReadFile(outs[r])
		if err != nil {
			t.Fatal(err)
		}
		var rep rankReport
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		reps = append(reps, rep)
	}
	return reps
}

// TestDataParallel starts 2 and 3 ranks on 127.0.0.1 (Gloo), each a process of its own
// holding its block of the rows, and checks that they train one model: every rank's
// state is bit-identical after every epoch, every rank reports the same losses, δ̄
// history and scores of all rows, the losses fall, and the standardisation is that of the
// whole table.
func TestDataParallel(t *testing.T) {
	needGloo(t)
	c := distCases["gauss"]
	ds := c.table(t)
	whole, err := scale.Fit(ds)
	if err != nil {
		t.Fatal(err)
	}
	for _, world := range []int{2, 3} {
		t.Run(fmt.Sprintf("W=%d", world), func(t *testing.T) {
			reps := runRanks(t, "gauss", world)
			r0 := reps[0]
			if want := len(c.seeds) * 0; len(r0.Weights) != c.pre+c.ft+want {
				t.Fatalf("rank 0 hashed %d epochs, want %d", len(r0.Weights), c.pre+c.ft)
			}
			for r, rep := range reps[1:] {
				for i := range r0.Weights {
					if rep.Weights[i] != r0.Weights[i] {
						t.Errorf("rank %d after %s: state %s, rank 0's %s", r+1, r0.Weights[i][:strings.LastIndex(r0.Weights[i], ":")], rep.Weights[i], r0.Weights[i])
					}
				}
				for _, pair := range []struct {
					what string
					a, b [][]float64
				}{{"δ̄ history", r0.DeltaBar, rep.DeltaBar}, {"loss", r0.Loss, rep.Loss}, {"pretraining loss", r0.Pretrain, rep.Pretrain}, {"scores", r0.Scores, rep.Scores}} {
					if fmt.Sprint(pair.a) != fmt.Sprint(pair.b) {
						t.Errorf("rank %d's %s differs from rank 0's:\n%v\n%v", r+1, pair.what, pair.b, pair.a)
					}
				}
			}
			for k := range c.seeds {
				p := r0.Pretrain[k]
				if !(p[len(p)-1] < p[0]) {
					t.Errorf("member %d: pretraining loss %v does not fall", k, p)
				}
				if len(r0.Scores[k]) != ds.N {
					t.Errorf("member %d: %d scores, want one per row of the table (%d)", k, len(r0.Scores[k]), ds.N)
				}
				t.Logf("member %d: pretraining loss %.4f -> %.4f, δ̄ %v, ROCAUC %.4f", k, p[0], p[len(p)-1], r0.DeltaBar[k], r0.ROCAUC[k])
			}
			for j := range whole.Mean {
				if math.Abs(r0.Mean[j]-whole.Mean[j]) > 1e-12 || math.Abs(r0.Scale[j]/whole.Scale[j]-1) > 1e-12 {
					t.Errorf("column %d: scaler %g/%g, the whole table's %g/%g", j, r0.Mean[j], r0.Scale[j], whole.Mean[j], whole.Scale[j])
				}
			}
		})
	}
}

// TestDataParallelROCAUC compares one paper set (thyroid) fitted on 2 ranks with the
// single-process fit over five seeds (lockstep groups of K = 5, whose gradients go in one
// all-reduce): the mean ROCAUC at W = 2 must lie within the seed noise of W = 1, taken as
// 3 standard errors of the W = 1 mean over the seeds plus those of W = 2.
func TestDataParallelROCAUC(t *testing.T) {
	needGloo(t)
	c := distCases["thyroid"]
	c.table(t) // skips without the ODDS files
	torch.SetNumThreads(1)
	one := fitCase(t, c, nil, nil)
	two := runRanks(t, "thyroid", 2)[0]
	m1, s1 := meanSD(one.ROCAUC)
	m2, s2 := meanSD(two.ROCAUC)
	k := float64(len(c.seeds))
	noise := 3 * math.Sqrt(s1*s1/k+s2*s2/k)
	t.Logf("thyroid ROCAUC over seeds %v: W=1 %v (mean %.4f, sd %.4f); W=2 %v (mean %.4f, sd %.4f); |difference| %.4f, allowed %.4f",
		c.seeds, one.ROCAUC, m1, s1, two.ROCAUC, m2, s2, math.Abs(m1-m2), noise)
	if math.Abs(m1-m2) > noise {
		t.Errorf("mean ROCAUC at W=2 %.4f differs from W=1's %.4f by more than the seed noise %.4f", m2, m1, noise)
	}
}

func meanSD(xs []float64) (float64, float64) {
	m := 0.0
	for _, x := range xs {
		m += x / float64(len(xs))
	}
	v := 0.0
	for _, x := range xs {
		v += (x - m) * (x - m) / float64(len(xs)-1)
	}
	return m, math.Sqrt(v)
}

// TestDataParallelRankDies kills one of two ranks in the middle of pretraining: the
// other must end with an error naming the failed collective, well within the timeout,
// and write no report.
func TestDataParallelRankDies(t *testing.T) {
	needGloo(t)
	cmds, outs, logs := startRanks(t, "long", 2)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, err := os.Stat(outs[1] + ".started"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("rank 1 never started training:\n%s", logs[1].String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmds[1].Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmds[1].Wait()
	err := cmds[0].Wait()
	if err == nil {
		t.Fatalf("rank 0 went on after rank 1 died:\n%s", logs[0].String())
	}
	if !strings.Contains(logs[0].String(), "failed") {
		t.Errorf("rank 0's error does not say what failed:\n%s", logs[0].String())
	}
	if _, err := os.Stat(outs[0]); !os.IsNotExist(err) {
		t.Errorf("rank 0 wrote its report although the run failed: %v", err)
	}
	t.Logf("rank 0 after rank 1 died: %s", lastLines(logs[0].String(), 4))
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
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

package detector_test

import (
	"context"
	"fmt"
	"github.com/udocc/udocc/internal/method"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/detector"
	"github.com/udocc/udocc/internal/disttrace"
)

// collectiveCase is one fit of the collective-sequence test: a method, a table with or
// without labels (with labels, rank 0 alone sets an Epoch hook, as `udocc fit` does to
// write a labelled table's history), and a Progress hook on rank 0 alone (`udocc fit`
// without --quiet) or none.
type collectiveCase struct {
	method             detector.Method
	labelled, progress bool
}

func collectiveCases() []collectiveCase {
	var out []collectiveCase
	for _, meth := range method.AllMethods {
		m, err := detector.MethodNamed(meth.Name)
		if err != nil {
			panic(err)
		}
		for _, labelled := range []bool{false, true} {
			for _, progress := range []bool{false, true} {
				out = append(out, collectiveCase{m, labelled, progress})
			}
		}
	}
	return out
}

func (c collectiveCase) String() string {
	return fmt.Sprintf("%s labelled=%v progress=%v", c.method.Name(), c.labelled, c.progress)
}

// collectiveRows is the table of the collective-sequence test (every tenth row shifted).
const collectiveRows, collectiveCols = 120, 4

// collectiveMarker is the size of the all-reduce each rank makes before case i: in the
// traces it marks where each case starts.
func collectiveMarker(i int) int { return 1000 + i }

// TestCollectivesRank is one rank of TestCollectiveSequence, started by it; alone it
// skips. It fits every case on its block of the rows with the same Dist, an all-reduce
// of collectiveMarker(i) values before case i.
func TestCollectivesRank(t *testing.T) {
	if os.Getenv("UDOCC_COLLECTIVES_TEST") == "" {
		t.Skip("a rank of TestCollectiveSequence, started by it")
	}
	d, err := detector.JoinFromEnv("cpu", 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rows := table(collectiveRows, collectiveCols, 9)
	lo, hi := d.Rank()*len(rows)/d.World(), (d.Rank()+1)*len(rows)/d.World()
	for i, c := range collectiveCases() {
		if err := detector.AllReduce(d, make([]float64, collectiveMarker(i))); err != nil {
			t.Fatalf("%v: marker: %v", c, err)
		}
		ds := &data.Dataset{Name: "collectives", N: hi - lo, D: collectiveCols, X: make([]float32, (hi-lo)*collectiveCols)}
		for i, r := range rows[lo:hi] {
			for j, v := range r {
				ds.X[i*collectiveCols+j] = float32(v)
			}
		}
		if c.labelled {
			ds.Y = make([]int, hi-lo)
			for i := range ds.Y {
				if (lo+i)%10 == 9 {
					ds.Y[i] = 1
				}
			}
		}
		o := detector.Options{PretrainEpochs: 2, Epochs: 4, Members: 1}
		m := withRatio(c.method)
		if _, ok := m.(detector.Ensemble); ok {
			m, o.Members = detector.Ensemble{ScreenEpochs: 2}, 2
		}
		o.Dist = d
		if d.Rank() == 0 {
			if c.labelled {
				o.Epoch = func(int, int, []float64, []bool) {}
			}
			if c.progress {
				o.Progress = func(string, int, int) {}
			}
		}
		fitted, err := detector.FitDataset(context.Background(), ds, m, o)
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		fitted.Close()
	}
}

// TestCollectiveSequence holds data-parallel fits to their contract: which collectives
// run, and in what order, is a function of what every rank shares (the options, the
// table's shape, the epoch), never of one rank's hooks, labels or output. W = 2 and 3
// ranks each fit every method, with and without labels and a progress hook (both on rank
// 0 alone), and write every collective they enter (the shim's UDOCC_DIST_TRACE); the
// traces must be the same lines. A rank that ran another collective hangs its peers, so
// the ranks' timeout is short, and the first line where the traces part names the case.
func TestCollectiveSequence(t *testing.T) {
	needGloo(t)
	for _, world := range []int{2, 3} {
		t.Run(fmt.Sprintf("W=%d", world), func(t *testing.T) {
			dir := t.TempDir()
			prefix := filepath.Join(dir, "trace")
			runRanks(t, world, "^TestCollectivesRank$", "UDOCC_COLLECTIVES_TEST=1", "UDOCC_DIST_TRACE="+prefix)
			ref, at, err := disttrace.Compare(prefix, world)
			if err != nil {
				t.Fatalf("%v (%s)", err, caseOf(at, ref))
			}
			t.Logf("%d ranks ran the same %d collectives", world, len(ref))
		})
	}
}

// caseOf names the case of TestCollectiveSequence that line of rank 0's trace belongs
// to, from the markers before it.
func caseOf(line int, lines []string) string {
	if line < 0 {
		return "reading the traces"
	}
	c := -1
	for _, l := range lines[:line] {
		for i := range collectiveCases() {
			if l == "all-reduce "+strconv.Itoa(collectiveMarker(i)) {
				c = i
			}
		}
	}
	if c < 0 {
		return "before the first case"
	}
	return collectiveCases()[c].String()
}

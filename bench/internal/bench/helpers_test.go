package bench

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/udocc/udocc/internal/mat5"
	"github.com/udocc/udocc/internal/torch"
)

// Environment of the child process TestKillResume starts and kills: the data folder,
// the output folder and the marker file it creates once it is inside its second group.
const (
	childData   = "UDOCC_BENCH_CHILD_DATA"
	childOut    = "UDOCC_BENCH_CHILD_OUT"
	childMarker = "UDOCC_BENCH_CHILD_MARKER"
)

func TestMain(m *testing.M) {
	torch.SetNumThreads(1)
	if dir := os.Getenv(childData); dir != "" {
		os.Exit(runChild(dir, os.Getenv(childOut), os.Getenv(childMarker)))
	}
	os.Exit(m.Run())
}

// writeBlobs writes a labelled MAT file name.mat into dir: n rows of d standard normal
// features, the first k shifted by 4 in every feature and labelled anomalous.
func writeBlobs(t *testing.T, dir, name string, n, d, k int, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	x := make([]float64, n*d)
	y := make([]float64, n)
	for i := range n {
		for j := range d {
			x[i*d+j] = rng.NormFloat64()
			if i < k {
				x[i*d+j] += 4
			}
		}
		if i < k {
			y[i] = 1
		}
	}
	f, err := os.Create(filepath.Join(dir, name+".mat"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	vars := []mat5.Var{{Name: "X", Rows: n, Cols: d, Data: x}, {Name: "y", Rows: n, Cols: 1, Data: y}}
	if err := mat5.Write(f, vars, mat5.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// tinyData writes the two synthetic data sets of the tiny grid and returns their folder.
func tinyData(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeBlobs(t, dir, "alpha", 160, 5, 16, 1)
	writeBlobs(t, dir, "beta", 120, 4, 10, 2)
	return dir
}

// tinyOptions is a grid of 2 data sets x 2 methods x 2 seeds with 2 pretraining and 4
// fine-tuning epochs.
func tinyOptions(dataDir, out string) Options {
	o := DefaultOptions()
	o.DataDir, o.Out = dataDir, out
	o.Datasets = []string{"alpha", "beta"}
	o.Methods = []string{"oc", "proposed"}
	o.Seeds = []uint64{0, 1}
	o.Train.PretrainEpochs, o.Train.Epochs = 2, 4
	o.Version = "test"
	o.Jobs = 1 // one data set's group after the other: the cancel and kill tests stop the second
	return o
}

// reportText writes the report of the results in out and returns its markdown.
func reportText(t *testing.T, out string) string {
	t.Helper()
	path, err := WriteReport(out)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

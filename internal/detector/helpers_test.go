package detector_test

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/udocc/udocc/internal/detector"
)

// table is n rows of d numbers: normal rows near the origin and, every tenth row, an
// anomaly far from it.
func table(n, d int, seed uint64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = make([]float64, d)
		for j := range rows[i] {
			rows[i][j] = rng.NormFloat64()
			if i%10 == 9 {
				rows[i][j] += 8
			}
		}
	}
	return rows
}

// quick are the ensemble's default settings with few epochs, so that the tests run in
// seconds; the paper's methods take the ensemble's rates with them.
func quick() detector.Options {
	_, o := detector.Defaults(nil)
	o.PretrainEpochs, o.Epochs, o.Members = 5, 3, 2
	return o
}

// withRatio is m, with ν or the ratio 0.1 where m is SB or TAR without one.
func withRatio(m detector.Method) detector.Method {
	switch m := m.(type) {
	case detector.SB:
		if m.Nu == 0 {
			m.Nu = 0.1
		}
		return m
	case detector.TAR:
		if m.Ratio == 0 {
			m.Ratio = 0.1
		}
		return m
	}
	return m
}

// reloaded saves m into a new folder and loads it back on the CPU; the test closes it.
func reloaded(t *testing.T, m *detector.Model) *detector.Model {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "model")
	if err := m.Save(dir); err != nil {
		t.Fatal(err)
	}
	l, err := detector.Load(dir, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

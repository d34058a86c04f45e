package detector_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/detector"
	"github.com/udocc/udocc/internal/odds"
	"github.com/udocc/udocc/internal/testrows"
)

// oddsFit is the ODDS table file (odds.FindDir) and the default model fitted on it, for
// a benchmark; the benchmark skips where the corpus is missing. The caller closes the
// model.
func oddsFit(b *testing.B, file string) (*data.Dataset, *detector.Model) {
	b.Helper()
	ds, err := data.Load(filepath.Join(odds.FindDir(), file), data.LoadOptions{})
	if err != nil {
		b.Skipf("no %s (%v): set UDOCC_DATA or put the corpus in ../shared/data", file, err)
	}
	m, err := detector.FitDataset(context.Background(), ds, nil, detector.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return ds, m
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

// table is testrows.Table: every tenth row an anomaly far from the others.
var table = testrows.Table

// reloaded saves m into a new folder and loads it back on the CPU; the test closes it.
func reloaded(t *testing.T, m *detector.Model) *detector.Model {
	t.Helper()
	return testrows.Reloaded(t, m, detector.Load)
}

package bench

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestCopyRows: a copy below the table's share keeps every normal row and subsamples
// anomalies to the share; above it, every anomaly and fewer normal rows; the cap holds.
func TestCopyRows(t *testing.T) {
	y := make([]int, 1000)
	for i := 0; i < 100; i++ {
		y[i*10] = 1 // 10 % anomalies
	}
	for _, tc := range []struct {
		share float64
		max   int
	}{{0.01, 5000}, {0.05, 5000}, {0.3, 5000}, {0.3, 200}} {
		rows := copyRows(y, tc.share, tc.max, 7)
		a := 0
		seen := map[int]bool{}
		for _, r := range rows {
			if seen[r] {
				t.Fatalf("share %g: row %d twice", tc.share, r)
			}
			seen[r] = true
			a += y[r]
		}
		got := float64(a) / float64(len(rows))
		if math.Abs(math.Log(got/tc.share)) > 0.15 {
			t.Errorf("share %g: copy has %d of %d rows anomalous (%.4f)", tc.share, a, len(rows), got)
		}
		if len(rows) > tc.max {
			t.Errorf("share %g: %d rows over the cap %d", tc.share, len(rows), tc.max)
		}
		if tc.share < 0.1 && len(rows)-a != 900 {
			t.Errorf("share %g: %d normal rows, want all 900", tc.share, len(rows)-a)
		}
	}
}

// TestCopySharesSpread: a table's copies fall one in each stratum of ln(share) over
// [CopyLow, CopyHigh], the same for the same name.
func TestCopySharesSpread(t *testing.T) {
	s := copyShares("odds/cardio", 4)
	lo, hi := math.Log(CopyLow), math.Log(CopyHigh)
	for i, v := range s {
		u := (math.Log(v) - lo) / (hi - lo)
		if u < float64(i)/4 || u > float64(i+1)/4 {
			t.Errorf("copy %d: share %g outside its stratum", i, v)
		}
	}
	if again := copyShares("odds/cardio", 4); again[2] != s[2] {
		t.Error("copy shares differ between calls")
	}
}

// TestCorpusTablesErrors: a GROUPS.csv row without a group, or naming a missing file,
// is an error naming the file and row.
func TestCorpusTablesErrors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, GroupsFile), []byte("table,group\nodds/none.mat,x\n"), 0o644)
	if _, err := corpusTables(RealOptions{Corpus: dir}); err == nil {
		t.Error("a missing table gave no error")
	}
	os.WriteFile(filepath.Join(dir, GroupsFile), []byte("table,group\nodds/none.mat,\n"), 0o644)
	if _, err := corpusTables(RealOptions{Corpus: dir}); err == nil {
		t.Error("a row without a group gave no error")
	}
}

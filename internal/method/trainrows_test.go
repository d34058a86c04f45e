package method

import (
	"slices"
	"testing"

	"github.com/udocc/udocc/data"
)

// TestTrainingRows checks the ensemble's training sample (Config.TrainRows): every row
// where the table is small enough, a data-parallel rank or limit 0; else limit distinct
// rows of the table, in table order, the same for a seed and other for another seed,
// drawn from the whole table (rows from its first and last tenth).
func TestTrainingRows(t *testing.T) {
	const n, d = 5000, 3
	ds := &data.Dataset{N: n, D: d, X: make([]float32, n*d)}
	for i := range n {
		for j := range d {
			ds.X[i*d+j] = float32(i) // a row's values name it
		}
	}
	for _, c := range []struct {
		limit int
		dist  bool
	}{{0, false}, {n, false}, {n + 1, false}, {100, true}} {
		x, rows := trainingRows(ds, c.limit, 1, c.dist)
		if rows != n || &x[0] != &ds.X[0] {
			t.Errorf("limit %d, dist %v: %d rows (not the table itself), want all %d", c.limit, c.dist, rows, n)
		}
	}
	sample := func(seed uint64) []int {
		x, rows := trainingRows(ds, 512, seed, false)
		if rows != 512 || len(x) != 512*d {
			t.Fatalf("seed %d: %d rows, %d values; want 512 rows of %d", seed, rows, len(x), d)
		}
		out := make([]int, rows)
		for r := range rows {
			out[r] = int(x[r*d])
			if x[r*d+d-1] != x[r*d] {
				t.Fatalf("seed %d: sampled row %d is not one row of the table", seed, r)
			}
		}
		return out
	}
	a := sample(1)
	if !slices.IsSorted(a) || len(slices.Compact(slices.Clone(a))) != len(a) {
		t.Errorf("the sample's rows are not distinct and in table order: %v", a[:10])
	}
	if a[0] >= n/10 || a[len(a)-1] < n-n/10 {
		t.Errorf("sample spans rows %d to %d of %d: not drawn from the whole table", a[0], a[len(a)-1], n)
	}
	if !slices.Equal(a, sample(1)) {
		t.Error("two samples of seed 1 differ")
	}
	if slices.Equal(a, sample(2)) {
		t.Error("seeds 1 and 2 draw the same sample")
	}
}

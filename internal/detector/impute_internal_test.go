package detector

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/torch"
)

// TestImputeBlocks imputes a table of three blocks (imputeBlock rows each, the last
// short) on 1 and 3 threads: the same values and counts; a row with no value in a later
// block is named, before any value is replaced; without medians the first row with a
// missing value is named.
func TestImputeBlocks(t *testing.T) {
	const d = 3
	n := 2*imputeBlock + 100
	nan := float32(math.NaN())
	base := make([]float32, n*d)
	for i := range base {
		base[i] = float32(i % 97)
	}
	holes := []int{5*d + 1, (imputeBlock+7)*d + 0, (imputeBlock+7)*d + 2, (2*imputeBlock+50)*d + 2}
	for _, at := range holes {
		base[at] = nan
	}
	medians := []float64{-1, -2, -3}
	defer torch.SetNumThreads(torch.NumThreads())
	var first []float32
	for _, threads := range []int{1, 3} {
		torch.SetNumThreads(threads)
		ds := &data.Dataset{Name: "holes", N: n, D: d, X: slices.Clone(base)}
		count, err := impute(ds, medians)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(count, []int{1, 1, 2}) {
			t.Errorf("%d threads: counts %v, want [1 1 2]", threads, count)
		}
		for _, at := range holes {
			if want := float32(medians[at%d]); ds.X[at] != want {
				t.Errorf("%d threads: value %d is %v, want %v", threads, at, ds.X[at], want)
			}
		}
		if first == nil {
			first = ds.X
		} else if !slices.Equal(first, ds.X) {
			t.Errorf("3 threads impute other values than 1")
		}

		empty := slices.Clone(base)
		row := 2*imputeBlock + 10
		for j := range d {
			empty[row*d+j] = nan
		}
		ds = &data.Dataset{Name: "holes", N: n, D: d, X: empty}
		var nv *NoValuesError
		if _, err := impute(ds, medians); !errors.As(err, &nv) || nv.Row != row {
			t.Errorf("%d threads: a row of NaN at %d: %v", threads, row, err)
		}
		if !math.IsNaN(float64(ds.X[holes[0]])) {
			t.Errorf("%d threads: a value was replaced before the error", threads)
		}
		ds = &data.Dataset{Name: "holes", N: n, D: d, X: slices.Clone(base)}
		if _, err := impute(ds, nil); err == nil || errors.As(err, &nv) || !strings.Contains(err.Error(), "row 5 ") {
			t.Errorf("%d threads: no medians: %v", threads, err)
		}
		nothing := &data.Dataset{Name: "full", N: 10, D: d, X: make([]float32, 10*d)}
		if count, err := impute(nothing, medians); count != nil || err != nil {
			t.Errorf("%d threads: nothing missing: %v, %v", threads, count, err)
		}
	}
}

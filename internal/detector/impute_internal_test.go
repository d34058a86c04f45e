package detector

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/udocc/udocc/data"
)

// TestImputeRefusesWhole imputes missing values with the medians and counts them per
// column; a row with no value is named, and the table keeps every value (none is
// replaced before the error); without medians the first row with a missing value is
// named.
func TestImputeRefusesWhole(t *testing.T) {
	const n, d = 40, 3
	nan := float32(math.NaN())
	base := make([]float32, n*d)
	for i := range base {
		base[i] = float32(i % 7)
	}
	holes := []int{5*d + 1, 17*d + 0, 17*d + 2, 30*d + 2}
	for _, at := range holes {
		base[at] = nan
	}
	medians := []float64{-1, -2, -3}
	ds := &data.Dataset{Name: "holes", N: n, D: d, X: slices.Clone(base)}
	count, err := impute(ds, medians)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(count, []int{1, 1, 2}) {
		t.Errorf("counts %v, want [1 1 2]", count)
	}
	for _, at := range holes {
		if want := float32(medians[at%d]); ds.X[at] != want {
			t.Errorf("value %d is %v, want %v", at, ds.X[at], want)
		}
	}

	empty := slices.Clone(base)
	for j := range d {
		empty[25*d+j] = nan
	}
	ds = &data.Dataset{Name: "holes", N: n, D: d, X: empty}
	var nv *NoValuesError
	if _, err := impute(ds, medians); !errors.As(err, &nv) || nv.Row != 25 {
		t.Errorf("a row of NaN at 25: %v", err)
	}
	if !math.IsNaN(float64(ds.X[holes[0]])) {
		t.Error("a value was replaced before the error")
	}
	ds = &data.Dataset{Name: "holes", N: n, D: d, X: slices.Clone(base)}
	if _, err := impute(ds, nil); err == nil || errors.As(err, &nv) || !strings.Contains(err.Error(), "row 5 ") {
		t.Errorf("no medians: %v", err)
	}
	nothing := &data.Dataset{Name: "full", N: 10, D: d, X: make([]float32, 10*d)}
	if count, err := impute(nothing, medians); count != nil || err != nil {
		t.Errorf("nothing missing: %v, %v", count, err)
	}
}

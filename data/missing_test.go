package data

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestColumnTypeFromEveryCell: a numeric column whose first cells are missing is not
// taken for text (issue 42 item 1), with or without --drop-text; a column with text
// anywhere is text.
func TestColumnTypeFromEveryCell(t *testing.T) {
	text := "a,b,c\nNA,1,x\n2,,y\n3,4,NA\n5,6,z\n"
	for _, sel := range []Selection{{DropText: true}, {Drop: []string{"c"}}} {
		ds, err := Load(writeTemp(t, "t.csv", []byte(text)), LoadOptions{Selection: sel, Missing: MissingKeep})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ds.Features, []string{"a", "b"}) || !slices.Equal(ds.Missing, []int{1, 1}) {
			t.Errorf("%+v: features %q, missing %v; want a and b, one missing cell each", sel, ds.Features, ds.Missing)
		}
		if sel.DropText && !slices.Equal(ds.TextDropped, []string{"c"}) {
			t.Errorf("text dropped %q, want c", ds.TextDropped)
		}
	}
}

// TestMissingPolicies: the three --missing policies on one table (issue 42 item 2).
func TestMissingPolicies(t *testing.T) {
	text := "id,a,b,y\nr0,1,2,0\nr1,NA,3,0\nr2,,,1\nr3,4,null,0\nr4,5,6,1\nr5,n/a,NaN,0\n"
	path := writeTemp(t, "m.csv", []byte(text))
	opts := LoadOptions{LabelColumn: "y", Selection: Selection{ID: "id"}}

	_, err := Load(path, opts)
	if !errors.Is(err, ErrMissingValue) || !strings.Contains(err.Error(), `line 3, column 2 ("a")`) || !strings.Contains(err.Error(), "LoadOptions.Missing = data.MissingKeep") {
		t.Errorf("error policy: %v, want the missing cell at line 3, column 2 and the flag", err)
	}

	opts.Missing = MissingKeep
	ds, err := Load(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	// r2 and r5 have no value at all: left out, reported; the others keep NaN.
	if !slices.Equal(ds.EmptyRows, []int{2, 5}) || !slices.Equal(ds.RowIndex, []int{0, 1, 3, 4}) || ds.N != 4 {
		t.Errorf("keep: empty rows %v, row index %v, n %d", ds.EmptyRows, ds.RowIndex, ds.N)
	}
	if !slices.Equal(ds.Missing, []int{1, 1}) {
		t.Errorf("keep: missing %v, want [1 1]", ds.Missing)
	}
	if !slices.Equal(ds.IDs, []string{"r0", "r1", "r3", "r4"}) || !slices.Equal(ds.Y, []int{0, 0, 0, 1}) {
		t.Errorf("keep: ids %q, labels %v do not follow the rows kept", ds.IDs, ds.Y)
	}
	if !math.IsNaN(float64(ds.X[2])) || !math.IsNaN(float64(ds.X[5])) || ds.X[0] != 1 {
		t.Errorf("keep: X %v, want NaN where a cell is missing", ds.X)
	}

	opts.Missing = MissingDropRows
	ds, err = Load(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	if ds.RowsDropped != 4 || ds.N != 2 || ds.Missing != nil || !slices.Equal(ds.IDs, []string{"r0", "r4"}) || !slices.Equal(ds.RowIndex, []int{0, 4}) {
		t.Errorf("drop-rows: dropped %d, n %d, missing %v, ids %q", ds.RowsDropped, ds.N, ds.Missing, ds.IDs)
	}

	// A column with no value at all is left out, named.
	ds, err = Load(writeTemp(t, "e.csv", []byte("a,b\n1,\n2,NA\n3,\n")), LoadOptions{Missing: MissingKeep})
	if err != nil || !slices.Equal(ds.Features, []string{"a"}) || !slices.Equal(ds.EmptyColumns, []string{"b"}) || ds.Missing != nil {
		t.Errorf("empty column: %+v, %v", ds, err)
	}
}

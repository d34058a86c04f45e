package data

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFloat32Table checks what holding a table as float32 means at the edges: a finite
// value beyond float32's range is refused with its place named, not read as ±Inf, and
// what must stay exact (a matrix's id numbers, the values WriteAppended copies) is read
// at full precision.
func TestFloat32Table(t *testing.T) {
	f8 := func(vs ...float64) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		return b
	}
	t.Run("beyond float32's range", func(t *testing.T) {
		for _, c := range []struct{ name, file, place string }{
			{"csv", writeTemp(t, "r.csv", []byte("a,b\n1,2\n3,1e39\n")), "line 3, column 2"},
			{"npy", writeTemp(t, "r.npy", npyBytes("<f8", false, []int{2, 2}, f8(1, 2, 3, -1e39))), "row 2, column 2"},
			{"npy fortran", writeTemp(t, "f.npy", npyBytes("<f8", true, []int{2, 2}, f8(1, 3, -1e39, 4))), "row 1, column 2"},
		} {
			_, err := Load(c.file, LoadOptions{})
			if !errors.Is(err, errRange) || !strings.Contains(err.Error(), c.place) {
				t.Errorf("%s: error %v, want errRange at %s", c.name, err, c.place)
			}
		}
	})
	// 123456789 and 987654321 are not float32 numbers (the nearest are 123456792 and
	// 987654336); strconv's shortest form writes them 1.23456789e+08 and 9.87654321e+08.
	x := writeTemp(t, "ids.npy", npyBytes("<f8", false, []int{2, 2}, f8(123456789, 0.1, 987654321, 0.2)))
	t.Run("id column of a matrix", func(t *testing.T) {
		ds, err := Load(x, LoadOptions{Selection: Selection{ID: "x1"}})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ds.IDs, []string{"1.23456789e+08", "9.87654321e+08"}) || !slices.Equal(ds.X, []float32{0.1, 0.2}) {
			t.Errorf("ids %q, X %v", ds.IDs, ds.X)
		}
	})
	t.Run("WriteAppended copies a matrix exactly", func(t *testing.T) {
		dst := filepath.Join(t.TempDir(), "out.csv")
		if err := WriteAppended(x, LoadOptions{}, dst, []Appended{{Name: "s", Values: []float64{1, 2}}}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(dst)
		if err != nil {
			t.Fatal(err)
		}
		if want := "x1,x2,s\n1.23456789e+08,0.1,1\n9.87654321e+08,0.2,2\n"; string(b) != want {
			t.Errorf("wrote %q, want %q", b, want)
		}
	})
}

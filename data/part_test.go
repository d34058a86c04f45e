package data

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestLoadPart reads a table whole and as 3 parts, for a C-order NPY file and a CSV file
// (each read from its blocks' bytes) and a Fortran-order NPY one (read whole, then cut):
// the parts, one after the other, are the whole table's rows, labels and ids.
func TestLoadPart(t *testing.T) {
	const n, d = 10, 3
	var raw, rawF []byte
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(float32(i*10+j)))
		}
	}
	for j := 0; j < d; j++ {
		for i := 0; i < n; i++ {
			rawF = binary.LittleEndian.AppendUint32(rawF, math.Float32bits(float32(i*10+j)))
		}
	}
	var csv strings.Builder
	csv.WriteString("id,a,b,c,y\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&csv, "r%d,%d,%d,%d,%d\n", i, i*10, i*10+1, i*10+2, i%2)
	}
	for _, c := range []struct {
		name string
		path string
		opts LoadOptions
	}{
		{"npy", writeTemp(t, "c.npy", npyBytes("<f4", false, []int{n, d}, raw)), LoadOptions{}},
		{"npy fortran", writeTemp(t, "f.npy", npyBytes("<f4", true, []int{n, d}, rawF)), LoadOptions{}},
		{"csv", writeTemp(t, "t.csv", []byte(csv.String())), LoadOptions{LabelColumn: "y", Selection: Selection{ID: "id"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			whole, err := Load(c.path, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			var x []float32
			var y []int
			var ids []string
			for p := 0; p < 3; p++ {
				o := c.opts
				o.Part = Part{Index: p, Of: 3}
				ds, err := Load(c.path, o)
				if err != nil {
					t.Fatal(err)
				}
				if c.name != "npy fortran" && !ds.partCut {
					t.Errorf("part %d: read whole, not from the block's bytes", p)
				}
				if want := (p+1)*n/3 - p*n/3; ds.N != want {
					t.Errorf("part %d: %d rows, want %d", p, ds.N, want)
				}
				x, y, ids = append(x, ds.X...), append(y, ds.Y...), append(ids, ds.IDs...)
			}
			if !slices.Equal(x, whole.X) || !slices.Equal(y, whole.Y) || !slices.Equal(ids, whole.IDs) {
				t.Errorf("the parts' rows %v %v %v are not the whole table's %v %v %v", x, y, ids, whole.X, whole.Y, whole.IDs)
			}
		})
	}
}

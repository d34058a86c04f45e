package data

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWriteAppended checks every source and destination: the source's columns come
// back as they were, text included, with score, rank and label after them.
func TestWriteAppended(t *testing.T) {
	csvPath := writeTemp(t, "in.csv", []byte("name,a,when,kind\nx,1.5,0,k\ny,-2,1,\n"))
	pqPath := writeParquet(t, []withText{{"x", 1.5, 0, "k"}, {"y", -2, 1, ""}})
	cols := []Appended{
		{Name: "score", Values: []float64{0.25, 3}},
		{Name: "rank", Values: []float64{1, 2}, Integer: true},
		{Name: "label", Values: []float64{0, math.NaN()}, Integer: true},
	}
	opts := LoadOptions{}
	for _, src := range []string{csvPath, pqPath} {
		for _, ext := range []string{".csv", ".parquet"} {
			t.Run(filepath.Ext(src)+" to "+ext, func(t *testing.T) {
				dst := filepath.Join(t.TempDir(), "out"+ext)
				if err := WriteAppended(src, opts, dst, cols); err != nil {
					t.Fatal(err)
				}
				ds, err := Load(dst, LoadOptions{Selection: Selection{ID: "name", Columns: []string{"a", "score", "rank"}}})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(ds.X, f32([]float64{1.5, 0.25, 1, -2, 3, 2})) || !slices.Equal(ds.IDs, []string{"x", "y"}) {
					t.Errorf("X %v ids %q", ds.X, ds.IDs)
				}
				if ext == ".csv" {
					b, _ := os.ReadFile(dst)
					if lines := strings.Split(string(b), "\n"); !strings.HasSuffix(lines[0], ",score,rank,label") ||
						!strings.HasSuffix(lines[2], ",3,2,") {
						t.Errorf("CSV %q", b)
					}
				}
			})
		}
	}
	t.Run("npy to csv", func(t *testing.T) {
		src := writeBig(t, t.TempDir(), 2, 2)["npy"]
		dst := filepath.Join(t.TempDir(), "out.csv")
		if err := WriteAppended(src, opts, dst, cols); err != nil {
			t.Fatal(err)
		}
		ds, err := Load(dst, LoadOptions{Selection: Selection{Drop: []string{"label"}}})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ds.Features, []string{"x1", "x2", "score", "rank"}) {
			t.Errorf("features %q", ds.Features)
		}
	})
	t.Run("a name taken", func(t *testing.T) {
		taken := []Appended{{Name: "a", Values: []float64{1, 2}}}
		if err := WriteAppended(csvPath, opts, filepath.Join(t.TempDir(), "o.csv"), taken); !errors.Is(err, ErrOptions) {
			t.Errorf("error %v, want ErrOptions", err)
		}
	})
	t.Run("a row count that differs", func(t *testing.T) {
		short := []Appended{{Name: "s", Values: []float64{1}}}
		dst := filepath.Join(t.TempDir(), "o.parquet")
		if err := WriteAppended(pqPath, opts, dst, short); !errors.Is(err, errLengthMismatch) {
			t.Errorf("error %v, want errLengthMismatch", err)
		}
		if _, err := os.Stat(dst); err == nil {
			t.Error("a failed write left its file")
		}
	})
}

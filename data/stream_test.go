package data

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestLoadFromPipe reads a CSV and an NPY file through a named pipe, which the streaming
// readers cannot stat for a size nor read twice: they read it whole, as a file.
func TestLoadFromPipe(t *testing.T) {
	var npy []byte
	for _, v := range []float64{1, 2.5, -3, 4} {
		npy = binary.LittleEndian.AppendUint64(npy, math.Float64bits(v))
	}
	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"t.csv", []byte("a,b\n1,2.5\n-3,4\n")},
		{"t.npy", npyBytes("<f8", false, []int{2, 2}, npy)},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.name)
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Skipf("no named pipes here: %v", err)
			}
			go func() {
				f, err := os.OpenFile(path, os.O_WRONLY, 0)
				if err != nil {
					return
				}
				f.Write(c.b)
				f.Close()
			}()
			ds, err := Load(path, LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ds.X, []float32{1, 2.5, -3, 4}) {
				t.Errorf("read %v", ds.X)
			}
		})
	}
}

// TestReadCSV checks that ReadCSV reads from an io.Reader the table Load reads from a
// file of the same bytes, and that LoadOptions' zero value reads no label: a plain
// numeric table keeps its first column as a feature (it was once taken as the label).
func TestReadCSV(t *testing.T) {
	for _, c := range []struct {
		name, text string
		opts       LoadOptions
		d          int
		labels     bool
	}{
		{"plain numbers, zero options", "1,2\n3,4\n5,6\n", LoadOptions{}, 2, false},
		{"header, zero options", "a,b\n1,2\n3,4\n", LoadOptions{}, 2, false},
		{"label by number", "a,y\n1,0\n3,1\n", LoadOptions{LabelNumber: 2}, 1, true},
		{"label by name, tabs", "y\ta\n0\t1\n1\t3\n", LoadOptions{LabelColumn: "y"}, 1, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ReadCSV(strings.NewReader(c.text), c.opts)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "t.csv")
			if err := os.WriteFile(path, []byte(c.text), 0o600); err != nil {
				t.Fatal(err)
			}
			want, err := Load(path, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got.D != c.d || (got.Y != nil) != c.labels || got.N != want.N || got.D != want.D ||
				!slices.Equal(got.X, want.X) || !slices.Equal(got.Y, want.Y) || !slices.Equal(got.Features, want.Features) {
				t.Errorf("ReadCSV: %d x %d, features %v, X %v, y %v; Load: %d x %d, features %v, X %v, y %v; want %d columns, labels %v",
					got.N, got.D, got.Features, got.X, got.Y, want.N, want.D, want.Features, want.X, want.Y, c.d, c.labels)
			}
		})
	}
	if _, err := ReadCSV(strings.NewReader("1,2\n3,x\n"), LoadOptions{}); err == nil || !strings.Contains(err.Error(), "data: csv stream: line 2") {
		t.Errorf("a text cell: %v, want an error naming the stream and line 2", err)
	}
	if _, err := ReadCSV(strings.NewReader("1,2\n"), LoadOptions{Format: "parquet"}); !errors.Is(err, ErrOptions) {
		t.Errorf("format parquet: %v, want ErrOptions", err)
	}
}

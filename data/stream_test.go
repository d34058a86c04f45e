package data

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
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

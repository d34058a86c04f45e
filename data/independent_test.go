package data

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestIndependentWriters reads files that SciPy and NumPy wrote (made by
// testdata/gen.py with Debian bookworm's python3-scipy 1.10.1 and
// python3-numpy 1.24.2), so the readers are checked against writers other
// than this package's own.
func TestIndependentWriters(t *testing.T) {
	// X = (arange(12).reshape(3, 4) - 5) / 4 in gen.py, row-major.
	x := []float64{-1.25, -1, -0.75, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, 1.25, 1.5}
	x4 := make([]float64, len(x))
	for i, v := range x {
		x4[i] = 4 * v
	}
	tests := []struct {
		file  string
		wantX []float64
	}{
		{"scipy_plain.mat5", x},     // uncompressed, double X, uint8 y
		{"scipy_zlib.mat5", x4},     // zlib, int16 X, 1×3 double y, a char and a struct to skip
		{"numpy_fortran_f4.npy", x}, // Fortran order, float32, no labels
		{"numpy_int.npz", x4},       // savez: int64 X, bool y
		{"numpy_f8.npz", x},         // savez_compressed: float64 X, (3, 1) y
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			name := strings.TrimSuffix(tc.file, "5") // *.mat5 → *.mat, see gen.py
			ds, err := Load(writeTemp(t, name, b), LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if ds.N != 3 || ds.D != 4 || !slices.Equal(ds.X, f32(tc.wantX)) {
				t.Errorf("%d×%d %v, want 3×4 %v", ds.N, ds.D, ds.X, tc.wantX)
			}
			wantY := []int{0, 1, 0}
			if filepath.Ext(tc.file) == ".npy" {
				wantY = nil
			}
			if !slices.Equal(ds.Y, wantY) {
				t.Errorf("labels %v, want %v", ds.Y, wantY)
			}
		})
	}
}

package torch

import (
	"math"
	"path/filepath"
	"slices"
	"testing"
)

// TestReconstruction checks the autoencoder's reconstruction errors: pretraining lowers
// them, the error of the group's own rows equals the error of the same rows passed as new
// rows, every value is finite and >= 0, a saved and loaded autoencoder gives the same
// errors, and a group without a decoder refuses.
func TestReconstruction(t *testing.T) {
	const n, d, k = 300, 6, 2
	x := synth(n, d, 11)
	g, err := NewGroup([]int{d, 16, 8, 4}, k, true, "cpu", []uint64{1, 2})
	must(t, err)
	defer g.Close()
	must(t, g.SetData(x, n, d))
	before, err := g.Reconstruction()
	must(t, err)
	must(t, g.ResetAdam(Autoencoder, []float64{1e-2, 1e-2}, []float64{0, 0}))
	for e := 0; e < 30; e++ {
		if _, err := g.PretrainEpoch(fullPlan(k, n, 64)); err != nil {
			t.Fatal(err)
		}
	}
	after, err := g.Reconstruction()
	must(t, err)
	if len(after) != k*n {
		t.Fatalf("%d errors, want %d", len(after), k*n)
	}
	for m := 0; m < k; m++ {
		var b, a float64
		for i := 0; i < n; i++ {
			v := after[m*n+i]
			if !(v >= 0) || math.IsInf(float64(v), 0) {
				t.Fatalf("member %d row %d: error %v", m, i, v)
			}
			b += float64(before[m*n+i])
			a += float64(v)
		}
		if !(a < 0.8*b) {
			t.Errorf("member %d: mean error %.4f after pretraining, %.4f before: want a clear fall", m, a/n, b/n)
		}
	}
	of, err := g.ReconstructionOf(x, n, d)
	must(t, err)
	for i := range of {
		if math.Abs(float64(of[i]-after[i])) > 1e-5*(1+math.Abs(float64(after[i]))) {
			t.Fatalf("value %d: %v as new rows, %v as the group's rows", i, of[i], after[i])
		}
	}
	path := filepath.Join(t.TempDir(), "ae.pt")
	must(t, g.Save(1, path))
	l, err := Load(path, "cpu")
	must(t, err)
	defer l.Close()
	got, err := l.ReconstructionOf(x, n, d)
	must(t, err)
	for i := 0; i < n; i++ {
		if got[i] != of[n+i] {
			t.Fatalf("row %d: %v after load, %v before", i, got[i], of[n+i])
		}
	}
	if _, err := l.ReconstructionOf(x[:d*2], 2, d-1); err == nil {
		t.Error("a wrong column count scored")
	}
	enc, err := g.Derive([]int{0})
	must(t, err)
	defer enc.Close()
	if _, err := enc.Reconstruction(); err == nil {
		t.Error("a group without a decoder gave reconstruction errors")
	}
}

// TestReconstructionTo checks that one member's reconstruction errors are its part of
// every member's, to the bit, on the fast path and on the libtorch path, and what
// ReconstructionTo refuses.
func TestReconstructionTo(t *testing.T) {
	const n, d = 1500, 4
	x := synth(n, d, 12)
	for _, reference := range []bool{false, true} {
		g, err := NewGroup([]int{d, 6, 3}, 3, true, "cpu", []uint64{4, 5, 6})
		must(t, err)
		defer g.Close()
		g.SetReference(reference)
		must(t, g.SetData(x, n, d))
		all, err := g.Reconstruction()
		must(t, err)
		one := make([]float32, n)
		for k := 0; k < 3; k++ {
			must(t, g.ReconstructionTo(k, one))
			if !slices.Equal(one, all[k*n:(k+1)*n]) {
				t.Errorf("reference %v: member %d's errors differ from its part of every member's", reference, k)
			}
		}
		for _, bad := range []struct {
			k   int
			out []float32
		}{{-1, one}, {3, one}, {0, one[:n-1]}} {
			if err := g.ReconstructionTo(bad.k, bad.out); err == nil {
				t.Errorf("member %d into %d values: accepted", bad.k, len(bad.out))
			}
		}
	}
}

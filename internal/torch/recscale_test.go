package torch

import (
	"math"
	"path/filepath"
	"testing"
)

// TestReconstructionScale checks ResidualsOf and SetReconstructionScale on a trained
// autoencoder group (its weights views into Adam's buffer), on the fast path and on the
// libtorch path (and on CUDA where a device is visible): the plain errors are ‖e‖²/d of
// the residuals; after setting a center and scales every reconstruction entry point gives
// (1/d) Σ_j log(1 + ((e_j − m_j) / s_j)²) of the same residuals; a saved and loaded member
// scores as the group; clearing restores the plain errors bit for bit; bad scales are
// refused and leave the group as it was.
func TestReconstructionScale(t *testing.T) {
	for _, cs := range places() {
		ref := cs.ref
		const n, d, k = 200, 4, 2
		x := synth(n, d, 22)
		g := pretrained(t, cs, x, n, []int{d, 8, 3}, []uint64{5, 6})

		res, err := g.ResidualsOf(x, n, d)
		must(t, err)
		if len(res) != k*n*d {
			t.Fatalf("reference %v: %d residuals, want %d", ref, len(res), k*n*d)
		}
		errs := func(center, scale []float32) []float64 {
			out := make([]float64, k*n)
			for m := 0; m < k; m++ {
				for i := 0; i < n; i++ {
					for j := 0; j < d; j++ {
						e := float64(res[(m*n+i)*d+j])
						if scale == nil {
							out[m*n+i] += e * e / d
							continue
						}
						z := (e - float64(center[m*d+j])) / float64(scale[m*d+j])
						out[m*n+i] += math.Log1p(z*z) / d
					}
				}
			}
			return out
		}
		close := func(what string, got []float32, want []float64) {
			t.Helper()
			for i, w := range want {
				if math.Abs(float64(got[i])-w) > 1e-4*(1+math.Abs(w)) {
					t.Fatalf("reference %v: %s %d: %v, want %v", ref, what, i, got[i], w)
				}
			}
		}
		plain, err := g.ReconstructionOf(x, n, d)
		must(t, err)
		close("plain error", plain, errs(nil, nil))

		center := []float32{0.1, -0.2, 0, 0.3, -0.1, 0, 0.05, 0.2}
		scale := []float32{0.5, 2, 0.25, 1, 1, 0.1, 3, 0.7}
		for _, bad := range []struct{ c, s []float32 }{
			{center, nil}, {nil, scale}, {center[:4], scale[:4]},
			{center, []float32{0.5, 2, 0, 1, 1, 0.1, 3, 0.7}},
			{center, []float32{0.5, 2, 0.25, 1, -1, 0.1, 3, 0.7}},
			{center, []float32{0.5, 2, 0.25, 1, 1, float32(math.Inf(1)), 3, 0.7}},
			{[]float32{0.1, -0.2, 0, float32(math.NaN()), -0.1, 0, 0.05, 0.2}, scale},
		} {
			if err := g.SetReconstructionScale(bad.c, bad.s); err == nil {
				t.Errorf("reference %v: center %v, scale %v accepted", ref, bad.c, bad.s)
			}
		}
		same, err := g.ReconstructionOf(x, n, d)
		must(t, err)
		for i := range same {
			if same[i] != plain[i] {
				t.Fatalf("reference %v: error %d: %v after refused scales, %v before", ref, i, same[i], plain[i])
			}
		}

		must(t, g.SetReconstructionScale(center, scale))
		want := errs(center, scale)
		of, err := g.ReconstructionOf(x, n, d)
		must(t, err)
		close("robust error", of, want)
		own, err := g.Reconstruction() // the group's own rows: the fast path's table, or X
		must(t, err)
		close("robust error of the group's rows", own, want)
		one := make([]float32, n)
		must(t, g.ReconstructionTo(1, one))
		close("robust error of member 1", one, want[n:])
		again, err := g.ResidualsOf(x, n, d)
		must(t, err)
		for i := range again {
			if again[i] != res[i] {
				t.Fatalf("reference %v: residual %d: %v after scaling, %v before", ref, i, again[i], res[i])
			}
		}

		path := filepath.Join(t.TempDir(), "m.pt")
		must(t, g.Save(1, path))
		l, err := Load(path, cs.device)
		must(t, err)
		l.SetReference(ref)
		got, err := l.ReconstructionOf(x, n, d)
		l.Close()
		must(t, err)
		// The loaded member is a group of one where it was one of two (sameFloat32).
		for i := 0; i < n; i++ {
			if !sameFloat32(got[i], of[n+i]) {
				t.Fatalf("reference %v: row %d: %v after load, %v before", ref, i, got[i], of[n+i])
			}
		}

		must(t, g.SetReconstructionScale(nil, nil))
		back, err := g.ReconstructionOf(x, n, d)
		must(t, err)
		for i := range back {
			if back[i] != plain[i] {
				t.Fatalf("reference %v: error %d: %v after clearing, %v before scaling", ref, i, back[i], plain[i])
			}
		}
		must(t, g.Save(0, path))
		l, err = Load(path, cs.device)
		must(t, err)
		l.SetReference(ref)
		got, err = l.ReconstructionOf(x, n, d)
		l.Close()
		must(t, err)
		for i := 0; i < n; i++ {
			if !sameFloat32(got[i], plain[i]) { // one member of two before, a group of one now
				t.Fatalf("reference %v: row %d: %v after a plain save and load, %v before", ref, i, got[i], plain[i])
			}
		}
	}

	enc, err := NewGroup([]int{3, 4, 2}, 1, false, "cpu", []uint64{1})
	must(t, err)
	defer enc.Close()
	if err := enc.SetReconstructionScale([]float32{0, 0, 0}, []float32{1, 1, 1}); err == nil {
		t.Error("a reconstruction scale accepted by a group without a decoder")
	}
	if _, err := enc.ResidualsOf([]float32{1, 2, 3}, 1, 3); err == nil {
		t.Error("residuals from a group without a decoder")
	}
}

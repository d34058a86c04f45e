package torch

import (
	"math"
	"path/filepath"
	"testing"
)

// TestStandardiseOutput checks EmbeddingsOf and StandardiseOutput on a trained group (its weights
// views into Adam's buffer), on the fast path and on the libtorch path (and on CUDA
// where a device is visible): the distances
// are Σ_j (φ_j − c_j)² of the embeddings before, and Σ_j ((φ_j − c_j) / s_j)² after; the
// embeddings and the center are divided by s; a saved and loaded member scores as the
// scaled group; bad scales are refused and leave the group as it was.
func TestStandardiseOutput(t *testing.T) {
	for _, cs := range places() {
		ref := cs.ref
		const n, d, k, rep = 200, 5, 2, 3
		x := synth(n, d, 21)
		g := pretrained(t, cs, x, n, []int{d, 8, rep}, []uint64{3, 4})
		must(t, g.InitCenter(0.1))
		must(t, g.ResetAdam(Encoder, []float64{1e-3, 1e-3}, []float64{1e-6, 1e-6}))
		obj := Objective{Soft: []uint8{0, 0}, Nu: []float64{0, 0}, UpdateR: []uint8{0, 0}}
		_, err := g.TrainEpoch(fullPlan(k, n, 64), obj, nil)
		must(t, err)

		emb, err := g.EmbeddingsOf(x, n, d)
		must(t, err)
		if len(emb) != k*n*rep {
			t.Fatalf("reference %v: %d embeddings, want %d", ref, len(emb), k*n*rep)
		}
		c, err := g.Center()
		must(t, err)
		dist := func(s []float32) []float64 {
			out := make([]float64, k*n)
			for m := 0; m < k; m++ {
				for i := 0; i < n; i++ {
					for j := 0; j < rep; j++ {
						v := float64(emb[(m*n+i)*rep+j]-c[m*rep+j]) / float64(s[m*rep+j])
						out[m*n+i] += v * v
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
		ones := []float32{1, 1, 1, 1, 1, 1}
		before, err := g.DistancesOf(x, n, d)
		must(t, err)
		close("distance before scaling", before, dist(ones))

		for _, bad := range [][]float32{{1, 1, 1}, {1, 0, 1, 1, 1, 1}, {1, 1, float32(math.Inf(1)), 1, 1, 1}, {1, 1, 1, 1, -2, 1}} {
			if err := g.StandardiseOutput(nil, bad); err == nil {
				t.Errorf("reference %v: scales %v accepted", ref, bad)
			}
		}
		for _, bad := range [][]float32{{0, 0, 0}, {0, 0, float32(math.NaN()), 0, 0, 0}} {
			if err := g.StandardiseOutput(bad, ones); err == nil {
				t.Errorf("reference %v: center %v accepted", ref, bad)
			}
		}
		same, err := g.DistancesOf(x, n, d)
		must(t, err)
		close("distance after refused scales", same, dist(ones))

		s := []float32{0.5, 2, 0.25, 4, 1, 0.1}
		must(t, g.StandardiseOutput(nil, s))
		after, err := g.DistancesOf(x, n, d)
		must(t, err)
		close("scaled distance", after, dist(s))
		own, err := g.Distances() // the group's own rows: the fast path's table, or X
		must(t, err)
		close("scaled distance of the group's rows", own, dist(s))
		emb2, err := g.EmbeddingsOf(x, n, d)
		must(t, err)
		want := make([]float64, len(emb))
		for i, v := range emb {
			want[i] = float64(v) / float64(s[i%(rep*k)%rep+(i/(n*rep))*rep])
		}
		close("scaled embedding", emb2, want)
		c2, err := g.Center()
		must(t, err)
		for i := range c {
			if math.Abs(float64(c2[i])-float64(c[i])/float64(s[i])) > 1e-6*(1+math.Abs(float64(c[i]))) {
				t.Fatalf("reference %v: center %d: %v, want %v", ref, i, c2[i], c[i]/s[i])
			}
		}

		// A new center, in the scaled coordinates' units before this second scaling.
		center := []float32{0.3, -1, 2, 0, 0.5, -0.25}
		s2 := []float32{2, 1, 0.5, 1, 4, 1}
		must(t, g.StandardiseOutput(center, s2))
		for i := range emb {
			emb[i] = emb2[i]
		}
		copy(c, center)
		after, err = g.DistancesOf(x, n, d)
		must(t, err)
		close("distance about a new center", after, dist(s2))
		c3, err := g.Center()
		must(t, err)
		for i := range c3 {
			if math.Abs(float64(c3[i])-float64(center[i])/float64(s2[i])) > 1e-6 {
				t.Fatalf("reference %v: center %d: %v, want %v", ref, i, c3[i], center[i]/s2[i])
			}
		}

		path := filepath.Join(t.TempDir(), "m.pt")
		must(t, g.Save(1, path))
		l, err := Load(path, cs.device)
		must(t, err)
		l.SetReference(ref) // the same path as before the save: the same shape of work
		got, err := l.DistancesOf(x, n, d)
		l.Close()
		must(t, err)
		// The loaded member is a group of one where it was one of three (sameFloat32).
		for i := 0; i < n; i++ {
			if !sameFloat32(got[i], after[n+i]) {
				t.Fatalf("reference %v: row %d: %v after load, %v before", ref, i, got[i], after[n+i])
			}
		}
	}
}

// place is where a test runs a group: a device and, on the CPU, the libtorch path (ref)
// or the fast path.
type place struct {
	device string
	ref    bool
}

// places are the CPU's two paths, and CUDA where a device is visible.
func places() []place {
	out := []place{{"cpu", false}, {"cpu", true}}
	if CUDACompiled() && CUDADeviceCount() > 0 {
		out = append(out, place{"cuda", false})
	}
	return out
}

// pretrained is a group of one member per seed with layer sizes sizes and a decoder, on
// place p, given the n rows x and pretrained for 3 autoencoder epochs at lr 1e-2 (so that
// its weights are views into Adam's buffer); the test closes it.
func pretrained(t *testing.T, p place, x []float32, n int, sizes []int, seeds []uint64) *Group {
	t.Helper()
	k, d := len(seeds), sizes[0]
	g, err := NewGroup(sizes, k, true, p.device, seeds)
	must(t, err)
	t.Cleanup(g.Close)
	g.SetReference(p.ref)
	must(t, g.SetData(x, n, d))
	lr, wd := make([]float64, k), make([]float64, k)
	for i := range lr {
		lr[i] = 1e-2
	}
	must(t, g.ResetAdam(Autoencoder, lr, wd))
	for e := 0; e < 3; e++ {
		_, err := g.PretrainEpoch(fullPlan(k, n, 64))
		must(t, err)
	}
	return g
}

// sameFloat32 reports whether a and b agree to 2e-6 (1 + |a|): what a group of one
// member may differ from the same member among others, where a GEMM blocks a product of
// another width differently. Measured with oneDNN's sgemm in PyTorch 2.11's wheel on an
// Intel Xeon: 4.3e-7 on a distance of 0.157 (a small squared distance loses its relative
// digits to cancellation), 6e-7 relative on larger ones; bit-identical with Debian's
// libtorch 1.13 on the AMD host.
func sameFloat32(a, b float32) bool {
	return math.Abs(float64(a)-float64(b)) <= 2e-6*(1+math.Max(math.Abs(float64(a)), math.Abs(float64(b))))
}

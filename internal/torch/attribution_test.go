package torch

import (
	"math"
	"strings"
	"testing"
)

// TestAttributionsGradient checks the distance attributions against the distances: with
// the path point 1 and the baseline 0 they are x_j · ∂D/∂x_j, whose gradient agrees with a
// central finite difference of DistancesOf; integrated along the path from a baseline row
// with many points they sum to D(x) − D(b). Each member's attributions are its own. On the
// CPU's two paths, and CUDA where visible.
func TestAttributionsGradient(t *testing.T) {
	const n, d, m = 200, 5, 6
	x := synth(n, d, 21)
	for _, p := range places() {
		t.Run(p.device+map[bool]string{true: "-reference", false: ""}[p.ref], func(t *testing.T) {
			g := pretrained(t, p, x, n, []int{d, 8, 4}, []uint64{4, 5})
			must(t, g.InitCenter(0.1))
			rows := x[:m*d]
			zero := make([]float32, d)
			att, err := g.AttributionsOf(rows, m, d, zero, []float32{1}, DistancePart)
			must(t, err)
			const h = 1e-2
			shifted := make([]float32, 2*m*d*d) // row i with feature j moved by +h, then by -h
			for i := 0; i < m; i++ {
				for j := 0; j < d; j++ {
					for s, sign := range []float32{1, -1} {
						r := shifted[((s*m+i)*d+j)*d:][:d]
						copy(r, rows[i*d:(i+1)*d])
						r[j] += sign * h
					}
				}
			}
			dist, err := g.DistancesOf(shifted, 2*m*d, d)
			must(t, err)
			for k := 0; k < 2; k++ {
				for i := 0; i < m; i++ {
					for j := 0; j < d; j++ {
						xj := float64(rows[i*d+j])
						if math.Abs(xj) < 0.05 {
							continue // the gradient is not recoverable from x_j · gradient
						}
						plus := float64(dist[k*2*m*d+i*d+j])
						minus := float64(dist[k*2*m*d+(m+i)*d+j])
						fd := (plus - minus) / (2 * h)
						grad := float64(att[(k*m+i)*d+j]) / xj
						if math.Abs(grad-fd) > 2e-2*(1+math.Abs(fd)) {
							t.Errorf("member %d row %d feature %d: gradient %.5g, finite difference %.5g", k, i, j, grad, fd)
						}
					}
				}
			}

			const steps = 256
			alphas := make([]float32, steps)
			for s := range alphas {
				alphas[s] = (float32(s) + 0.5) / steps
			}
			base := x[(n-1)*d : n*d]
			ig, err := g.AttributionsOf(rows, m, d, base, alphas, DistancePart)
			must(t, err)
			dx, err := g.DistancesOf(rows, m, d)
			must(t, err)
			db, err := g.DistancesOf(base, 1, d)
			must(t, err)
			for k := 0; k < 2; k++ {
				for i := 0; i < m; i++ {
					sum := 0.0
					for j := 0; j < d; j++ {
						sum += float64(ig[(k*m+i)*d+j])
					}
					want := float64(dx[k*m+i]) - float64(db[k])
					if math.Abs(sum-want) > 1e-2*(1+math.Abs(want)) {
						t.Errorf("member %d row %d: attributions sum to %.5g, D(x) − D(b) is %.5g", k, i, sum, want)
					}
				}
			}
		})
	}
}

// TestAttributionsReconstruction checks that the reconstruction attributions sum to the
// error of the row less that of the baseline, for the squared error and for the robust
// one, on the CPU's two paths and CUDA where visible.
func TestAttributionsReconstruction(t *testing.T) {
	const n, d, m = 200, 5, 7
	x := synth(n, d, 22)
	for _, p := range places() {
		t.Run(p.device+map[bool]string{true: "-reference", false: ""}[p.ref], func(t *testing.T) {
			g := pretrained(t, p, x, n, []int{d, 8, 3}, []uint64{6, 7})
			rows, base := x[:m*d], x[(n-1)*d:n*d]
			check := func(name string) {
				att, err := g.AttributionsOf(rows, m, d, base, nil, ReconstructionPart)
				must(t, err)
				rx, err := g.ReconstructionOf(rows, m, d)
				must(t, err)
				rb, err := g.ReconstructionOf(base, 1, d)
				must(t, err)
				for k := 0; k < 2; k++ {
					for i := 0; i < m; i++ {
						sum := 0.0
						for j := 0; j < d; j++ {
							sum += float64(att[(k*m+i)*d+j])
						}
						want := float64(rx[k*m+i]) - float64(rb[k])
						if math.Abs(sum-want) > 1e-5*(1+math.Abs(float64(rx[k*m+i]))) {
							t.Errorf("%s: member %d row %d: attributions sum to %.7g, r(x) − r(b) is %.7g", name, k, i, sum, want)
						}
					}
				}
			}
			check("squared")
			center, scale := make([]float32, 2*d), make([]float32, 2*d)
			for i := range scale {
				center[i], scale[i] = 0.01*float32(i), 0.2+0.05*float32(i)
			}
			must(t, g.SetReconstructionScale(center, scale))
			check("robust")
		})
	}
}

// TestAttributionsRefused checks what the shim and its wrapper refuse: an output buffer
// of the wrong length (the shim checks it), a baseline of the wrong width, no path
// points, a path point outside [0, 1], an unknown part, the reconstruction of a group
// without a decoder, a closed group.
func TestAttributionsRefused(t *testing.T) {
	const n, d = 50, 4
	x := synth(n, d, 23)
	g := pretrained(t, place{"cpu", false}, x, n, []int{d, 6, 3}, []uint64{1})
	zero := make([]float32, d)
	enc, err := g.Derive([]int{0})
	must(t, err)
	defer enc.Close()
	cases := []struct {
		name string
		run  func() error
		want string
	}{
		{"short buffer", func() error {
			return g.AttributionsTo(make([]float32, 2*d-1), x[:2*d], 2, d, zero, []float32{1}, DistancePart)
		}, "need 8 floats"},
		{"long buffer", func() error {
			return g.AttributionsTo(make([]float32, 2*d+1), x[:2*d], 2, d, zero, nil, ReconstructionPart)
		}, "the buffer has 9"},
		{"baseline width", func() error {
			_, err := g.AttributionsOf(x[:2*d], 2, d, zero[:d-1], []float32{1}, DistancePart)
			return err
		}, "baseline"},
		{"no path points", func() error {
			_, err := g.AttributionsOf(x[:2*d], 2, d, zero, nil, DistancePart)
			return err
		}, "path point"},
		{"path point outside", func() error {
			_, err := g.AttributionsOf(x[:2*d], 2, d, zero, []float32{0.5, 1.5}, DistancePart)
			return err
		}, "not in [0, 1]"},
		{"unknown part", func() error {
			_, err := g.AttributionsOf(x[:2*d], 2, d, zero, []float32{1}, Part(4))
			return err
		}, "attribution part 4"},
		{"no decoder", func() error {
			_, err := enc.AttributionsOf(x[:2*d], 2, d, zero, nil, ReconstructionPart)
			return err
		}, "no decoder"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.run()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one saying %q", err, c.want)
			}
		})
	}
	g.Close()
	if _, err := g.AttributionsOf(x[:d], 1, d, zero, []float32{1}, DistancePart); err != ErrClosed {
		t.Errorf("a closed group: error %v, want ErrClosed", err)
	}
}

// TestAttributionsOcclusion checks the occlusion parts against the scores of the rows
// with one feature set to the baseline's, scored by DistancesOf and ReconstructionOf.
func TestAttributionsOcclusion(t *testing.T) {
	const n, d, m = 200, 5, 4
	x := synth(n, d, 24)
	for _, p := range places() {
		t.Run(p.device+map[bool]string{true: "-reference", false: ""}[p.ref], func(t *testing.T) {
			g := pretrained(t, p, x, n, []int{d, 8, 3}, []uint64{8, 9})
			must(t, g.InitCenter(0.1))
			rows, base := x[:m*d], x[(n-1)*d:n*d]
			occluded := make([]float32, 0, m*d*d) // row i with feature j set to the baseline's
			for i := 0; i < m; i++ {
				for j := 0; j < d; j++ {
					r := append([]float32(nil), rows[i*d:(i+1)*d]...)
					r[j] = base[j]
					occluded = append(occluded, r...)
				}
			}
			for _, c := range []struct {
				part  Part
				score func(x []float32, m, d int) ([]float32, error)
			}{{DistanceOcclusion, g.DistancesOf}, {ReconstructionOcclusion, g.ReconstructionOf}} {
				att, err := g.AttributionsOf(rows, m, d, base, nil, c.part)
				must(t, err)
				full, err := c.score(rows, m, d)
				must(t, err)
				part, err := c.score(occluded, m*d, d)
				must(t, err)
				for k := 0; k < 2; k++ {
					for i := 0; i < m; i++ {
						for j := 0; j < d; j++ {
							want := float64(full[k*m+i]) - float64(part[k*m*d+i*d+j])
							got := float64(att[(k*m+i)*d+j])
							if math.Abs(got-want) > 1e-4*(1+math.Abs(float64(full[k*m+i]))) {
								t.Errorf("part %d, member %d, row %d, feature %d: %.6g, scores say %.6g", c.part, k, i, j, got, want)
							}
						}
					}
				}
			}
		})
	}
}

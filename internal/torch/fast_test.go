package torch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// fastTolerance bounds the relative difference between the fast path and the libtorch
// path after a few epochs: the same arithmetic in another order (sums over rows, the
// BatchNorm backward written out rather than derived by autograd) differs in float32
// rounding, which a few hundred Adam steps carry forward.
const fastTolerance = 2e-3

// maskedPlan is an epoch of k members over n rows in the style of the training loop's
// later epochs: member m trains on its own subset (a share of the rows that grows with
// m), in its own order, minibatches of size (so members end at different steps and sit
// the last ones out); with passengers, the rows left out ride along; with scoreOnly,
// member 0's second step only scores its rows.
func maskedPlan(r *rand.Rand, k, n, size int, passengers, scoreOnly bool) *Plan {
	type batch struct {
		rows  []int32
		train int
	}
	members := make([][]batch, k)
	steps, width := 0, 1
	for m := 0; m < k; m++ {
		var in, out []int32
		keep := 0.6 + 0.4*float64(m)/float64(max(k-1, 1))
		for i := 0; i < n; i++ {
			if r.Float64() < keep {
				in = append(in, int32(i))
			} else {
				out = append(out, int32(i))
			}
		}
		r.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
		var bs []batch
		for len(in) > 0 {
			c := min(size, len(in))
			if len(in)-c == 1 {
				c++
			}
			bs = append(bs, batch{rows: append([]int32(nil), in[:c]...), train: c})
			in = in[c:]
		}
		if passengers {
			for i, row := range out {
				bs[i%len(bs)].rows = append(bs[i%len(bs)].rows, row)
			}
		}
		for _, b := range bs {
			width = max(width, len(b.rows))
		}
		steps = max(steps, len(bs))
		members[m] = bs
	}
	p := &Plan{Steps: steps, Width: width, Rows: make([]int32, k*steps*width),
		Counts: make([]int32, k*steps), Train: make([]uint8, k*steps)}
	if passengers {
		p.Extra = make([]int32, k*steps)
	}
	for i := range p.Rows {
		p.Rows[i] = int32(n)
	}
	for m, bs := range members {
		for s, b := range bs {
			at := m*steps + s
			copy(p.Rows[at*width:], b.rows)
			p.Counts[at], p.Train[at] = int32(b.train), 1
			if passengers {
				p.Extra[at] = int32(len(b.rows) - b.train)
			}
		}
	}
	if scoreOnly && steps > 1 {
		p.Train[1] = 0
	}
	return p
}

// pathRun is everything a group hands back over a short fit, for comparing two paths.
type pathRun struct {
	preLoss, loss      []float64
	trainDist, dist    []float32
	recon, center, rad []float32
	params             map[string][]float32
}

// runPath pretrains and fine-tunes k members on the fast or the libtorch path with the
// same seeds and plans: member 1 (when there is one) uses the soft-boundary loss with R
// updated from its minibatches.
func runPath(t *testing.T, reference bool, k int, x []float32, n, d int) pathRun {
	t.Helper()
	return runPathOn(t, reference, k, n, d, func(g *Group) error { return g.SetData(x, n, d) })
}

// runPathOn is runPath with the group's n x d data given by set.
func runPathOn(t *testing.T, reference bool, k, n, d int, set func(g *Group) error) pathRun {
	t.Helper()
	sizes := []int{d, 16, 8, 4}
	seeds := make([]uint64, k)
	for i := range seeds {
		seeds[i] = uint64(20 + i)
	}
	g, err := NewGroup(sizes, k, true, "cpu", seeds)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	g.SetReference(reference)
	must(t, set(g))
	lr, wd := make([]float64, k), make([]float64, k)
	for i := range lr {
		lr[i], wd[i] = 1e-3*float64(i+1), 1e-6*float64(i)
	}
	must(t, g.ResetAdam(Autoencoder, lr, wd))
	var out pathRun
	r := rand.New(rand.NewPCG(1, 2))
	for e := 0; e < 3; e++ {
		l, err := g.PretrainEpoch(maskedPlan(r, k, n, 32, false, e == 1))
		must(t, err)
		out.preLoss = append(out.preLoss, l...)
	}
	out.recon, err = g.Reconstruction()
	must(t, err)
	ft, err := g.Derive(seqMembers(k))
	must(t, err)
	defer ft.Close()
	must(t, ft.InitCenter(0.1))
	must(t, ft.ResetAdam(Encoder, lr, wd))
	obj := Objective{Soft: make([]uint8, k), Nu: make([]float64, k), UpdateR: make([]uint8, k)}
	if k > 1 {
		obj.Soft[1], obj.Nu[1] = 1, 0.1
	}
	out.trainDist = make([]float32, k*n)
	for e := 0; e < 4; e++ {
		if k > 1 && e >= 1 {
			obj.UpdateR[1] = 1
		}
		l, err := ft.TrainEpoch(maskedPlan(r, k, n, 32, e >= 2, e == 3), obj, out.trainDist)
		must(t, err)
		out.loss = append(out.loss, l...)
	}
	if out.dist, err = ft.Distances(); err != nil {
		t.Fatal(err)
	}
	if out.center, err = ft.Center(); err != nil {
		t.Fatal(err)
	}
	if out.rad, err = ft.Radius(); err != nil {
		t.Fatal(err)
	}
	out.params = map[string][]float32{}
	for m := 0; m < k; m++ {
		for _, name := range []string{"enc.0.weight", "enc.0.running_mean", "enc.0.running_var",
			"enc.1.weight", "enc.1.running_mean", "enc.1.running_var", "enc.2.weight"} {
			v, err := ft.Param(m, name)
			must(t, err)
			out.params[fmt.Sprintf("member %d %s", m, name)] = v
		}
		for _, name := range []string{"dec.0.weight", "dec.1.running_var", "dec.2.weight"} {
			v, err := g.Param(m, name)
			must(t, err)
			out.params[fmt.Sprintf("member %d %s", m, name)] = v
		}
	}
	return out
}

func seqMembers(k int) []int {
	s := make([]int, k)
	for i := range s {
		s[i] = i
	}
	return s
}

// relDiff32 is the largest |a-b| / max(1e-3, |b|).
func relDiff32(a, b []float32) float64 {
	worst := 0.0
	for i := range b {
		worst = math.Max(worst, math.Abs(float64(a[i])-float64(b[i]))/math.Max(1e-3, math.Abs(float64(b[i]))))
	}
	return worst
}

// TestFastMatchesReference runs the same members, seeds and plans on the fast path and
// on the libtorch path, for one member and for three in lockstep (each on its own rows,
// sitting out steps the others take, one scoring a step without training, passengers,
// the soft-boundary loss with R moving, per-member learning rates and weight decays),
// and compares every number the shim hands back: losses, train- and eval-mode
// distances, reconstruction errors, centers, radii, weights and BatchNorm statistics.
func TestFastMatchesReference(t *testing.T) {
	n, d := 300, 6
	x := synth(n, d, 11)
	for _, k := range []int{1, 3} {
		t.Run(fmt.Sprintf("K=%d", k), func(t *testing.T) {
			fast := runPath(t, false, k, x, n, d)
			ref := runPath(t, true, k, x, n, d)
			check := func(name string, worst float64) {
				t.Logf("%s: largest relative difference %.2g", name, worst)
				if worst > fastTolerance || math.IsNaN(worst) {
					t.Errorf("%s: the fast path differs from the libtorch path by %.3g (relative), tolerance %g", name, worst, fastTolerance)
				}
			}
			for _, c := range []struct {
				name      string
				fast, ref []float64
			}{{"pretraining losses", fast.preLoss, ref.preLoss}, {"fine-tuning losses", fast.loss, ref.loss}} {
				worst := 0.0
				for i := range c.ref {
					worst = math.Max(worst, math.Abs(c.fast[i]-c.ref[i])/math.Max(1e-3, math.Abs(c.ref[i])))
				}
				check(c.name, worst)
			}
			for _, c := range []struct {
				name      string
				fast, ref []float32
			}{
				{"train-mode distances", fast.trainDist, ref.trainDist},
				{"eval-mode distances", fast.dist, ref.dist},
				{"reconstruction errors", fast.recon, ref.recon},
				{"centers", fast.center, ref.center},
				{"radii", fast.rad, ref.rad},
			} {
				check(c.name, relDiff32(c.fast, c.ref))
			}
			names := make([]string, 0, len(ref.params))
			for name := range ref.params {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				check(name, relDiff32(fast.params[name], ref.params[name]))
			}
			if k > 1 && ref.rad[1] <= 0 {
				t.Errorf("member 1's R never moved: %g", ref.rad[1])
			}
		})
	}
}

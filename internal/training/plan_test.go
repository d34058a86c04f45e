package training

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/udocc/udocc/internal/torch"
)

// simplePlan is the planner's obvious version (the one it replaced): fresh slices for
// every member's rows, minibatches and plan, every epoch.
func simplePlan(rngs []*rand.Rand, masks [][]bool, n, size int, passengers bool) *torch.Plan {
	type batches struct {
		rows  [][]int32
		train []int
	}
	ms := make([]batches, len(rngs))
	for k, r := range rngs {
		var in, out []int32
		for i := 0; i < n; i++ {
			if masks[k] == nil || masks[k][i] {
				in = append(in, int32(i))
			} else {
				out = append(out, int32(i))
			}
		}
		r.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
		start := 0
		for _, end := range chunkEnds(len(in), size, nil) {
			ms[k].rows = append(ms[k].rows, in[start:end:end])
			ms[k].train = append(ms[k].train, end-start)
			start = end
		}
		if passengers && len(ms[k].rows) > 0 {
			r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
			for i, row := range out {
				s := i % len(ms[k].rows)
				ms[k].rows[s] = append(ms[k].rows[s], row)
			}
		}
	}
	steps, width, extra := 0, 1, false
	for _, m := range ms {
		steps = max(steps, len(m.rows))
		for i, r := range m.rows {
			width = max(width, len(r))
			extra = extra || len(r) > m.train[i]
		}
	}
	k := len(ms)
	p := &torch.Plan{Steps: steps, Width: width, Rows: make([]int32, k*steps*width),
		Counts: make([]int32, k*steps), Train: make([]uint8, k*steps)}
	if extra {
		p.Extra = make([]int32, k*steps)
	}
	for i := range p.Rows {
		p.Rows[i] = int32(n)
	}
	for k, m := range ms {
		for s, r := range m.rows {
			at := k*steps + s
			copy(p.Rows[at*width:], r)
			p.Counts[at], p.Train[at] = int32(m.train[s]), 1
			if extra {
				p.Extra[at] = int32(len(r) - m.train[s])
			}
		}
	}
	return p
}

// TestPlannerMatchesSimple draws epochs of members with random masks (all rows, most,
// a few, two, none) with and without passengers from one reused planner and from the
// obvious version with the same generators: the plans are the same, epoch after epoch.
func TestPlannerMatchesSimple(t *testing.T) {
	for _, c := range []struct{ n, size, k int }{{10, 4, 1}, {300, 32, 3}, {1000, 128, 5}, {129, 128, 2}} {
		t.Run(fmt.Sprintf("n=%d,size=%d,K=%d", c.n, c.size, c.k), func(t *testing.T) {
			mr := rand.New(rand.NewPCG(uint64(c.n), 1))
			pl := newPlanner(c.n, c.size, c.k)
			a, b := make([]*rand.Rand, c.k), make([]*rand.Rand, c.k)
			for i := range a {
				a[i], b[i] = rand.New(rand.NewPCG(uint64(i), 2)), rand.New(rand.NewPCG(uint64(i), 2))
			}
			for e := 0; e < 8; e++ {
				masks := make([][]bool, c.k)
				for k := range masks {
					keep := []float64{1, 0.9, 0.5, 0.05, 0}[mr.IntN(5)]
					if keep == 1 && mr.IntN(2) == 0 {
						continue // nil: all rows
					}
					masks[k] = make([]bool, c.n)
					for i := range masks[k] {
						masks[k][i] = mr.Float64() < keep
					}
				}
				passengers := e%2 == 1
				for k := range a {
					pl.draw(k, a[k], masks[k], passengers)
				}
				got, want := pl.layout(), simplePlan(b, masks, c.n, c.size, passengers)
				if !reflect.DeepEqual(*got, *want) {
					t.Fatalf("epoch %d (passengers %v): the planner's plan differs from the simple one:\n%+v\n%+v", e, passengers, *got, *want)
				}
			}
		})
	}
}

package training

import (
	"math/rand/v2"

	"github.com/udocc/udocc/internal/parallel"
	"github.com/udocc/udocc/internal/torch"
)

// Streams of a member's random numbers: its seed picks the generator, the stream the use.
const (
	pretrainStream = 1
	finetuneStream = 2
)

// chunkEnds appends to ends the end of each minibatch of size rows over count rows. A
// trailing minibatch of one row is merged into the one before it (so it has size+1
// rows): BatchNorm cannot normalise a single row, and dropping it would leave that row
// out of the epoch.
func chunkEnds(count, size int, ends []int) []int {
	for at := 0; at < count; {
		m := min(size, count-at)
		if count-at-m == 1 {
			m++
		}
		at += m
		ends = append(ends, at)
	}
	return ends
}

// memberBatches are one member's minibatches of an epoch: training rows in[ends[i-1]:
// ends[i]] for minibatch i, then, when it has passengers, the left-out rows out[j] for
// j = i, i+B, i+2B, ... (B minibatches): rows only scored with its batch statistics.
// Rows are int32, as the plan's are (FitGroup takes < 2^31 rows).
type memberBatches struct {
	in, out    []int32
	all        []int32 // n: in then out, one array that the member keeps from epoch to epoch
	ends       []int
	passengers bool
}

func (b *memberBatches) count() int { return len(b.ends) }

// rows is the number of rows of minibatch i, training rows first.
func (b *memberBatches) rows(i int) (train, extra int) {
	start := 0
	if i > 0 {
		start = b.ends[i-1]
	}
	train = b.ends[i] - start
	if b.passengers && i < len(b.out) {
		extra = (len(b.out) - i + b.count() - 1) / b.count()
	}
	return train, extra
}

// planner draws every member's minibatches of an epoch and lays them out as a
// torch.Plan, reusing its buffers from epoch to epoch: after the first epochs an epoch
// allocates nothing whose size grows with the table.
type planner struct {
	n, size int
	members []memberBatches
	plan    torch.Plan
	extra   []int32 // the plan's Extra, kept while an epoch has no passengers
}

func newPlanner(n, size, k int) *planner {
	return &planner{n: n, size: size, members: make([]memberBatches, k)}
}

// draw shuffles one member's training rows (those of mask, all rows when mask is nil)
// with r and cuts them into minibatches; with passengers, the rows left out are
// shuffled too and dealt round the minibatches, so that every row gets a train-mode
// score with the batch statistics of training rows.
func (p *planner) draw(k int, r *rand.Rand, mask []bool, passengers bool) {
	b := &p.members[k]
	// in and out share one array of n, filled in place: growing them by append would
	// leave arrays of up to 2n rows, and their garbage, per member.
	b.all = grow(b.all, p.n)
	nin := count(mask, p.n)
	b.in, b.out = b.all[:0:nin], b.all[nin:nin]
	for i := 0; i < p.n; i++ {
		if mask == nil || mask[i] {
			b.in = append(b.in, int32(i))
		} else {
			b.out = append(b.out, int32(i))
		}
	}
	shuffle(r, b.in)
	b.ends = chunkEnds(len(b.in), p.size, b.ends[:0])
	b.passengers = passengers && len(b.ends) > 0
	if b.passengers {
		shuffle(r, b.out)
	}
}

// drawEach is draw for every member k with rngs[k] and masks[k] (masks nil: every
// member trains on all rows), the members on the fit's threads (torch.NumThreads): each
// member's draw reads its own generator and writes its own batches, so the plan does not
// depend on the thread count.
func (p *planner) drawEach(rngs []*rand.Rand, masks [][]bool, passengers bool) {
	parallel.For(len(rngs), torch.NumThreads(), func(k int) {
		var mask []bool
		if masks != nil {
			mask = masks[k]
		}
		p.draw(k, rngs[k], mask, passengers)
	})
}

// drawSteps is draw for a rank of a data-parallel run: the training rows dealt into
// exactly steps near-equal minibatches (minibatch i ends at (i+1)·len/steps), so that every
// rank takes the same number of Adam steps; the same draws as draw.
func (p *planner) drawSteps(k int, r *rand.Rand, mask []bool, steps int, passengers bool) {
	p.draw(k, r, mask, passengers)
	b := &p.members[k]
	b.ends = b.ends[:0]
	for i := 0; i < steps; i++ {
		b.ends = append(b.ends, (i+1)*len(b.in)/steps)
	}
	b.passengers = passengers && steps > 0
}

// shuffle is r.Shuffle over xs, the same Fisher-Yates draws (so the same order) without
// a call of the swap function per element.
func shuffle(r *rand.Rand, xs []int32) {
	for i := len(xs) - 1; i > 0; i-- {
		j := r.Uint64N(uint64(i + 1))
		xs[i], xs[j] = xs[j], xs[i]
	}
}

// layout lays the members' minibatches side by side, padded with row index n. The plan
// is the planner's own and valid until the next layout.
func (p *planner) layout() *torch.Plan {
	steps, width, extra := 0, 1, false
	for k := range p.members {
		b := &p.members[k]
		steps = max(steps, b.count())
		for i := 0; i < b.count(); i++ {
			t, e := b.rows(i)
			width = max(width, t+e)
			extra = extra || e > 0
		}
	}
	k := len(p.members)
	pl := &p.plan
	pl.Steps, pl.Width = steps, width
	pl.Rows = grow(pl.Rows, k*steps*width)
	pl.Counts = grow(pl.Counts, k*steps)
	pl.Train = grow(pl.Train, k*steps)
	pl.Extra = nil
	if extra {
		p.extra = grow(p.extra, k*steps)
		pl.Extra = p.extra
	}
	// Each member fills its own steps of the plan, on the fit's threads.
	parallel.For(k, torch.NumThreads(), func(kk int) { p.layoutMember(kk, extra) })
	return pl
}

// layoutMember writes member kk's steps of the plan that layout sized: its rows, padded
// with row index n, and their counts.
func (p *planner) layoutMember(kk int, extra bool) {
	pl, b, n := &p.plan, &p.members[kk], int32(p.n)
	steps, width := pl.Steps, pl.Width
	rows := pl.Rows[kk*steps*width : (kk+1)*steps*width]
	for i := range rows {
		rows[i] = n
	}
	for s := 0; s < steps; s++ {
		at := kk*steps + s
		pl.Counts[at], pl.Train[at] = 0, 0
		if extra {
			pl.Extra[at] = 0
		}
		if s >= b.count() {
			continue
		}
		t, e := b.rows(s)
		start := b.ends[s] - t
		row := pl.Rows[at*width : (at+1)*width]
		for q, i := range b.in[start:b.ends[s]] {
			row[q] = i
		}
		for q := 0; q < e; q++ {
			row[t+q] = b.out[s+q*b.count()]
		}
		pl.Counts[at], pl.Train[at] = int32(t), 1
		if extra {
			pl.Extra[at] = int32(e)
		}
	}
}

// grow returns s with length n, reusing its array when it is large enough.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

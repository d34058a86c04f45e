package training

import (
	"math/rand/v2"

	"github.com/udocc/udocc/torch"
)

// Streams of a member's random numbers: its seed picks the generator, the stream the use.
const (
	pretrainStream = 1
	finetuneStream = 2
)

// chunks splits rows into minibatches of size. A trailing minibatch of one row is merged
// into the one before it (so it has size+1 rows): BatchNorm cannot normalise a single
// row, and dropping it would leave that row out of the epoch.
func chunks(rows []int64, size int) [][]int64 {
	var out [][]int64
	for len(rows) > 0 {
		m := min(size, len(rows))
		if len(rows)-m == 1 {
			m++
		}
		out = append(out, rows[:m])
		rows = rows[m:]
	}
	return out
}

// memberBatches are one member's minibatches of an epoch: rows[i] holds train[i] rows
// that train, then the minibatch's passengers, rows that are only scored with its batch
// statistics.
type memberBatches struct {
	rows  [][]int64
	train []int
}

// shuffled returns the rows selected by mask (all rows when mask is nil), in an order
// drawn from r, and the rows left out, in index order.
func shuffled(r *rand.Rand, mask []bool, n int) (in, out []int64) {
	for i := 0; i < n; i++ {
		if mask == nil || mask[i] {
			in = append(in, int64(i))
		} else {
			out = append(out, int64(i))
		}
	}
	r.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
	return in, out
}

// epochBatches draws one member's minibatches: shuffled training rows and, when
// passengers is set, the left-out rows dealt round the minibatches as passengers, so
// that every row gets a train-mode score with the batch statistics of training rows.
func epochBatches(r *rand.Rand, mask []bool, n, size int, passengers bool) memberBatches {
	in, out := shuffled(r, mask, n)
	var b memberBatches
	for _, c := range chunks(in, size) {
		b.rows = append(b.rows, c)
		b.train = append(b.train, len(c))
	}
	if passengers && len(b.rows) > 0 {
		r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		for i, row := range out {
			s := i % len(b.rows)
			b.rows[s] = append(b.rows[s][:len(b.rows[s]):len(b.rows[s])], row)
		}
	}
	return b
}

// buildPlan lays the members' minibatches side by side, padded with row index n.
func buildPlan(ms []memberBatches, n int) *torch.Plan {
	steps, width, extra := 0, 1, false
	for _, m := range ms {
		steps = max(steps, len(m.rows))
		for i, r := range m.rows {
			width = max(width, len(r))
			extra = extra || len(r) > m.train[i]
		}
	}
	k := len(ms)
	p := &torch.Plan{
		Steps:  steps,
		Width:  width,
		Rows:   make([]int64, k*steps*width),
		Counts: make([]int32, k*steps),
		Train:  make([]uint8, k*steps),
	}
	if extra {
		p.Extra = make([]int32, k*steps)
	}
	for i := range p.Rows {
		p.Rows[i] = int64(n)
	}
	for k, m := range ms {
		for s, r := range m.rows {
			at := k*steps + s
			copy(p.Rows[at*width:], r)
			p.Counts[at] = int32(m.train[s])
			p.Train[at] = 1
			if extra {
				p.Extra[at] = int32(len(r) - m.train[s])
			}
		}
	}
	return p
}

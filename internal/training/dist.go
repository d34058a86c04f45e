package training

import (
	"fmt"

	"github.com/udocc/udocc/internal/torch"
)

// shard is this rank's place in a data-parallel fit (Config.Dist): its block of the n
// rows, the blocks of every rank, and the collectives that keep the ranks in step.
// A nil *shard is a single-process fit, whose code paths are the ones before
// data-parallel training existed.
type shard struct {
	d      *torch.Dist
	counts []int // rows of each rank's block, in rank order
	lo     int   // this rank's first row in the whole table
	n      int   // rows of the whole table
}

// newShard learns every rank's block size with one all-reduce; the blocks lie rank after
// rank in the table.
func newShard(d *torch.Dist, local int) (*shard, error) {
	buf := make([]float64, d.World())
	buf[d.Rank()] = float64(local)
	if err := d.AllReduce(buf); err != nil {
		return nil, fmt.Errorf("training: rank %d: exchanging block sizes: %w", d.Rank(), err)
	}
	s := &shard{d: d, counts: make([]int, len(buf))}
	for r, v := range buf {
		s.counts[r] = int(v)
		if r < d.Rank() {
			s.lo += int(v)
		}
		s.n += int(v)
	}
	return s, nil
}

// local is the number of rows of this rank's block.
func (s *shard) local() int { return s.counts[s.d.Rank()] }

// gather turns k rows of per-row values of this rank's block (k x local, member after
// member) into k x n values of the whole table on every rank, in one all-gather.
func (s *shard) gather(xs []float32, k int) ([]float32, error) {
	m := s.local()
	// Rank r sends its k x counts[r] block; the gathered buffer is rank after rank, so
	// each member's rows are put back together from every rank's part.
	part := make([]int, len(s.counts))
	for r, c := range s.counts {
		part[r] = k * c
	}
	all, err := s.d.AllGather(xs[:k*m], part)
	if err != nil {
		return nil, err
	}
	out := make([]float32, k*s.n)
	off := 0
	for r, c := range s.counts {
		lo := 0
		for q := 0; q < r; q++ {
			lo += s.counts[q]
		}
		for i := 0; i < k; i++ {
			copy(out[i*s.n+lo:i*s.n+lo+c], all[off+i*c:off+(i+1)*c])
		}
		off += k * c
	}
	return out, nil
}

// mean replaces each of xs by its mean over the ranks.
func (s *shard) mean(xs []float64) error {
	if err := s.d.AllReduce(xs); err != nil {
		return err
	}
	for i := range xs {
		xs[i] /= float64(s.d.World())
	}
	return nil
}

// slice is this rank's part of a whole-table mask (nil stays nil: every row).
func (s *shard) slice(mask []bool) []bool {
	if mask == nil {
		return nil
	}
	return mask[s.lo : s.lo+s.local()]
}

// steps is the number of minibatch steps of a member's epoch on every rank, when mask
// (nil: every row) selects its training rows: minibatches of about size rows on the rank
// that holds most of them, and at least 2 rows (BatchNorm's least) on every rank. Every
// rank trains the member at each of these steps, so all ranks make the same Adam steps.
func (s *shard) steps(mask []bool, size int) (int, error) {
	most, least, at := 0, -1, 0
	lo := 0
	for r, c := range s.counts {
		m := count(nil, c)
		if mask != nil {
			m = count(mask[lo:lo+c], c)
		}
		lo += c
		most = max(most, m)
		if least < 0 || m < least {
			least, at = m, r
		}
	}
	if least < 2 {
		return 0, fmt.Errorf("training: rank %d holds %d of the training rows, need 2 on every rank (use fewer ranks)", at, least)
	}
	return max(1, min((most+size-1)/size, least/2)), nil
}

// rankStream makes a member's random stream on rank r differ from every other rank's,
// so that the ranks shuffle their blocks independently.
func rankStream(stream uint64, s *shard) uint64 {
	if s == nil {
		return stream
	}
	return stream | uint64(s.d.Rank()+1)<<32
}

package udocc

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/udocc/udocc/internal/torch"
)

// Dist is one process's place in a data-parallel run on libtorch's c10d (Gloo on the
// CPU, NCCL on CUDA): see Options.Dist and docs/distributed.md.
type Dist = torch.Dist

// JoinFromEnv joins the data-parallel run that the torchrun variables describe:
// WORLD_SIZE ranks, this one RANK, rank 0's TCPStore at MASTER_ADDR:MASTER_PORT. It
// returns nil and no error where WORLD_SIZE is unset or 1: one process. device picks
// the backend (Gloo for "cpu", NCCL for "cuda..."); timeout bounds the rendezvous and
// every collective, 0 meaning torch.DefaultDistTimeout. It returns when every rank has
// joined. Close the Dist after the fit.
func JoinFromEnv(device string, timeout time.Duration) (*Dist, error) {
	ws := os.Getenv("WORLD_SIZE")
	if ws == "" || ws == "1" {
		return nil, nil
	}
	var c torch.DistConfig
	var err error
	num := func(name string) int {
		v, e := strconv.Atoi(os.Getenv(name))
		if e != nil && err == nil {
			err = fmt.Errorf("udocc: %s=%q is not a number", name, os.Getenv(name))
		}
		return v
	}
	c.World, c.Rank, c.Port = num("WORLD_SIZE"), num("RANK"), num("MASTER_PORT")
	c.Addr, c.Device, c.Timeout = os.Getenv("MASTER_ADDR"), device, timeout
	if err != nil {
		return nil, err
	}
	if c.Addr == "" {
		return nil, fmt.Errorf("udocc: WORLD_SIZE=%d but MASTER_ADDR is not set", c.World)
	}
	d, err := torch.NewDist(c)
	if err != nil {
		return nil, fmt.Errorf("udocc: joining a run of %d ranks as rank %d at %s:%d: %w", c.World, c.Rank, c.Addr, c.Port, err)
	}
	return d, nil
}

// ranks are the blocks of rows of a data-parallel fit, one per rank in rank order.
type ranks struct {
	d      *Dist
	counts []int
	n      int // rows of the whole table
}

// newRanks learns every rank's block size; nil for a fit in one process.
func newRanks(d *Dist, local int) (*ranks, error) {
	if d == nil || d.World() < 2 {
		return nil, nil
	}
	buf := make([]float64, d.World())
	buf[d.Rank()] = float64(local)
	if err := d.AllReduce(buf); err != nil {
		return nil, fmt.Errorf("udocc: %w", err)
	}
	r := &ranks{d: d, counts: make([]int, len(buf))}
	for i, v := range buf {
		r.counts[i] = int(v)
		r.n += int(v)
	}
	return r, nil
}

// gather32 returns the per-row scores of every rank's block, in rank order: the whole
// table's.
func (r *ranks) gather32(xs []float32) ([]float32, error) {
	all, err := r.d.AllGather(xs, r.counts)
	if err != nil {
		return nil, fmt.Errorf("udocc: %w", err)
	}
	return all, nil
}

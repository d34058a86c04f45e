package detector

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/udocc/udocc/internal/torch"
)

// Dist is one process's place in a data-parallel run on libtorch's c10d (Gloo on the
// CPU, NCCL on CUDA): see Options.Dist and docs/distributed.md. Close it after the fit;
// a nil *Dist is one process.
type Dist struct {
	t *torch.Dist
}

// Rank is this process's rank, 0 to World()−1.
func (d *Dist) Rank() int { return d.t.Rank() }

// World is the number of ranks W.
func (d *Dist) World() int { return d.t.World() }

// Close leaves the run; it is safe to call more than once (the error is nil: an
// io.Closer).
func (d *Dist) Close() error {
	if d != nil {
		d.t.Close()
	}
	return nil
}

// torch is d's process group, nil for one process.
func (d *Dist) torch() *torch.Dist {
	if d == nil {
		return nil
	}
	return d.t
}

// JoinFromEnv joins the data-parallel run that the torchrun variables describe:
// WORLD_SIZE ranks, this one RANK, rank 0's TCPStore at MASTER_ADDR:MASTER_PORT. It
// returns nil and no error where WORLD_SIZE is unset or 1: one process. device picks
// the backend (Gloo for "cpu", NCCL for "cuda..."); timeout bounds the rendezvous and
// every collective, 0 meaning 5 minutes. It returns when every rank has
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
	return &Dist{t: d}, nil
}

// ranks are the blocks of rows of a data-parallel fit, one per rank in rank order.
type ranks struct {
	d      *torch.Dist
	counts []int
	n      int // rows of the whole table
}

// newRanks learns every rank's block size; nil for a fit in one process.
func newRanks(d *Dist, local int) (*ranks, error) {
	if d == nil || d.World() < 2 {
		return nil, nil
	}
	t := d.t
	buf := make([]float64, t.World())
	buf[t.Rank()] = float64(local)
	if err := t.AllReduce(buf); err != nil {
		return nil, fmt.Errorf("udocc: %w", err)
	}
	r := &ranks{d: t, counts: make([]int, len(buf))}
	for i, v := range buf {
		r.counts[i] = int(v)
		r.n += int(v)
	}
	// Every rank sees the same counts, so all of them refuse alike, at once.
	for i, c := range r.counts {
		if c < minRankRows {
			return nil, fmt.Errorf("udocc: a data-parallel fit of %d ranks over %d rows: rank %d holds %d rows, and every rank needs at least %d (its minibatches' BatchNorm): use at most %d ranks",
				len(r.counts), r.n, i, c, minRankRows, max(1, r.n/minRankRows))
		}
	}
	return r, nil
}

// minRankRows is the fewest rows each rank of a data-parallel fit must hold: every rank
// trains every member at every step, on a minibatch that BatchNorm needs two rows of.
const minRankRows = 2

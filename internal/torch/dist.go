package torch

/*
#include <stdlib.h>
#include "udocc_torch.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"time"
	"unsafe"
)

// DefaultDistTimeout bounds a data-parallel run's rendezvous and each of its collectives
// when DistConfig.Timeout is zero: a rank that died or hangs makes the others fail
// within it (at once where the dead rank's sockets close, as they do when a process
// ends). c10d's own default is 30 minutes; an epoch's longest wait for a peer is far
// shorter than 5.
const DefaultDistTimeout = 5 * time.Minute

// ErrDistClosed is returned by the methods of a Dist after Close.
var ErrDistClosed = errors.New("torch: process group is closed")

// DistConfig places this process in a data-parallel run: the torchrun convention's
// MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE, and the device whose backend the run
// uses (Gloo for "cpu", NCCL for "cuda..." where the shim has it).
type DistConfig struct {
	Addr    string        // host of rank 0's TCPStore
	Port    int           // its port
	Rank    int           // this process, 0..World-1
	World   int           // W, the number of ranks
	Device  string        // "cpu" (Gloo), "cuda" or "cuda:N" (NCCL)
	Timeout time.Duration // 0 means DefaultDistTimeout
}

// GlooCompiled reports whether the shim was built with Gloo's headers (Debian's
// libgloo-dev; build.sh installs it), without which a CPU data-parallel run cannot start.
// PyTorch's pip wheels ship no Gloo headers, so a shim built against one has no Gloo.
func GlooCompiled() bool { return C.udocc_dist_gloo_compiled() != 0 }

// Dist is one rank's handle on a c10d process group. Its collectives block until every
// rank has made the same call; the ranks must make the same calls in the same order.
// Where the environment variable UDOCC_DIST_TRACE names a prefix, NewDist makes the rank
// write every collective it enters, its own and its groups' (kind and number of values,
// one line each), to PREFIX.rank.N (docs/distributed.md).
type Dist struct {
	p           *C.udocc_dist
	rank, world int
}

// NewDist joins the run: rank 0 serves the TCPStore, the others connect to it, and all
// make one process group. It returns when all World ranks have joined, or fails after
// the timeout.
func NewDist(c DistConfig) (*Dist, error) {
	if c.World < 1 || c.Rank < 0 || c.Rank >= c.World {
		return nil, fmt.Errorf("torch: rank %d is not in a world of %d", c.Rank, c.World)
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultDistTimeout
	}
	if c.Device == "" {
		c.Device = "cpu"
	}
	addr := C.CString(c.Addr)
	defer C.free(unsafe.Pointer(addr))
	dev := C.CString(c.Device)
	defer C.free(unsafe.Pointer(dev))
	var p *C.udocc_dist
	ms := max(1, c.Timeout.Milliseconds())
	if err := errorOf(C.udocc_dist_new(addr, C.int(c.Port), C.int(c.Rank), C.int(c.World), dev, C.int64_t(ms), &p)); err != nil {
		return nil, err
	}
	return &Dist{p: p, rank: c.Rank, world: c.World}, nil
}

// Rank is this process's rank.
func (d *Dist) Rank() int { return d.rank }

// World is the number of ranks W.
func (d *Dist) World() int { return d.world }

// Close lets go of the process group; it is safe to call more than once. The group
// lives on while a Group made a rank of it with SetDist (or derived from one) is open,
// and is left when the last of them closes.
func (d *Dist) Close() {
	if d != nil && d.p != nil {
		C.udocc_dist_close(d.p)
		d.p = nil
	}
}

// AllReduce replaces buf by its element-wise sum over the ranks; every rank gets the
// same bits.
func (d *Dist) AllReduce(buf []float64) error {
	if d.p == nil {
		return ErrDistClosed
	}
	if len(buf) == 0 {
		return nil
	}
	return errorOf(C.udocc_dist_allreduce(d.p, (*C.double)(&buf[0]), C.int64_t(len(buf))))
}

// AllGather returns every rank's part concatenated rank after rank: rank r contributes
// counts[r] values, and part is this rank's (len(part) == counts[Rank]).
func (d *Dist) AllGather(part []float32, counts []int) ([]float32, error) {
	if d.p == nil {
		return nil, ErrDistClosed
	}
	if len(counts) != d.world || len(part) != counts[d.rank] {
		return nil, fmt.Errorf("torch: all-gather of %d values does not match counts %v at rank %d", len(part), counts, d.rank)
	}
	cc := make([]C.int64_t, len(counts))
	total := 0
	for i, c := range counts {
		cc[i] = C.int64_t(c)
		total += c
	}
	out := make([]float32, max(1, total))
	in := []float32{0}
	if len(part) > 0 {
		in = part
	}
	if err := errorOf(C.udocc_dist_allgather(d.p, (*C.float)(&in[0]), &cc[0], (*C.float)(&out[0]), C.int64_t(len(out)))); err != nil {
		return nil, err
	}
	return out[:total], nil
}

// Barrier returns when every rank has called it.
func (d *Dist) Barrier() error {
	if d.p == nil {
		return ErrDistClosed
	}
	return errorOf(C.udocc_dist_barrier(d.p))
}

// SetDist makes g a rank of d's run: g takes rank 0's weights, BatchNorm statistics,
// center and radius now; from then on every Adam step uses the ranks' mean gradient
// (all ranks keep equal weights), every radius update and every epoch's running
// statistics are averaged over the ranks, and InitCenter averages over every rank's
// rows. Groups that Derive makes from g stay ranks of d. g holds d's process group
// while it lives: d may be closed first.
func (g *Group) SetDist(d *Dist) error {
	if g.p == nil {
		return ErrClosed
	}
	if d == nil || d.p == nil {
		return ErrDistClosed
	}
	return errorOf(C.udocc_group_set_dist(g.p, d.p))
}

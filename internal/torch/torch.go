package torch

/*
#cgo CFLAGS: -I${SRCDIR}/shim
#cgo LDFLAGS: -L${SRCDIR}/../../lib -ludocc_torch -Wl,-rpath,${SRCDIR}/../../lib
#include <stdlib.h>
#include "udocc_torch.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"
)

// ErrClosed is returned by the methods of a Group after Close.
var ErrClosed = errors.New("torch: group is closed")

// errorOf turns the shim's status into a Go error and frees the message.
func errorOf(msg *C.char) error {
	if msg == nil {
		return nil
	}
	defer C.udocc_free(msg)
	return fmt.Errorf("torch: %s", C.GoString(msg))
}

// Version is the version of the linked libtorch, such as "1.13.0".
func Version() string {
	buf := make([]byte, 64)
	C.udocc_version((*C.char)(unsafe.Pointer(&buf[0])), C.size_t(len(buf)))
	return C.GoString((*C.char)(unsafe.Pointer(&buf[0])))
}

// CUDACompiled reports whether the linked libtorch has CUDA support.
func CUDACompiled() bool { return C.udocc_cuda_compiled() != 0 }

// CUDADeviceCount is the number of visible CUDA devices (0 without CUDA).
func CUDADeviceCount() int { return int(C.udocc_cuda_device_count()) }

// CheckDevice returns nil when device ("cpu", "cuda" or "cuda:N") can be used here, and
// otherwise the error a group on it would fail with (no CUDA in this build, no device
// visible, an index past the visible ones).
func CheckDevice(device string) error {
	cs := C.CString(device)
	defer C.free(unsafe.Pointer(cs))
	return errorOf(C.udocc_check_device(cs))
}

// SetNumThreads sets the number of threads the CPU fast path runs on, for the whole
// process, and the count of the fit's host work (NumThreads); n < 1 leaves it as it is
// (one thread until set). A group's members train on the threads, each member's steps in
// order (dealt out by McNaughton's wrap-around rule: where the threads do not divide the
// members, a member is cut between two threads once, so that five members on two threads
// take two and a half members' time), and eval-mode passes run as tasks of one member and
// one block of rows; every matrix product stays on one thread, so results are
// bit-identical for any n. The libtorch path (CUDA, the reference path, the ranks of a data-parallel run)
// runs on one intra-op thread.
func SetNumThreads(n int) {
	if n < 1 {
		return
	}
	numThreads.Store(int32(n))
	C.udocc_set_num_threads(C.int(n))
}

// numThreads is the count SetNumThreads last set, 1 until then.
var numThreads atomic.Int32

func init() { numThreads.Store(1) }

// NumThreads is the thread count SetNumThreads last set (1 until set): the count of the
// shim's workers, and the one a fit's host work (package parallel) runs on.
func NumThreads() int { return int(numThreads.Load()) }

// Phase selects the parameters an Adam state covers.
type Phase int

const (
	// Autoencoder covers encoder and decoder (pretraining).
	Autoencoder Phase = 0
	// Encoder covers the encoder only (fine-tuning).
	Encoder Phase = 1
)

// Plan is one epoch of minibatch steps for every member of a group. At step s member k
// processes rows Rows[(k*Steps+s)*Width : +Counts[k*Steps+s]]; when Extra is not nil, the
// next Extra[k*Steps+s] slots hold passengers (rows scored with that minibatch's
// BatchNorm statistics, which they do not enter, and outside the loss); the remaining
// slots hold the padding index n. Train[k*Steps+s] is 1 when that is a training step and
// 0 when the rows are only scored (train mode, no update). Counts 0 means the member sits
// the step out: its weights and its Adam moments stay as they are. Rows are int32, half
// the memory of int64, which a plan over a large table for several members makes count
// (a group has fewer than 2^31 rows).
type Plan struct {
	Steps, Width int
	Rows         []int32
	Counts       []int32
	Extra        []int32
	Train        []uint8
}

func (p *Plan) check(k int) error {
	if p.Steps < 0 || p.Width < 1 || len(p.Rows) != k*p.Steps*p.Width ||
		len(p.Counts) != k*p.Steps || len(p.Train) != k*p.Steps ||
		(p.Extra != nil && len(p.Extra) != k*p.Steps) {
		return fmt.Errorf("torch: plan of %d steps x %d wide does not fit %d members", p.Steps, p.Width, k)
	}
	return nil
}

// Objective is a fine-tuning loss per member.
type Objective struct {
	Soft    []uint8   // 1: soft-boundary loss, 0: one-class loss
	Nu      []float64 // ν of the soft-boundary loss
	UpdateR []uint8   // 1: set R from each training minibatch (after the warm-up)
}

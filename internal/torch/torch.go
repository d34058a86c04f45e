package torch

/*
#cgo CFLAGS: -I${SRCDIR}/shim
#include <stdlib.h>
#include "udocc_torch.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"
)

// ErrClosed is returned by the methods of a Group after Close.
var ErrClosed = errors.New("torch: group is closed")

// Errors of the shim that callers branch on, by the code the shim gives its error
// (udocc_torch.h's UDOCC_ERR_...), never by its text: errors.Is(err, ErrNoTensor).
var (
	// ErrNoTensor: Group.Param was asked for a tensor the group does not have (a layer
	// without BatchNorm has no running statistics).
	ErrNoTensor = errors.New("torch: no such tensor")
	// ErrOutOfMemory: an allocation in the shim or in libtorch failed.
	ErrOutOfMemory = errors.New("torch: out of memory")
	// ErrLibtorch: libtorch raised an error (c10::Error), a failed write or read included.
	ErrLibtorch = errors.New("torch: libtorch error")
	// ErrNotLoaded: a program built with the tag udocc_shimlib could not load
	// libudocc_torch.so, or the library lacks the function (another build's).
	ErrNotLoaded = errors.New("torch: libudocc_torch.so not loaded")
)

// Error is an error of the shim: every C++ exception an entry point meets, whatever
// threw it, becomes one (none crosses into Go, none aborts the process).
type Error struct {
	Code int    // the shim's code, udocc_torch.h's UDOCC_ERR_...
	Msg  string // the exception's message
}

func (e *Error) Error() string { return "torch: " + e.Msg }

// Unwrap gives the sentinel error of the code, if it has one.
func (e *Error) Unwrap() error {
	switch e.Code {
	case C.UDOCC_ERR_NO_TENSOR:
		return ErrNoTensor
	case C.UDOCC_ERR_NO_MEMORY:
		return ErrOutOfMemory
	case C.UDOCC_ERR_TORCH:
		return ErrLibtorch
	case C.UDOCC_ERR_NOT_LOADED:
		return ErrNotLoaded
	}
	return nil
}

// errorOf turns the shim's status into a Go error (an *Error) and frees it.
func errorOf(msg *C.char) error {
	if msg == nil {
		return nil
	}
	defer C.udocc_error_free(msg)
	return &Error{Code: int(C.udocc_error_code(msg)), Msg: C.GoString(msg)}
}

// KeepFreedPages sets glibc's malloc, for the whole process, to keep the pages a fit
// frees instead of handing them back to the kernel (udocc_keep_freed_pages): faster
// epochs (an epoch frees and allocates the same large buffers thousands of times) for
// memory that stays with the process. It is the host's choice, made once: the udocc CLI
// and the benches make it; the library never does by itself.
func KeepFreedPages() { C.udocc_keep_freed_pages() }

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
	if device == "cpu" {
		// Every build runs on the CPU; answered here, so that a program's check of the
		// default device does not wait for libtorch to load (lazy_shimlib.c).
		return nil
	}
	cs := C.CString(device)
	defer C.free(unsafe.Pointer(cs))
	return errorOf(C.udocc_check_device(cs))
}

// SetNumThreads sets the number of threads the CPU fast path runs on, for every group in
// the process, and the count of the fit's host work (NumThreads); n < 1 leaves it as it is
// (one thread until set). It is udocc's own count: libtorch's, OpenMP's and Go's are not
// touched. A group's members train on the threads, each member's steps in
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

// numThreads is the count SetNumThreads last set; 0, until then, stands for 1.
var numThreads atomic.Int32

// scopes are the thread counts of the calls in a WithThreads scope now, by scope, and
// outside the count to restore when the last of them ends.
var scopes struct {
	sync.Mutex
	next    int
	counts  map[int]int
	outside int
}

// WithThreads sets the thread count for one call of the library (a fit, a scoring) and
// returns the function that ends its scope: while scopes overlap (calls from several
// goroutines) the count is the largest they asked for, and when the last one ends it is
// the count from before the first began (1 unless SetNumThreads set another). Results do
// not depend on the count, only the speed. n < 1 is 1.
func WithThreads(n int) (end func()) {
	n = max(n, 1)
	scopes.Lock()
	defer scopes.Unlock()
	if len(scopes.counts) == 0 {
		scopes.counts = map[int]int{}
		scopes.outside = NumThreads()
	}
	id := scopes.next
	scopes.next++
	scopes.counts[id] = n
	applyScopes()
	return sync.OnceFunc(func() {
		scopes.Lock()
		defer scopes.Unlock()
		delete(scopes.counts, id)
		applyScopes()
	})
}

// applyScopes sets the count the scopes ask for; the caller holds scopes.
func applyScopes() {
	n := scopes.outside
	if len(scopes.counts) > 0 {
		n = 0
		for _, c := range scopes.counts {
			n = max(n, c)
		}
	}
	if NumThreads() != n {
		SetNumThreads(n)
	}
}

// NumThreads is the thread count SetNumThreads last set (1 until set): the count of the
// shim's workers, and the one a fit's host work (package parallel) runs on.
func NumThreads() int { return max(1, int(numThreads.Load())) }

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

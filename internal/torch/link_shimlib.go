//go:build udocc_shimlib

package torch

// With the build tag udocc_shimlib (build.sh's builds and tests) the shim is the shared
// library lib/libudocc_torch.so that build.sh builds, loaded at run time (lazy_shimlib.c)
// from a RUNPATH: bin/udocc's is $ORIGIN/../lib only (build.sh's tag udocc_dist), a
// test binary's the checkout's lib/ (link_srcdir.go).
// libtorch's constructors take a fifth of a second of one core: bin/udocc starts the
// load first thing in main (Preload) and reads its table meanwhile.

/*
#cgo LDFLAGS: -ldl
void udocc_lazy_start(void);
long long udocc_lazy_wait_ns(void);
*/
import "C"

import "time"

// Preload starts loading libtorch on a thread of its own, beside the caller; the first
// call that needs it waits for the load. A program calls it first thing in main, once
// Go's own initialisation is done: started in package torch's init, the load slowed
// the program's package initialisers (prometheus's registration of the runtime's
// metrics took 27 ms beside it instead of 0.3, on two cores). Without it the first call
// loads libtorch itself, as a linked library would have been.
func Preload() { C.udocc_lazy_start() }

// LoadWait is how long the process's first call that needed libtorch waited for it to
// load (0 where it was loaded by then, or is linked).
func LoadWait() time.Duration { return time.Duration(C.udocc_lazy_wait_ns()) }

//go:build udocc_shimlib

package torch

// With the build tag udocc_shimlib (build.sh's builds and tests) the shim is the shared
// library lib/libudocc_torch.so that build.sh builds, loaded at run time (lazy_shimlib.c)
// from a RUNPATH: bin/udocc's is $ORIGIN/../lib, a test binary's the checkout's lib/.
// The process starts loading it as it starts, beside main: libtorch's constructors take
// a fifth of a second of one core, which the program spends reading its table meanwhile.

/*
#cgo LDFLAGS: -ldl -Wl,-rpath,${SRCDIR}/../../lib
void udocc_lazy_load(void);
long long udocc_lazy_wait_ns(void);
*/
import "C"

import "time"

func init() {
	go func() { C.udocc_lazy_load() }()
}

// LoadWait is how long the process's first call that needed libtorch waited for it to
// load (0 where it was loaded by then, or is linked).
func LoadWait() time.Duration { return time.Duration(C.udocc_lazy_wait_ns()) }

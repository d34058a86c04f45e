//go:build udocc_shimlib

package torch

// With the build tag udocc_shimlib (build.sh's builds and tests) the shim is the shared
// library lib/libudocc_torch.so that build.sh builds, found at run time through a
// RUNPATH: bin/udocc's is $ORIGIN/../lib, a test binary's the checkout's lib/.

/*
#cgo LDFLAGS: -L${SRCDIR}/../../lib -ludocc_torch -Wl,-rpath,${SRCDIR}/../../lib
*/
import "C"

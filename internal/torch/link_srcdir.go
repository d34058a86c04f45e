//go:build udocc_shimlib && !udocc_dist

package torch

// A build from the checkout (go test, go run) finds the checkout's lib/ wherever its
// binary is. build.sh builds bin/udocc with the tag udocc_dist, which leaves this
// absolute path out: bin/udocc finds lib/ beside bin/ ($ORIGIN/../lib) only, so that bin/
// and lib/ move together.

// #cgo LDFLAGS: -Wl,-rpath,${SRCDIR}/../../lib
import "C"

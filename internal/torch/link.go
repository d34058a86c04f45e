//go:build !udocc_shimlib

package torch

// The shim's objects, compiled by go build from package shim: a plain `go build` of a
// program that imports udocc needs only an installed libtorch (package shim says how to
// name one that is not Debian's).
import (
	"time"

	_ "github.com/udocc/udocc/internal/torch/shim"
)

// LoadWait is how long the process's first call that needed libtorch waited for it to
// load: 0, since a plain build links libtorch, which is loaded before main.
func LoadWait() time.Duration { return 0 }

// Preload does nothing in a plain build: libtorch is linked, and loaded before main.
func Preload() {}

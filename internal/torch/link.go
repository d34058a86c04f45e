//go:build !udocc_shimlib

package torch

// The shim's objects, compiled by go build from package shim: a plain `go build` of a
// program that imports udocc needs only an installed libtorch (package shim says how to
// name one that is not Debian's).
import _ "github.com/udocc/udocc/internal/torch/shim"

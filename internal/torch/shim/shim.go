//go:build !udocc_shimlib

// Package shim compiles udocc's libtorch shim (udocc_torch.cpp, udocc_dist.cpp and, in
// package fast, udocc_fast.cpp) into a Go build, so that `go get github.com/udocc/udocc`
// and `go build` need nothing but an installed libtorch: package torch calls the C ABI of
// udocc_torch.h, which these objects define. It has no Go API.
//
// The flags below find Debian's libtorch-dev (headers under /usr/include, libraries on
// the linker's path). Another libtorch is named with the CGO_ variables, as build.sh
// flags prints them, for example for an official libtorch in $LT:
//
//	CGO_CXXFLAGS="-O2 -isystem $LT/include -isystem $LT/include/torch/csrc/api/include"
//	CGO_LDFLAGS="-L$LT/lib -Wl,-rpath,$LT/lib"
//
// build.sh does not use this package: it builds the shim as lib/libudocc_torch.so and
// links it with the build tag udocc_shimlib, so that a shim built against a CUDA libtorch
// can replace it beside the same binary (docs/cuda.md). Only the udocc_ C ABI is
// exported from either (-fvisibility=hidden); compiling the shim here takes a few minutes
// once, after which Go's build cache keeps it.
package shim

// #cgo CXXFLAGS: -fvisibility=hidden -fvisibility-inlines-hidden -I/usr/include/torch/csrc/api/include
// #cgo LDFLAGS: -Wl,--no-as-needed -ltorch -ltorch_cpu -lc10 -Wl,--as-needed
import "C"

import _ "github.com/udocc/udocc/internal/torch/shim/fast" // the fast path's objects

//go:build !udocc_shimlib

// Package fast compiles the shim's CPU fast path (udocc_fast.cpp, no libtorch) into a Go
// build, with the flags build.sh compiles it with: -O3 here, -fno-trapping-math,
// -fno-math-errno and -ffp-contract=off in the source (a pragma: go build refuses them as
// #cgo flags), which let gcc vectorise its loops over features and keep its AVX-512 clones
// from fusing a multiply and an add; none of them changes a result. It has no Go
// API; package shim links it (see package shim).
package fast

// #cgo CXXFLAGS: -O3 -fvisibility=hidden -fvisibility-inlines-hidden
import "C"

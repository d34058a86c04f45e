package main

import (
	"context"
	"fmt"
	"io"
	"runtime"

	lib "github.com/udocc/udocc"
)

func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", "", "Print the versions of udocc, libtorch and Go, and the CUDA devices libtorch sees.", stdout)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usagef("version takes no arguments")
	}
	rt := lib.RuntimeInfo()
	cuda := "no CUDA in this libtorch"
	if rt.CUDA {
		cuda = fmt.Sprintf("CUDA, %d device(s) visible", rt.CUDADevices)
	}
	fmt.Fprintf(stdout, "udocc %s\nlibtorch %s (%s)\n%s %s/%s\n", Version, rt.Libtorch, cuda, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}

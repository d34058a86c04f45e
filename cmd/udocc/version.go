package main

import (
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/udocc/udocc/internal/torch"
)

func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", "", "Print the versions of udocc, libtorch and Go, and the CUDA devices libtorch sees.", stdout)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usagef("version takes no arguments")
	}
	cuda := "no CUDA in this libtorch"
	if torch.CUDACompiled() {
		cuda = fmt.Sprintf("CUDA, %d device(s) visible", torch.CUDADeviceCount())
	}
	fmt.Fprintf(stdout, "udocc %s\nlibtorch %s (%s)\n%s %s/%s\n", Version, torch.Version(), cuda, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}

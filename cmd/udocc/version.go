package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	lib "github.com/udocc/udocc/internal/detector"
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
	if dir, n := standIns(); n > 0 {
		fmt.Fprintf(stdout, "stand-ins for %d libraries libtorch names and never calls, from %s\n", n, dir)
	}
	return nil
}

// standIns returns the folder and number of the empty stand-ins (lib/inert, built by
// build.sh: tools/shimlink/inert) this process loaded in place of libraries libtorch
// names and never calls, from /proc/self/maps; 0 where there are none or no /proc.
func standIns() (string, int) {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return "", 0
	}
	defer f.Close()
	dir, seen := "", map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || !strings.HasPrefix(fields[5], "/") {
			continue
		}
		p := fields[5]
		if filepath.Base(filepath.Dir(p)) == "inert" && !seen[p] {
			seen[p], dir = true, filepath.Dir(p)
		}
	}
	return dir, len(seen)
}

package torch

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// TestLog1pf builds pintest/log1pf_check.cpp with the fast path's flags and compares the
// fast path's log1p (shim/udocc_log1pf.h, which the robust reconstruction error sums over
// a row's features) with the C library's log1pf on every 61st non-negative float and each
// branch's edges, compiled for the baseline x86-64, AVX2 and AVX-512 as udocc_fast.cpp's
// clones are: the port must give glibc 2.36's bits on every one (on all 2^31 with
// stride 1, a minute; bench/notes/cost.md). With another C library the comparison says
// nothing about the port, and the test says so and skips.
func TestLog1pf(t *testing.T) {
	cxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("no g++ to build pintest/log1pf_check.cpp")
	}
	bin := filepath.Join(t.TempDir(), "log1pf_check")
	src := filepath.Join("shim", "pintest", "log1pf_check.cpp")
	if out, err := exec.Command(cxx, "-O3", "-fno-trapping-math", "-fno-math-errno", "-ffp-contract=off", "-std=c++17", src, "-o", bin).CombinedOutput(); err != nil {
		t.Fatalf("g++ %s: %v\n%s", src, err, out)
	}
	out, err := exec.Command(bin, "61").CombinedOutput()
	t.Logf("%s", out)
	m := regexp.MustCompile(`glibc (\S+): (\d+) values`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("%s printed no summary (%v)", bin, err)
	}
	if err != nil {
		if string(m[1]) != "2.36" {
			t.Skipf("this C library (glibc %s) rounds log1pf differently from glibc 2.36's, whose bits the port gives", m[1])
		}
		t.Fatalf("the port differs from glibc 2.36's log1pf: %v", err)
	}
}

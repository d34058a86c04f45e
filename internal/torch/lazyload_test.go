package torch

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// lazyProbe is a C program that links lazy_shimlib.c where no libudocc_torch.so can be
// found, or where the one found lacks every function: each entry point must answer,
// and none end the process. An error comes back with code UDOCC_ERR_NOT_LOADED and the
// reason, and frees; int results are 0; udocc_version writes an empty string.
const lazyProbe = `#include <stdio.h>
#include <string.h>
#include "udocc_torch.h"
int main(void) {
  char *err = udocc_check_device("cuda");
  if (err == NULL || udocc_error_code(err) != UDOCC_ERR_NOT_LOADED) return 1;
  printf("%s\n", err);
  udocc_error_free(err);
  udocc_group *g = NULL;
  int64_t sizes[2] = {3, 2};
  uint64_t seeds[1] = {0};
  err = udocc_group_new(sizes, 2, 1, 0, "cpu", seeds, &g);
  if (err == NULL || g != NULL || udocc_error_code(err) != UDOCC_ERR_NOT_LOADED) return 2;
  udocc_error_free(err);
  if (udocc_cuda_compiled() != 0 || udocc_cuda_device_count() != 0) return 3;
  char buf[16] = "x";
  udocc_version(buf, sizeof buf);
  if (buf[0] != 0) return 4;
  udocc_set_num_threads(2);
  if (udocc_error_code(NULL) != UDOCC_OK) return 5;
  puts("ok");
  return 0;
}
`

// TestLazyLoadFailure builds lazyProbe twice and runs it: with no library on its path,
// and with an empty library of the shim's name, which lacks every entry point.
func TestLazyLoadFailure(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "probe.c"), []byte(lazyProbe), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(dir, "probe")
	build := exec.Command("gcc", "-Wall", "-I", filepath.Join(src, "shim"), "-o", probe,
		filepath.Join(dir, "probe.c"), filepath.Join(src, "lazy_shimlib.c"), "-ldl", "-lpthread")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	stub := exec.Command("gcc", "-shared", "-fPIC", "-x", "c", "-", "-o", filepath.Join(empty, "libudocc_torch.so"))
	stub.Stdin = strings.NewReader("int udocc_stub_only;\n")
	if out, err := stub.CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	for _, c := range []struct {
		name, libPath, want string
	}{
		{"no library", filepath.Join(dir, "nowhere"), "cannot load libudocc_torch.so"},
		{"a library without the functions", empty, "libudocc_torch.so has no udocc_check_device"},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := exec.Command(probe)
			run.Env = append(os.Environ(), "LD_LIBRARY_PATH="+c.libPath)
			out, err := run.CombinedOutput()
			if err != nil || !strings.Contains(string(out), c.want) || !strings.HasSuffix(string(out), "ok\n") {
				t.Errorf("probe: %v, output %q; want exit 0, %q and ok", err, out, c.want)
			}
		})
	}
}

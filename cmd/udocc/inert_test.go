package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The binary the tests run loads the stand-ins of lib/inert in place of the libraries
// they stand in for, as bin/udocc does, and no real one of them.
func TestInertStandIns(t *testing.T) {
	inert, err := filepath.Abs("../../lib/inert")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(inert)
	if !shimLib || err != nil {
		t.Skip("no lib/inert (./build.sh writes it for Debian's libtorch) or not built with the tag udocc_shimlib")
	}
	// The binary loads the shim, and with it libtorch's libraries, with dlopen
	// (internal/torch/lazy_shimlib.c), which ldd does not follow: the loader's log of a
	// run that loads it (udocc version) says where each library was found, the last
	// file it tried before it mapped the library.
	cmd := exec.Command(udoccBin, "version")
	cmd.Env = append(os.Environ(), "LD_DEBUG=libs,files")
	var log strings.Builder
	cmd.Stderr = &log
	if err := cmd.Run(); err != nil {
		t.Fatalf("listing the binary's libraries: %v", err)
	}
	where, tried := map[string]string{}, map[string]string{}
	for _, line := range strings.Split(log.String(), "\n") {
		_, line, _ = strings.Cut(line, ":") // the process id
		line = strings.TrimSpace(line)
		if path, ok := strings.CutPrefix(line, "trying file="); ok {
			tried[filepath.Base(path)] = path
		} else if name, ok := strings.CutPrefix(line, "file="); ok && strings.HasSuffix(name, "generating link map") {
			name = strings.Fields(name)[0]
			if path := tried[filepath.Base(name)]; path != "" {
				where[filepath.Base(name)] = path
			}
		}
	}
	standIns := 0
	for _, e := range entries {
		got := where[e.Name()]
		if got != "" && filepath.Dir(got) != inert {
			t.Errorf("%s is loaded from %s, not lib/inert", e.Name(), got)
		}
		if got != "" {
			standIns++
		}
	}
	if standIns == 0 {
		t.Errorf("none of the %d stand-ins is loaded", len(entries))
	}
	t.Logf("%d libraries loaded, %d of them stand-ins", len(where), standIns)
	r := udocc(t, t.TempDir(), "version")
	if r.code != 0 {
		t.Fatalf("udocc version with the stand-ins: exit %d: %s", r.code, r.stderr)
	}
	if want := fmt.Sprintf("stand-ins for %d libraries libtorch names and never calls, from %s\n", standIns, inert); !strings.Contains(r.stdout, want) {
		t.Errorf("udocc version printed %q, want a line %q", r.stdout, want)
	}
}

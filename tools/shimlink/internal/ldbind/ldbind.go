// Package ldbind records where glibc's loader binds a program's symbols (LD_DEBUG=bindings),
// for the build tools that relink or stand in for libudocc_torch.so's libraries
// (tools/shimlink/linkorder, tools/shimlink/inert) and must show that every symbol stays
// bound where it was. It is not for a udocc process: nothing here runs at run time.
package ldbind

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
)

// Binding is one symbol's resolution: Requester's reference to Symbol, bound in Definer.
type Binding struct{ Requester, Symbol, Definer string }

// Shim is how the shim is written in a Binding, under whatever path it was loaded from,
// so that two links, or two folders, compare equal.
const Shim = "SHIM"

// line matches glibc's LD_DEBUG=bindings lines:
//
//	binding file /lib/x86_64-linux-gnu/libfoo.so.1 [0] to /lib/.../libbar.so.2 [0]: normal symbol `baz' [GLIBC_2.2.5]
var line = regexp.MustCompile("binding file (.+) \\[\\d+\\] to (.+) \\[\\d+\\]: \\S+ symbol `([^']+)'")

// Parse reads LD_DEBUG=bindings output. Every path named by rename is replaced by its
// value in the result (the shim is always written Shim).
func Parse(out []byte, rename map[string]string) []Binding {
	var bs []Binding
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	name := func(p []byte) string {
		s := string(p)
		if filepath.Base(s) == "libudocc_torch.so" {
			return Shim
		}
		if r, ok := rename[s]; ok {
			return r
		}
		return s
	}
	for sc.Scan() {
		m := line.FindSubmatch(sc.Bytes())
		if m == nil {
			continue
		}
		bs = append(bs, Binding{name(m[1]), string(m[3]), name(m[2])})
	}
	return bs
}

// Record runs probe with every symbol bound at its start (LD_BIND_NOW=1) and returns what
// the loader bound, renamed as Parse renames. libPath, when not empty, goes in front of
// LD_LIBRARY_PATH.
func Record(probe, libPath string, rename map[string]string) ([]Binding, error) {
	env := append(os.Environ(), "LD_BIND_NOW=1", "LD_DEBUG=bindings")
	if libPath != "" {
		if old := os.Getenv("LD_LIBRARY_PATH"); old != "" {
			libPath += ":" + old
		}
		env = append(env, "LD_LIBRARY_PATH="+libPath)
	}
	p := exec.Command(probe)
	p.Env = env
	var stderr bytes.Buffer
	p.Stderr = &stderr
	if err := p.Run(); err != nil {
		return nil, fmt.Errorf("probe %s: %w", probe, err)
	}
	bs := Parse(stderr.Bytes(), rename)
	if len(bs) == 0 {
		return nil, errors.New("the probe printed no bindings (not glibc's loader?)")
	}
	return bs, nil
}

// Command inert writes empty stand-ins for the shared libraries that Debian's libtorch
// loads for Caffe2's image and video operators and that no udocc process binds a symbol
// to, so that bin/udocc starts sooner. build.sh runs it after the shim is built and links
// bin/udocc to look in its folder first; when a check fails it writes nothing and
// bin/udocc loads every library as before.
//
// Why. Debian's libtorch_cpu 1.13 names OpenCV and FFmpeg libraries (DT_NEEDED), and they
// bring in about 230 more (GDAL, Qt, GStreamer, Poppler, ...). libtorch binds no symbol
// to any of them, but every process that loads the shim maps them, relocates them and
// runs their static constructors: on the 2-core machine about 0.1 s and 64 MB of
// resident memory of bin/udocc's 0.33 s, 183 MB start.
//
// How.
//
//  1. The shim's closure (ldd) and each library's DT_NEEDED.
//  2. The roots: libraries of the OpenCV and FFmpeg families (roots below) that a library
//     of the closure names. The stood-in libraries: those a root reaches, less those the
//     shim's other libraries reach without passing a root (stoodIn).
//  3. For each, an empty shared library (no symbol, no DT_NEEDED) with its SONAME.
//  4. Checks, each fatal, on a probe program linked against the shim as bin/udocc is
//     (DT_RPATH: the shim's folder, then the stand-ins'), beside the same probe without
//     the stand-ins:
//     - no stood-in library is loaded from anywhere but the stand-ins' folder;
//     - the loader says nothing on the probe's start (no missing version information);
//     - every symbol binding (LD_BIND_NOW=1 LD_DEBUG=bindings) is the one the probe
//     makes without the stand-ins, but for three kinds of change (compare): the
//     bindings the stood-in libraries request are gone; lookups made for their code
//     (dlsym, the vDSO's clocks) are fewer; a reference to a weak definition in a
//     stood-in library (a C++ template instance or inline function) binds to a weak
//     definition of the same symbol elsewhere, the same function by the one-definition
//     rule (with Debian's libtorch 1.13: 2 references, in oneDNN and gflags).
//  5. The stand-ins replace the folder -out.
//
// The rest of the process is untouched: a library user of package udocc (go build, go
// test) links the shim without this folder and loads every library; only bin/udocc,
// which build.sh links with -Wl,--disable-new-dtags -Wl,-rpath,$ORIGIN/../lib/inert,
// finds the stand-ins (a DT_RPATH, unlike a DT_RUNPATH, is searched for the libraries
// that libtorch's own libraries name).
//
// Usage:
//
//	inert -shim lib/libudocc_torch.so -out lib/inert
package main

import (
	"bufio"
	"bytes"
	"debug/elf"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/udocc/udocc/tools/shimlink/internal/ldbind"
)

// roots matches the SONAMEs of the libraries libtorch names for Caffe2's image and
// video operators: OpenCV's modules and FFmpeg's.
var roots = regexp.MustCompile(`^lib(opencv_[a-z0-9_]+|avcodec|avformat|avutil|avdevice|avfilter|swscale|swresample|postproc)\.so(\.|$)`)

// lddLine matches a line of ldd's output naming where a library was found.
var lddLine = regexp.MustCompile(`^\s*(\S+) => (/\S+) \(0x[0-9a-f]+\)$`)

func main() {
	shim := flag.String("shim", "lib/libudocc_torch.so", "the built shim")
	out := flag.String("out", "lib/inert", "the folder the stand-ins go to (replaced)")
	flag.Parse()
	n, rebound, err := run(*shim, *out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "inert:", err)
		os.Exit(1)
	}
	if n == 0 {
		fmt.Fprintln(os.Stderr, "inert: libtorch names no OpenCV or FFmpeg library: nothing to stand in for")
		return
	}
	fmt.Fprintf(os.Stderr, "inert: %d libraries stood in for in %s; every other binding unchanged but %d references to weak C++ definitions in them, bound to the same functions elsewhere\n", n, *out, rebound)
}

// run writes the stand-ins to out and returns how many, and how many references moved
// from a weak definition in a stood-in library to another; with none to write it removes
// out.
func run(shim, out string) (n, rebound int, err error) {
	found, err := closure(shim)
	if err != nil {
		return 0, 0, err
	}
	needed := map[string][]string{}
	for so, path := range found {
		if needed[so], err = imported(path); err != nil {
			return 0, 0, err
		}
	}
	top, err := imported(shim)
	if err != nil {
		return 0, 0, err
	}
	gone := stoodIn(top, needed)
	if len(gone) == 0 {
		return 0, 0, os.RemoveAll(out)
	}
	tmp := out + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return 0, 0, err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(tmp)
	for _, so := range gone {
		if err := standIn(filepath.Join(tmp, so), so); err != nil {
			return 0, 0, err
		}
	}
	rebound, err = check(shim, tmp, gone, found)
	if err != nil {
		return 0, 0, err
	}
	if err := os.RemoveAll(out); err != nil {
		return 0, 0, err
	}
	return len(gone), rebound, os.Rename(tmp, out)
}

// stoodIn returns, sorted, the libraries of needed (SONAME → its DT_NEEDED) that the
// shim, whose DT_NEEDED is top, needs only through a root: those a root reaches (X),
// less those reached, without passing a root, from the libraries the shim names that no
// root reaches (Y). The shim itself may name libraries of X (linkorder names every
// library it binds in, in its order): with the stand-ins, those names find the stand-ins.
func stoodIn(top []string, needed map[string][]string) []string {
	reach := func(from []string, through func(string) bool) map[string]bool {
		seen := map[string]bool{}
		queue := append([]string(nil), from...)
		for len(queue) > 0 {
			so := queue[0]
			queue = queue[1:]
			if seen[so] || !through(so) {
				continue
			}
			seen[so] = true
			queue = append(queue, needed[so]...)
		}
		return seen
	}
	var rootsFound []string
	for so := range needed {
		if roots.MatchString(so) {
			rootsFound = append(rootsFound, so)
		}
	}
	x := reach(rootsFound, func(string) bool { return true })
	var start []string
	for _, so := range top {
		if !x[so] {
			start = append(start, so)
		}
	}
	y := reach(start, func(so string) bool { return !roots.MatchString(so) })
	var gone []string
	for so := range x {
		if !y[so] {
			gone = append(gone, so)
		}
	}
	sort.Strings(gone)
	return gone
}

// closure returns every library the loader finds for the shim: SONAME (as DT_NEEDED
// names it) → path.
func closure(shim string) (map[string]string, error) {
	res, err := exec.Command("ldd", shim).Output()
	if err != nil {
		return nil, fmt.Errorf("ldd %s: %w", shim, err)
	}
	found := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(res))
	for sc.Scan() {
		if m := lddLine.FindStringSubmatch(sc.Text()); m != nil {
			found[m[1]] = m[2]
		} else if strings.Contains(sc.Text(), "not found") {
			return nil, fmt.Errorf("ldd %s: %s", shim, strings.TrimSpace(sc.Text()))
		}
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("ldd %s named no library", shim)
	}
	return found, nil
}

// imported returns the DT_NEEDED entries of the shared library at path.
func imported(path string) ([]string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ImportedLibraries()
}

// standIn writes an empty shared library named so: no symbol, no DT_NEEDED, nothing run
// at load.
func standIn(path, so string) error {
	cmd := exec.Command("gcc", "-shared", "-nostdlib", "-s", "-x", "c", "/dev/null", "-o", path, "-Wl,-soname,"+so)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("stand-in for %s: %w: %s", so, err, b)
	}
	return nil
}

// check runs the checks of step 4 (package comment) against the stand-ins in dir and
// returns how many references moved from a weak definition in a stood-in library to
// another (compare).
func check(shim, dir string, gone []string, found map[string]string) (int, error) {
	work, err := os.MkdirTemp("", "udocc-inert-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(work)
	shimDir, err := filepath.Abs(filepath.Dir(shim))
	if err != nil {
		return 0, err
	}
	dirAbs, err := filepath.Abs(dir)
	if err != nil {
		return 0, err
	}
	plain, inert := filepath.Join(work, "plain"), filepath.Join(work, "inert")
	if err := probe(plain, shimDir); err != nil {
		return 0, err
	}
	if err := probe(inert, shimDir+":"+dirAbs); err != nil {
		return 0, err
	}

	isGone, standing := map[string]bool{}, map[string]bool{} // by SONAME, and by the real library's path
	for _, so := range gone {
		isGone[so], standing[found[so]] = true, true
	}

	// No stood-in library from anywhere but dir.
	trace := exec.Command(inert)
	trace.Env = append(os.Environ(), "LD_TRACE_LOADED_OBJECTS=1")
	list, err := trace.Output()
	if err != nil {
		return 0, fmt.Errorf("the probe's libraries: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(list))
	for sc.Scan() {
		m := lddLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		if isGone[m[1]] && filepath.Dir(m[2]) != dirAbs {
			return 0, fmt.Errorf("%s is loaded from %s, not its stand-in", m[1], m[2])
		}
		if standing[m[2]] {
			return 0, fmt.Errorf("%s (stood in for) is loaded as %s", m[2], m[1])
		}
	}

	// The loader says nothing.
	quiet := exec.Command(inert)
	var stderr bytes.Buffer
	quiet.Stderr = &stderr
	if err := quiet.Run(); err != nil || stderr.Len() > 0 {
		return 0, fmt.Errorf("the probe with the stand-ins: %v %s", err, strings.TrimSpace(stderr.String()))
	}

	// Every binding unchanged.
	before, err := ldbind.Record(plain, "", map[string]string{plain: "PROBE"})
	if err != nil {
		return 0, err
	}
	after, err := ldbind.Record(inert, "", map[string]string{inert: "PROBE"})
	if err != nil {
		return 0, err
	}
	differ, rebound := compare(before, after, standing, weak)
	if len(differ) > 0 {
		if len(differ) > 5 {
			differ = append(differ[:5], fmt.Sprintf("and %d more", len(differ)-5))
		}
		return 0, errors.New("the stand-ins change bindings: " + strings.Join(differ, "; "))
	}
	return rebound, nil
}

// compare returns, sorted, the bindings of after that are not those of before (both
// recorded by ldbind.Record, the probe written PROBE), where standing holds the paths of
// the stood-in libraries, and how many references it allowed to move to another weak
// definition (isWeak(path, symbol) says whether the library at path defines symbol weak).
// Allowed:
//   - the bindings the stood-in libraries request are gone;
//   - lookups on no library's behalf (the probe's and the vDSO's names: dlsym by a
//     stood-in library's code, its clocks) are fewer, never more or elsewhere;
//   - a reference bound to a weak definition in a stood-in library (a C++ template or
//     inline function: vague linkage) binds to a weak definition of the same symbol
//     elsewhere, the same function by C++'s one-definition rule.
func compare(before, after []ldbind.Binding, standing map[string]bool, isWeak func(path, symbol string) bool) (differ []string, rebound int) {
	type ref struct{ requester, symbol string }
	// tally counts the bindings of bs by reference and definer, but those requested by
	// the stood-in libraries.
	tally := func(bs []ldbind.Binding) map[ref]map[string]int {
		t := map[ref]map[string]int{}
		for _, b := range bs {
			if standing[b.Requester] {
				continue
			}
			r := ref{b.Requester, b.Symbol}
			if t[r] == nil {
				t[r] = map[string]int{}
			}
			t[r][b.Definer]++
		}
		return t
	}
	old, now := tally(before), tally(after)
	onBehalf := func(requester string) bool {
		return requester == "PROBE" || strings.HasPrefix(filepath.Base(requester), "linux-vdso")
	}
	for r, defs := range now {
		was := old[r]
		for d, n := range defs {
			switch {
			case was[d] == n:
			case was[d] > n && onBehalf(r.requester):
			case was[d] == 0 && n == sumOthers(was, d) && allWeak(r.symbol, d, was, standing, isWeak):
				rebound += n
			default:
				differ = append(differ, fmt.Sprintf("%s: %s bound %d times in %s, %d before", r.requester, r.symbol, n, d, was[d]))
			}
		}
	}
	for r, defs := range old {
		for d, n := range defs {
			if now[r][d] == 0 && !onBehalf(r.requester) && !(standing[d] && len(now[r]) > 0) {
				differ = append(differ, fmt.Sprintf("%s: %s no longer bound in %s (%d before)", r.requester, r.symbol, d, n))
			}
		}
	}
	sort.Strings(differ)
	return differ, rebound
}

// sumOthers is how many bindings was holds in definers other than d.
func sumOthers(was map[string]int, d string) int {
	n := 0
	for e, c := range was {
		if e != d {
			n += c
		}
	}
	return n
}

// allWeak says whether every definer in was is a stood-in library, and symbol is a weak
// definition there and in d.
func allWeak(symbol, d string, was map[string]int, standing map[string]bool, weak func(path, symbol string) bool) bool {
	if len(was) == 0 || !weak(d, symbol) {
		return false
	}
	for e := range was {
		if !standing[e] || !weak(e, symbol) {
			return false
		}
	}
	return true
}

// weak says whether the shared library at path defines symbol as a weak symbol.
func weak(path, symbol string) bool {
	f, err := elf.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		return false
	}
	for _, s := range syms {
		if s.Name == symbol && s.Section != elf.SHN_UNDEF && elf.ST_BIND(s.Info) == elf.STB_WEAK {
			return true
		}
	}
	return false
}

// probe links a program against the shim in the first folder of rpath, which it holds as
// a DT_RPATH, as build.sh links bin/udocc.
func probe(path, rpath string) error {
	dir := strings.SplitN(rpath, ":", 2)[0]
	cmd := exec.Command("gcc", "-x", "c", "-", "-o", path, "-L"+dir, "-Wl,--no-as-needed", "-ludocc_torch",
		"-Wl,--disable-new-dtags", "-Wl,-rpath,"+rpath)
	cmd.Stdin = strings.NewReader("int main(void) { return 0; }\n")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("probe: %w: %s", err, b)
	}
	return nil
}

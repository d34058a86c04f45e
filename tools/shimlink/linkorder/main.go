// Command linkorder relinks lib/libudocc_torch.so so that a process loading it starts
// sooner, with every symbol bound exactly where it was bound before. build.sh runs it
// after linking the shim; when it cannot keep every binding it fails, and build.sh keeps
// the plain link.
//
// Why. Debian's libtorch 1.13 pulls in about 290 shared libraries (OpenCV, GDAL, FFmpeg,
// Qt through Caffe2). glibc's loader resolves a symbol by walking the process's global
// scope, breadth-first from the executable, until a library defines it; a library deep
// in that order (xerces, GEOS, GDAL, libcrypto, OpenBLAS) pays a walk of some 200
// libraries for each of its own symbols. On the 2-core machine that was 14.5 million
// lookup steps, about 0.1 s of every process's 0.4 s start.
//
// How. The shim names the libraries most bound to, most first, as its own DT_NEEDED
// entries, which puts them near the front of the scope. A symbol defined by two
// libraries (OpenBLAS's libblas.so.3 and libopenblas.so.0 both define sgemm_) must keep
// binding to the one that came first before, so the order is checked, not assumed:
//
//  1. record every binding of a probe program that loads build.sh's plain link,
//     LD_BIND_NOW=1 LD_DEBUG=bindings (requester, symbol → definer);
//  2. order the definers by how many bindings they take, most first, subject to the
//     constraints found so far (a before b), and relink naming them in that order;
//  3. record the bindings again. Identical: done. Otherwise every binding that moved
//     from a to b adds "a before b" (true of the old order, so an order always exists),
//     and back to 2, at most eight times.
//
// Usage:
//
//	linkorder -probe PROG -dir DIR -- LINK COMMAND ... @LIBS@ ...
//
// DIR holds the plain link, DIR/libudocc_torch.so, on the way in. The link command must
// write DIR/libudocc_torch.so; @LIBS@ is replaced by the ordered libraries' paths. PROG
// is a program linked against libudocc_torch.so, run with LD_LIBRARY_PATH=DIR. The
// result is left in DIR.
package main

import (
	"debug/elf"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/udocc/udocc/tools/shimlink/internal/ldbind"
)

var verbose bool

// maxRounds bounds step 3's loop; Debian's libtorch 1.13 needs four rounds.
const maxRounds = 8

type binding = ldbind.Binding

// order returns the definers by bindings taken, most first (ties by path), such that
// every constraint before[a][b] puts a ahead of b: Kahn's topological sort that always
// takes the heaviest library free to go.
func order(weight map[string]int, before map[string]map[string]bool) ([]string, error) {
	libs := make([]string, 0, len(weight))
	for l := range weight {
		libs = append(libs, l)
	}
	// A light library that must come before a heavy one goes as early as the heavy one
	// wants to: each library's priority is the largest weight among itself and all the
	// libraries that must follow it.
	prio := map[string]int{}
	var lift func(l string, path map[string]bool) int
	lift = func(l string, path map[string]bool) int {
		if p, ok := prio[l]; ok {
			return p
		}
		p := weight[l]
		path[l] = true
		for b := range before[l] {
			if _, ok := weight[b]; ok && !path[b] {
				p = max(p, lift(b, path))
			}
		}
		delete(path, l)
		prio[l] = p
		return p
	}
	for _, l := range libs {
		lift(l, map[string]bool{})
	}
	heavier := func(a, b string) bool {
		if prio[a] != prio[b] {
			return prio[a] > prio[b]
		}
		if weight[a] != weight[b] {
			return weight[a] > weight[b]
		}
		return a < b
	}
	sort.Slice(libs, func(i, j int) bool { return heavier(libs[i], libs[j]) })
	indeg := map[string]int{}
	for a, bs := range before {
		if _, ok := weight[a]; !ok {
			continue
		}
		for b := range bs {
			if _, ok := weight[b]; ok {
				indeg[b]++
			}
		}
	}
	out := make([]string, 0, len(libs))
	done := map[string]bool{}
	for len(out) < len(libs) {
		next := ""
		for _, l := range libs { // libs is sorted heaviest first
			if !done[l] && indeg[l] == 0 {
				next = l
				break
			}
		}
		if next == "" {
			return nil, errors.New("the constraints on the order form a cycle")
		}
		done[next] = true
		out = append(out, next)
		for b := range before[next] {
			if _, ok := weight[b]; ok {
				indeg[b]--
			}
		}
	}
	return out, nil
}

// moved compares two runs' bindings: differ says whether they differ at all (as
// multisets), and pairs gives, for every reference whose definer changed, the pair (old
// definer, new definer).
func moved(base, now []binding) (pairs [][2]string, differ bool) {
	count := map[binding]int{}
	for _, b := range base {
		count[b]++
	}
	for _, b := range now {
		count[b]--
	}
	for _, c := range count {
		if c != 0 {
			differ = true
			break
		}
	}
	key := func(b binding) string { return b.Requester + "\x00" + b.Symbol }
	was := map[string]string{}
	for _, b := range base {
		was[key(b)] = b.Definer
	}
	for _, b := range now {
		if old, ok := was[key(b)]; ok && old != b.Definer {
			pairs = append(pairs, [2]string{old, b.Definer})
		}
	}
	return pairs, differ
}

// linkWith runs the link command with libs in place of @LIBS@.
func linkWith(link []string, libs []string) error {
	var args []string
	for _, a := range link {
		if a == "@LIBS@" {
			args = append(args, libs...)
			continue
		}
		args = append(args, a)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("link: %w", err)
	}
	return nil
}

// bindings runs probe against the shim in dir and returns what its loader bound.
func bindings(probe, dir string) ([]binding, error) {
	return ldbind.Record(probe, dir, nil)
}

// candidates are the definers the shim may name: shared libraries with a SONAME (so
// that DT_NEEDED records a name, not a path), other than the probe and the shim.
func candidates(bs []binding, probe string) map[string]int {
	weight := map[string]int{}
	for _, b := range bs {
		weight[b.Definer]++
	}
	probeAbs, _ := filepath.Abs(probe)
	for l := range weight {
		if l == ldbind.Shim || l == probe || l == probeAbs || strings.HasPrefix(filepath.Base(l), "linux-vdso") {
			delete(weight, l)
			continue
		}
		f, err := elf.Open(l)
		if err != nil {
			delete(weight, l)
			continue
		}
		so, err := f.DynString(elf.DT_SONAME)
		f.Close()
		if err != nil || len(so) == 0 {
			delete(weight, l)
		}
	}
	return weight
}

func main() {
	probe := flag.String("probe", "", "a program linked against libudocc_torch.so")
	dir := flag.String("dir", "", "the folder the link command writes libudocc_torch.so to")
	flag.BoolVar(&verbose, "v", false, "name the libraries whose order each round constrains")
	flag.Parse()
	link := flag.Args()
	if *probe == "" || *dir == "" || len(link) == 0 {
		fmt.Fprintln(os.Stderr, "usage: linkorder -probe PROG -dir DIR -- LINK COMMAND ... @LIBS@ ...")
		os.Exit(2)
	}
	if err := relink(*probe, *dir, link); err != nil {
		fmt.Fprintln(os.Stderr, "linkorder:", err)
		os.Exit(1)
	}
}

func relink(probe, dir string, link []string) error {
	base, err := bindings(probe, dir) // the plain link, which the caller left in dir
	if err != nil {
		return err
	}
	weight := candidates(base, probe)
	before := map[string]map[string]bool{}
	for round := 1; round <= maxRounds; round++ {
		libs, err := order(weight, before)
		if err != nil {
			return err
		}
		if err := linkWith(link, libs); err != nil {
			return err
		}
		now, err := bindings(probe, dir)
		if err != nil {
			return err
		}
		pairs, differ := moved(base, now)
		if !differ {
			fmt.Fprintf(os.Stderr, "linkorder: %d libraries named in front, %d bindings unchanged (round %d)\n", len(libs), len(base), round)
			return nil
		}
		added := 0
		for _, p := range pairs {
			if before[p[0]] == nil {
				before[p[0]] = map[string]bool{}
			}
			if !before[p[0]][p[1]] {
				before[p[0]][p[1]] = true
				added++
			}
		}
		fmt.Fprintf(os.Stderr, "linkorder: round %d moved %d bindings; %d new constraints on the order\n", round, len(pairs), added)
		if verbose {
			for _, p := range pairs {
				fmt.Fprintf(os.Stderr, "linkorder:   %s before %s\n", p[0], p[1])
			}
		}
		if added == 0 {
			return fmt.Errorf("round %d changed bindings that no constraint on the order can restore", round)
		}
	}
	return fmt.Errorf("bindings still differ after %d rounds", maxRounds)
}

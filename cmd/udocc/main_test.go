package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The tests of this file's package run udocc end to end: TestMain builds the command
// once into a temporary folder (its RUNPATH, from the torch package's cgo flags, points
// at the checkout's lib/, so the shim is found from anywhere) and each test runs that
// binary in a folder of its own, as a user would.
//
// Coverage of those runs: with UDOCC_COVERDIR set to a folder, the binary is built with
// -cover over every package of the module and writes its counters there (GOCOVERDIR)
// at each exit; `go tool covdata percent -i FOLDER` then gives them per package:
//
//	mkdir -p /tmp/udocc-cover && UDOCC_COVERDIR=/tmp/udocc-cover go test ./cmd/udocc/
//	go tool covdata percent -i /tmp/udocc-cover
//
// The tests that run in process count with go test's own -cover, not there.

// udoccBin is the path of the binary TestMain built.
var udoccBin string

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "udocc-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	udoccBin = filepath.Join(dir, "udocc")
	args := []string{"build", "-o", udoccBin}
	if cover := os.Getenv("UDOCC_COVERDIR"); cover != "" {
		args = append(args, "-cover", "-coverpkg=github.com/udocc/udocc/...")
		os.Setenv("GOCOVERDIR", cover) // the binaries the tests start inherit it
	}
	// Linked as build.sh links bin/udocc: where build.sh wrote lib/inert (the stand-ins for
	// the libraries libtorch names and never calls, checked against lib/libudocc_torch.so:
	// tools/shimlink/inert), a DT_RPATH to it, so that every test of the binary runs the
	// process users run.
	if inert, err := filepath.Abs("../../lib/inert"); err == nil && shimLib {
		if st, err := os.Stat(inert); err == nil && st.IsDir() {
			args = append(args, "-ldflags", "-extldflags '-Wl,--disable-new-dtags -Wl,-rpath,"+inert+"'")
		}
	}
	build := exec.Command("go", append(args, ".")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "building udocc (run ./build.sh first for lib/libudocc_torch.so): %v\n", err)
		return 1
	}
	return m.Run()
}

// tiny are training flags that keep a fit well under a second.
var tiny = []string{"--pretrain-epochs", "2", "--epochs", "4", "--quiet"}

const tinyEpochs = 4

// result is what one run of the binary left: its output streams and exit status.
type result struct {
	stdout, stderr string
	code           int
}

// udocc runs the built binary with args in dir.
func udocc(t *testing.T, dir string, args ...string) result {
	t.Helper()
	cmd := exec.Command(udoccBin, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("udocc %s: %v", strings.Join(args, " "), err)
	}
	return result{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}
}

// inProcess runs the command line in this process through run, which is all that main
// does besides os.Exit. The tables of usage errors and help texts run this way, because
// each start of the binary costs about 0.4 s of CPU in libtorch's loading alone.
func inProcess(args ...string) result {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return result{stdout.String(), stderr.String(), code}
}

// udoccOrInProcess runs the command line through the binary when binary is set and in
// process otherwise; paths in args must then be absolute.
func udoccOrInProcess(t *testing.T, binary bool, dir string, args ...string) result {
	t.Helper()
	if binary {
		return udocc(t, dir, args...)
	}
	return inProcess(args...)
}

// mustUdocc runs udocc and fails the test unless it exits 0.
func mustUdocc(t *testing.T, dir string, args ...string) result {
	t.Helper()
	r := udocc(t, dir, args...)
	if r.code != 0 {
		t.Fatalf("udocc %s: exit %d\nstderr: %s", strings.Join(args, " "), r.code, r.stderr)
	}
	return r
}

// fitArgs is "fit" with the tiny training flags, then args.
func fitArgs(args ...string) []string {
	return append(append([]string{"fit"}, tiny...), args...)
}

// oneErrorLine checks that a failed run said one line on stderr, naming want, and
// nothing on stdout.
func oneErrorLine(t *testing.T, r result, wantCode int, want string) {
	t.Helper()
	if r.code != wantCode {
		t.Errorf("exit %d, want %d (stderr %q)", r.code, wantCode, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("stdout %q, want nothing", r.stdout)
	}
	if !strings.HasSuffix(r.stderr, "\n") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("stderr %q, want exactly one line", r.stderr)
	}
	if !strings.HasPrefix(r.stderr, "udocc") {
		t.Errorf("stderr %q does not start with udocc", r.stderr)
	}
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr %q does not name %q", r.stderr, want)
	}
}

// table is a synthetic labelled table: three features a, b, c and the label y, which
// sits between a and b so that --label must pick it out of the middle.
type table struct {
	n, d int
	y    []int
}

// writeTable writes n rows of d features (named a, b, c, …) and, when labelled, the label
// column y as the file's second column. Every tenth row is an anomaly drawn from a
// box far wider than the unit Gaussian of the normal rows.
func writeTable(t *testing.T, path string, n, d int, labelled bool, seed uint64) table {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	var header []string
	for j := 0; j < d; j++ {
		header = append(header, string(rune('a'+j)))
	}
	if labelled {
		header = slices.Insert(header, 1, "y")
	}
	b.WriteString(strings.Join(header, ",") + "\n")
	tab := table{n: n, d: d}
	for i := 0; i < n; i++ {
		anomaly := i%10 == 3
		var cells []string
		for j := 0; j < d; j++ {
			v := r.NormFloat64()
			if anomaly {
				v = -8 + 16*r.Float64()
			}
			cells = append(cells, strconv.FormatFloat(v, 'f', 6, 64))
		}
		if labelled {
			y := 0
			if anomaly {
				y = 1
			}
			tab.y = append(tab.y, y)
			cells = slices.Insert(cells, 1, strconv.Itoa(y))
		}
		b.WriteString(strings.Join(cells, ",") + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return tab
}

// csvFile is a CSV that udocc wrote: its header and rows.
type csvFile struct {
	header []string
	rows   [][]string
}

func readCSV(t *testing.T, path string) csvFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(recs) == 0 {
		t.Fatalf("%s is empty", path)
	}
	return csvFile{recs[0], recs[1:]}
}

// col is the column named name; the test fails when there is none.
func (c csvFile) col(t *testing.T, name string) []string {
	t.Helper()
	j := slices.Index(c.header, name)
	if j < 0 {
		t.Fatalf("no column %q in %v", name, c.header)
	}
	out := make([]string, len(c.rows))
	for i, r := range c.rows {
		out[i] = r[j]
	}
	return out
}

// floats is the column named name as numbers.
func (c csvFile) floats(t *testing.T, name string) []float64 {
	t.Helper()
	var out []float64
	for i, s := range c.col(t, name) {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("column %s, row %d: %v", name, i, err)
		}
		out = append(out, v)
	}
	return out
}

// readSummary decodes a summary.json into a map, to check key names as written.
func readSummary(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}

// number is s[key] as a number; the test fails when it is missing or not a number.
func number(t *testing.T, s map[string]any, key string) float64 {
	t.Helper()
	v, ok := s[key].(float64)
	if !ok {
		t.Fatalf("summary %q is %v (%T), want a number", key, s[key], s[key])
	}
	return v
}

// closeEnough reports whether a and b agree to a relative 1e-6.
func closeEnough(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-6*math.Max(math.Abs(a), math.Abs(b))
}

// checkPNG checks that path is a PNG image that decodes.
func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return
	}
	if b := img.Bounds(); b.Dx() < 100 || b.Dy() < 100 {
		t.Errorf("%s is %dx%d pixels", path, b.Dx(), b.Dy())
	}
}

// leftovers lists the temporary files and folders under dir: names that the atomic
// writers use for work in progress (".name.*.tmp", ".model-*.tmp").
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path != dir && (strings.HasPrefix(e.Name(), ".") || strings.HasSuffix(e.Name(), ".tmp")) {
			out = append(out, path)
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return out
}

// snapshot maps every file under dir to its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		out[path] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestReadmeFirstRun runs the README's first commands as a user of a fresh clone
// does: in a copy of the repository's tracked files, outside the checkout, with no
// ../shared beside it. The README's set-up command, ./build.sh, is stood in for by
// the binary TestMain built (bin/udocc) and the checkout's lib/. Every "$ " line of
// the section "A first run" must exit 0, and every line the README shows under it
// must appear in its output with the numbers masked (timings and low digits vary
// with the machine; the words, columns and order may not). Then the README's
// library program runs there, through go run as the README says.
func TestReadmeFirstRun(t *testing.T) {
	if !shimLib {
		t.Skip("the README's set-up links lib/ (build tag udocc_shimlib)")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("no git checkout to copy: %v", err)
	}
	clone := filepath.Join(t.TempDir(), "udocc")
	for _, f := range strings.Split(strings.TrimRight(string(files), "\x00"), "\x00") {
		copyTracked(t, filepath.Join(root, f), filepath.Join(clone, f))
	}
	if _, err := os.Stat(filepath.Join(clone, "..", "shared")); err == nil {
		t.Fatalf("%s has a ../shared: not a fresh clone", clone)
	}
	// What ./build.sh leaves: bin/udocc and lib/.
	if err := os.MkdirAll(filepath.Join(clone, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(udoccBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(clone, "bin", "udocc"), bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "lib"), filepath.Join(clone, "lib")); err != nil {
		t.Fatal(err)
	}

	readme, err := os.ReadFile(filepath.Join(clone, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	steps := firstRunSteps(string(readme))
	if len(steps) < 5 {
		t.Fatalf("the README's first run has %d commands, want the fit, score and re-cuts", len(steps))
	}
	runSteps(t, clone, steps)

	// Every other doc's commands, each doc in a folder of its own beside the clone's
	// bin/, lib/ and examples/: "udocc" is bin/udocc.
	docs, _ := filepath.Glob(filepath.Join(clone, "docs", "*.md"))
	for _, doc := range docs {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		steps := docSteps(string(text))
		if len(steps) == 0 {
			continue
		}
		t.Run(filepath.Base(doc), func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range []string{"bin", "lib", "examples"} {
				if err := os.Symlink(filepath.Join(clone, f), filepath.Join(dir, f)); err != nil {
					t.Fatal(err)
				}
			}
			runSteps(t, dir, steps)
		})
	}

	cmd := exec.Command("go", "run", "-tags", "udocc_shimlib", "./examples/library")
	cmd.Dir = clone
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "rows flagged") {
		t.Fatalf("go run ./examples/library in the clone: %v\n%s", err, out)
	}
}

// runSteps runs a doc's commands in dir, in order: each must exit 0, and each line the
// doc shows under it must be in its output, numbers masked and runs of spaces as one
// (column widths follow the numbers). "udocc" is bin/udocc. A "$ #" line is a comment,
// except that one saying to fill or answer a labels file has the labels file of the
// last review answered from its table's label column, as a user who knows them would.
func runSteps(t *testing.T, dir string, steps []step) {
	t.Helper()
	lastReview := ""
	for _, s := range steps {
		if strings.HasPrefix(s.command, "#") {
			if strings.Contains(s.command, "fill") || strings.Contains(s.command, "answer") {
				answerLabels(t, dir, lastReview)
			}
			continue
		}
		command := s.command
		if strings.HasPrefix(command, "udocc ") {
			command = "bin/" + command
		}
		if strings.Contains(command, "udocc review ") {
			lastReview = command
		}
		cmd := exec.Command("bash", "-c", command)
		cmd.Dir = dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("$ %s: %v\nstderr: %s", s.command, err, stderr.String())
		}
		got := spaced(masked(stdout.String()))
		for _, want := range s.output {
			if !strings.Contains(got, spaced(masked(want))) {
				t.Errorf("$ %s: the doc shows %q, the output has no such line:\n%s", s.command, want, stdout.String())
			}
		}
	}
}

var spaces = regexp.MustCompile(`[ \t]+`)

// spaced is s with every run of spaces as one, and no space at a line's end.
func spaced(s string) string {
	s = spaces.ReplaceAllString(s, " ")
	return strings.ReplaceAll(s, " \n", "\n")
}

// answerLabels fills the empty anomaly cells of the labels file of review command
// (--labels FILE, its table the command's other .csv) from the table's label column,
// the one fit was given (--label in examples/pumps.csv: fault).
func answerLabels(t *testing.T, dir, review string) {
	t.Helper()
	args := strings.Fields(review)
	i := slices.Index(args, "--labels")
	if i < 0 || i+1 >= len(args) {
		t.Fatalf("a fill step after %q, which names no --labels file", review)
	}
	data := ""
	for _, a := range args {
		if strings.HasSuffix(a, ".csv") && a != args[i+1] {
			data = a
		}
	}
	var y []int
	for _, v := range readCSV(t, filepath.Join(dir, data)).col(t, "fault") {
		k, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("%s: fault %q", data, v)
		}
		y = append(y, k)
	}
	answerAll(t, filepath.Join(dir, args[i+1]), y)
}

// docSteps are the "$ " commands of every fenced block of a doc, in order, with the
// lines each shows under it.
func docSteps(doc string) []step {
	var steps []step
	for i, block := range strings.Split(doc, "```") {
		if i%2 == 0 { // prose between the fences
			continue
		}
		cur := -1
		for _, l := range strings.Split(block, "\n")[1:] {
			switch {
			case strings.HasPrefix(l, "$ "):
				steps = append(steps, step{command: strings.TrimPrefix(l, "$ ")})
				cur = len(steps) - 1
			case l != "" && l != "…" && cur >= 0:
				steps[cur].output = append(steps[cur].output, l)
			}
		}
	}
	return steps
}

// step is one "$ " command of the README and the lines it shows under it.
type step struct {
	command string
	output  []string
}

// firstRunSteps are the commands of the README's section "A first run", in order.
func firstRunSteps(readme string) []step {
	_, section, _ := strings.Cut(readme, "\n## A first run")
	section, _, _ = strings.Cut(section, "\n## ")
	var steps []step
	for i, block := range strings.Split(section, "```") {
		if i%2 == 0 { // prose between the fences
			continue
		}
		cur := -1 // lines of a block before its first command are a file's, not output
		for _, l := range strings.Split(block, "\n")[1:] {
			switch {
			case strings.HasPrefix(l, "$ "):
				steps = append(steps, step{command: strings.TrimPrefix(l, "$ ")})
				cur = len(steps) - 1
			case l != "" && cur >= 0:
				steps[cur].output = append(steps[cur].output, l)
			}
		}
	}
	return steps
}

var numberRun = regexp.MustCompile(`-?[0-9]+(\.[0-9]+)?(e-?[0-9]+)?`)

// masked is s with every number as #.
func masked(s string) string { return numberRun.ReplaceAllString(s, "#") }

// copyTracked copies the file src to dst, making dst's folder.
func copyTracked(t *testing.T, src, dst string) {
	t.Helper()
	st, err := os.Lstat(src)
	if os.IsNotExist(err) {
		return // deleted in the working tree, not yet in git's index
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if st.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, dst); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, st.Mode().Perm()); err != nil {
		t.Fatal(err)
	}
}

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
	for _, s := range steps {
		cmd := exec.Command("bash", "-c", s.command)
		cmd.Dir = clone
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("$ %s: %v\nstderr: %s", s.command, err, stderr.String())
		}
		got := masked(stdout.String())
		for _, want := range s.output {
			if !strings.Contains(got, masked(want)) {
				t.Errorf("$ %s: the README shows %q, the output has no such line:\n%s", s.command, want, stdout.String())
			}
		}
	}

	cmd := exec.Command("go", "run", "-tags", "udocc_shimlib", "./examples/library")
	cmd.Dir = clone
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "rows flagged") {
		t.Fatalf("go run ./examples/library in the clone: %v\n%s", err, out)
	}
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

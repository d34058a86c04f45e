package udocc_test

import (
	"os"
	"strings"
	"testing"
)

// TestReadme checks that the README's "As a library" section shows the replace
// directive and `go get`, and that its
// program is, line for line, examples/library/main.go from its package clause on: a
// program that `go vet ./...` compiles and its TestProgram runs.
func TestReadme(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## As a library\n")
	section, _, _ = strings.Cut(section, "\n## ")
	_, block, ok2 := strings.Cut(section, "```go\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal(`README.md: no go code block in "## As a library"`)
	}
	// The module is not published: a Go program points at a clone.
	if !strings.Contains(section, "```sh\ngo mod edit -replace github.com/udocc/udocc=../udocc && go get github.com/udocc/udocc\n```") {
		t.Error(`README.md's "As a library" does not show the replace directive and go get`)
	}
	src, err := os.ReadFile("examples/library/main.go")
	if err != nil {
		t.Fatal(err)
	}
	_, code, ok := strings.Cut(string(src), "\npackage main\n")
	if !ok {
		t.Fatal("examples/library/main.go: no package clause")
	}
	if want, got := lines("package main\n"+code), lines(block); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("README.md's library program differs from examples/library/main.go:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := len(lines(code[strings.Index(code, "func main()"):])); n > 17 {
		t.Errorf("the README's program's main has %d lines, want at most 15 and its braces", n)
	}
}

// lines are the non-empty lines of code without their indentation.
func lines(code string) []string {
	var out []string
	for _, l := range strings.Split(code, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// TestReadmeFrontPage is issue 42 item 11 and issue 64 item 9: the README stays a
// front page (at most 200 lines); Install comes first, then a run on a plain CSV that
// the repository ships (fit, the summary, score, a re-cut); and it cites the paper by
// its authors and title, not only by a path. cmd/udocc's TestReadmeFirstRun runs
// that section's commands in a fresh copy of the repository.
func TestReadmeFrontPage(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if n := strings.Count(readme, "\n"); n > 200 {
		t.Errorf("README.md has %d lines, want at most 200 (the rest goes in docs/)", n)
	}
	_, first, _ := strings.Cut(readme, "\n## ")
	if !strings.HasPrefix(first, "Install\n") {
		t.Errorf("the README's first section is %q, want Install", strings.SplitN(first, "\n", 2)[0])
	}
	_, run, ok := strings.Cut(readme, "\n## A first run")
	run, _, _ = strings.Cut(run, "\n## ")
	if !ok {
		t.Error("the README has no section \"A first run\"")
	}
	for _, want := range []string{"CSV", "bin/udocc fit examples/pumps.csv", "features (", "bin/udocc score --model", "--contamination", "bin/udocc cut"} {
		if !strings.Contains(run, want) {
			t.Errorf("the README's first run lacks %q", want)
		}
	}
	if strings.Contains(run, "../shared") {
		t.Error("the README's first run reads ../shared, which a user's clone lacks")
	}
	for _, want := range []string{"Minkyung Kim, Junsik Kim, Jongmin Yu and Jun Kyun Choi",
		"Unsupervised\nDeep One-Class Classification with Adaptive Threshold based on Training Dynamics"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md does not cite the paper: lacks %q", want)
		}
	}
}

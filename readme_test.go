package udocc_test

import (
	"os"
	"strings"
	"testing"
)

// TestReadme checks that the README's "As a library" example is, line for line, the
// code between the markers of readme in example_test.go, which compiles and runs.
func TestReadme(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## As a library\n")
	_, block, ok2 := strings.Cut(section, "```go\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal(`README.md: no go code block in "## As a library"`)
	}
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, code, _ := strings.Cut(string(src), "// README begin\n")
	code, _, _ = strings.Cut(code, "// README end")
	if want, got := lines(code), lines(block); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("README.md's library example differs from example_test.go's readme:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
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

// TestReadmeFrontPage is issue 42 item 11: the README stays a front page (at most 200
// lines), its first section is a run on a plain CSV (fit, the summary, score, a re-cut),
// and it cites the paper by its authors and title, not only by a path.
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
	first, _, _ = strings.Cut(first, "\n## ")
	for _, want := range []string{"CSV", "bin/udocc fit pima.csv", "features (", "bin/udocc score --model", "--contamination", "bin/udocc cut"} {
		if !strings.Contains(first, want) {
			t.Errorf("the README's first section lacks %q", want)
		}
	}
	for _, want := range []string{"Minkyung Kim, Junsik Kim, Jongmin Yu and Jun Kyun Choi",
		"Unsupervised\nDeep One-Class Classification with Adaptive Threshold based on Training Dynamics"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md does not cite the paper: lacks %q", want)
		}
	}
}

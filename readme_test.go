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

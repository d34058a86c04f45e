package data

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHasScoreColumns reads the header of CSV files: udocc's scores.csv and an appended
// table have the score columns, others (a user's table, a binary file, a first line
// longer than 1 MiB, an empty file) do not; a missing file is an error.
func TestHasScoreColumns(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, text string
		want       bool
	}{
		{"scores.csv", "row,score,rank,label,true_label\n0,1.5,3,1,1\n", true},
		{"ids.csv", "row,\"id, quoted\",score,rank,label\n", true},
		{"appended.csv", "a,b,score,rank,label\n1,2,0.5,1,0\n", true},
		{"mine.csv", "a,score,label,rank\n1,2,3,4\n", false},
		{"binary.csv", "\x1f\x8b\x08\x00score,rank,label", false},
		{"long.csv", strings.Repeat("x", 1<<20+10) + ",score,rank,label\n", false},
		{"empty.csv", "", false},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := HasScoreColumns(p); got != c.want || err != nil {
			t.Errorf("%s: %v, %v; want %v", c.name, got, err, c.want)
		}
	}
	if _, err := HasScoreColumns(filepath.Join(dir, "missing.csv")); err == nil {
		t.Error("a missing file: no error")
	}
}

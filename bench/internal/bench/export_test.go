package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportRealScores: an original table's fit at the seed asked for becomes a
// scores.csv of its scores and labels (at most maxScores of them, evenly spaced in score
// order, the lowest and the highest kept); a copy's fit and another seed's are left out.
func TestExportRealScores(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, RealRaw), 0o755); err != nil {
		t.Fatal(err)
	}
	recs := []RealRecord{
		{Table: "odds/a", Group: "a", Seed: 0, N: 9},
		{Table: "odds/a", Group: "a", Seed: 1, N: 9},
		{Table: "odds/a~copy0", Group: "a", Seed: 0, Source: "odds/a", N: 9},
	}
	var lines []byte
	for _, r := range recs {
		raw := realRaw{Scores: []float64{5, 1, 9, 3, 7, 2, 8, 4, 6}, Y: []int8{0, 0, 1, 0, 0, 0, 1, 0, 0}}
		if err := writeRaw(filepath.Join(dir, RealRaw), r, raw); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(r)
		lines = append(append(lines, b...), '\n')
	}
	if err := os.WriteFile(filepath.Join(dir, RealFile), lines, 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	dirs, err := ExportRealScores(dir, out, 0, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) != 1 || filepath.Base(dirs[0]) != "odds_a-0" {
		t.Fatalf("folders %v, want one, odds_a-0", dirs)
	}
	b, err := os.ReadFile(filepath.Join(dirs[0], "scores.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// Scores in order 1..9; five evenly spaced: 1, 3, 5, 7, 9 (rows 1, 3, 0, 4, 2).
	want := "score,true_label\n1,0\n3,0\n5,0\n7,0\n9,1\n"
	if got := string(b); got != want {
		t.Errorf("scores.csv:\n%s\nwant:\n%s", got, want)
	}
	all, err := ExportRealScores(dir, t.TempDir(), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(filepath.Join(all[0], "scores.csv"))
	if n := strings.Count(string(b), "\n"); n != 10 {
		t.Errorf("seed 1, every score: %d lines, want 10", n)
	}
}

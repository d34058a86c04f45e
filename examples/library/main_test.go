package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/udocc/udocc"
)

// TestProgram runs the README's program on a CSV of 200 rows with a header: it must
// save a model that loads, with the table's columns and a finite threshold.
func TestProgram(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	b.WriteString("a,b,c,d\n")
	for range 200 {
		fmt.Fprintf(&b, "%.4f,%.4f,%.4f,%.4f\n", r.NormFloat64(), r.NormFloat64(), r.NormFloat64(), r.NormFloat64())
	}
	if err := os.WriteFile(filepath.Join(dir, "table.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	args := os.Args
	defer func() { os.Args = args }()
	os.Args = []string{"library", "table.csv"}
	main()
	m, err := udocc.Load(filepath.Join(dir, "model"), "cpu")
	if err != nil {
		t.Fatalf("the program's model: %v", err)
	}
	defer m.Close()
	if got := m.Features(); !slices.Equal(got, []string{"a", "b", "c", "d"}) {
		t.Errorf("the model's columns are %q, want a, b, c, d", got)
	}
	if thr := m.Threshold(); thr != thr || thr > 1e300 {
		t.Errorf("threshold %v, want a finite one", thr)
	}
	scores, err := m.Score(context.Background(), [][]float64{{0, 0, 0, 0}, {9, -9, 9, -9}})
	if err != nil || !(scores[1] > scores[0]) {
		t.Errorf("scores %v (%v): a far row must score above the center", scores, err)
	}
}

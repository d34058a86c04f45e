package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/udocc/udocc"
)

// TestProgram runs the README's program on the README's table, examples/pumps.csv
// (blank cells and a label column included): it must save a model that loads, with the
// table's six feature columns, a finite threshold, and a faulty pump scored above a
// sound one.
func TestProgram(t *testing.T) {
	src, err := os.ReadFile("../pumps.csv")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "examples"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "examples", "pumps.csv"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	main()
	m, err := udocc.Load(filepath.Join(dir, "model"), "cpu")
	if err != nil {
		t.Fatalf("the program's model: %v", err)
	}
	defer m.Close()
	want := []string{"speed_rpm", "flow_m3h", "pressure_bar", "power_kw", "temperature_c", "vibration_mms"}
	if got := m.Features(); !slices.Equal(got, want) {
		t.Errorf("the model's columns are %q, want %q", got, want)
	}
	if thr := m.Threshold(); thr != thr || thr > 1e300 {
		t.Errorf("threshold %v, want a finite one", thr)
	}
	// A sound pump at 2,900 rpm, and the same pump with four times its vibration (a
	// worn bearing, examples/pumps).
	sound := []float64{2900, 60, 4.5, 10.7, 52.2, 2.7}
	worn := []float64{2900, 60, 4.5, 10.7, 62.2, 10.8}
	scores, err := m.Score(context.Background(), [][]float64{sound, worn})
	if err != nil || !(scores[1] > scores[0]) {
		t.Errorf("scores %v (%v): a worn bearing must score above a sound pump", scores, err)
	}
}

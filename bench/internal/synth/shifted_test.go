package synth

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestShifted checks the shifted kind: the same seed gives the same table and causes,
// another seed another; exactly the anomalies have causes, one to three non-constant
// features each; and every anomaly is a normal row of the table with exactly its cause
// features moved by ±Shift standard deviations.
func TestShifted(t *testing.T) {
	const n, d = 300, 6
	rng := rand.New(rand.NewPCG(1, 2))
	normals := make([]float64, n*d)
	for i := range normals {
		normals[i] = rng.NormFloat64() * float64(1+i%d)
		if i%d == 4 {
			normals[i] = 7 // a constant feature is never shifted
		}
	}
	g, err := NewGenerator(normals, n, d, 3, Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, y, causes, err := g.TableCauses(Shifted, 0.1, 5)
	if err != nil {
		t.Fatal(err)
	}
	x2, y2, causes2, _ := g.TableCauses(Shifted, 0.1, 5)
	if !slices.Equal(x, x2) || !slices.Equal(y, y2) || !slices.EqualFunc(causes, causes2, slices.Equal) {
		t.Fatal("the same seed gave another table")
	}
	if x3, _, _, _ := g.TableCauses(Shifted, 0.1, 6); slices.Equal(x, x3) {
		t.Fatal("another seed gave the same table")
	}
	var normalRows [][]float64
	for i, v := range y {
		if v == 0 {
			normalRows = append(normalRows, x[i*d:(i+1)*d])
		}
	}
	counts := map[int]int{}
	for i, v := range y {
		c := causes[i]
		if v == 0 {
			if c != nil {
				t.Fatalf("normal row %d has causes %v", i, c)
			}
			continue
		}
		if len(c) < 1 || len(c) > 3 || !slices.IsSorted(c) || slices.Contains(c, 4) {
			t.Fatalf("anomaly %d: causes %v, want 1 to 3 non-constant features in order", i, c)
		}
		counts[len(c)]++
		row := x[i*d : (i+1)*d]
		found := slices.ContainsFunc(normalRows, func(nr []float64) bool {
			for j := range row {
				moved := math.Abs(math.Abs(row[j]-nr[j])-5*g.scale[j]) < 1e-9*(1+math.Abs(row[j]))
				if slices.Contains(c, j) != (row[j] != nr[j]) || (slices.Contains(c, j) && !moved) {
					return false
				}
			}
			return true
		})
		if !found {
			t.Fatalf("anomaly %d (%v, causes %v) is no normal row moved in its causes by 5 standard deviations", i, row, c)
		}
	}
	if counts[1] == 0 || counts[2] == 0 || counts[3] == 0 {
		t.Errorf("anomalies by number of causes %v: want some of 1, 2 and 3", counts)
	}
	if _, _, causes, _ := g.TableCauses(Global, 0.1, 5); causes != nil {
		t.Error("global anomalies have causes")
	}
}

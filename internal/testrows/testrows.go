// Package testrows holds what the library's and the detector's tests share: a small
// table with planted anomalies, and a model saved and loaded back.
package testrows

import (
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// Table is n rows of d numbers: normal rows near the origin and, every tenth row, an
// anomaly far from it (every value shifted by 8).
func Table(n, d int, seed uint64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = make([]float64, d)
		for j := range rows[i] {
			rows[i][j] = rng.NormFloat64()
			if i%10 == 9 {
				rows[i][j] += 8
			}
		}
	}
	return rows
}

// Model is what Reloaded needs of a model.
type Model interface {
	Save(dir string) error
	Close() error
}

// Reloaded saves m into a new folder and loads it back with load on the CPU; the test
// closes it.
func Reloaded[M Model](t testing.TB, m M, load func(dir, device string) (M, error)) M {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "model")
	if err := m.Save(dir); err != nil {
		t.Fatal(err)
	}
	l, err := load(dir, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

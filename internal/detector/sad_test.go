package detector_test

import (
	"context"
	"testing"

	"github.com/udocc/udocc/internal/detector"
	"github.com/udocc/udocc/internal/method"
)

// TestFineTuneSAD fine-tunes a fitted ensemble with answers by Deep SAD's loss: rows of a
// cluster inside the normal rows, which the label-free scores miss, rise once two of
// them are answered as anomalies; a paper method is refused.
func TestFineTuneSAD(t *testing.T) {
	ctx := context.Background()
	rows := table(300, 4, 11)
	for i := 4; i < len(rows); i += 10 {
		rows[i] = []float64{1.2, 0, 0, 0}
	}
	m := fitted(t, detector.Ensemble{}, rows)
	free := m.Scores()
	ans := []detector.Answer{{Row: 4, Anomaly: true}, {Row: 14, Anomaly: true}, {Row: 0}, {Row: 1}, {Row: 2}, {Row: 3}}
	s, err := m.FineTuneSAD(ctx, dataset(t, rows), ans, method.SAD{Eta: 10, Epochs: 20, LR: 1e-2, Rows: 2048, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != len(rows) {
		t.Fatalf("%d scores for %d rows", len(s), len(rows))
	}
	// Row 24 is in the cluster and was not answered.
	if rank(s, 24) >= rank(free, 24) {
		t.Errorf("row 24 ranks %d after Deep SAD, %d before: want higher", rank(s, 24), rank(free, 24))
	}
	p := fitted(t, detector.Proposed{}, rows)
	if _, err := p.FineTuneSAD(ctx, dataset(t, rows), ans, method.SAD{Eta: 1, Epochs: 1, LR: 1e-3, Rows: 10}); err == nil {
		t.Error("Deep SAD on the paper's method: no error")
	}
}

// rank is row i's 0-based rank among s, highest first.
func rank(s []float64, i int) int {
	r := 0
	for _, v := range s {
		if v > s[i] {
			r++
		}
	}
	return r
}

package bench

import (
	"math"
	"testing"

	"github.com/udocc/udocc/internal/odds"
)

// TestPaperTables checks the transcription: every ODDS set in every table, Table IV's
// Proposed columns equal to Tables II and III (the paper repeats them), and a few
// entries read back through paperValue.
func TestPaperTables(t *testing.T) {
	for _, s := range odds.Sets() {
		t2, ok2 := tableII[s.Name]
		t3, ok3 := tableIII[s.Name]
		t4, ok4 := tableIV[s.Name]
		if !ok2 || !ok3 || !ok4 {
			t.Errorf("%s: missing from a table (II %v, III %v, IV %v)", s.Name, ok2, ok3, ok4)
			continue
		}
		if t4[0] != t2[3] || t4[2] != t2[7] || t4[4] != t3[2] {
			t.Errorf("%s: Table IV's Proposed %v %v %v differs from Tables II/III %v %v %v", s.Name, t4[0], t4[2], t4[4], t2[3], t2[7], t3[2])
		}
	}
	if len(tableII) != 10 || len(tableIII) != 10 || len(tableIV) != 10 {
		t.Errorf("tables hold %d, %d, %d data sets, want 10", len(tableII), len(tableIII), len(tableIV))
	}
	for _, c := range []struct {
		metric        Metric
		dataset, meth string
		want          paperCell
		table         string
		ok            bool
	}{
		{ROCAUC, "satellite", "proposed", paperCell{77.6, 3.7}, "II", true},
		{PRAUC, "cardio", "proposed", paperCell{44.5, 12.0}, "II", true},
		{PRAUC, "pendigits", "sb", paperCell{5.3, 1.4}, "II", true},
		{F1, "pima", "sb", paperCell{38.4, 3.9}, "III", true},
		{F1, "glass", "otsu", paperCell{16.1, 3.8}, "III", true},
		{ROCAUC, "mnist", "tar", paperCell{79.2, 4.9}, "IV", true},
		{F1, "satimage-2", "tar", paperCell{21.8, 20.8}, "IV", true},
		{F1, "wbc", "oc", paperCell{}, "III", false},
		{ROCAUC, "blobs", "oc", paperCell{}, "II", false},
	} {
		t.Run(string(c.metric)+"/"+c.dataset+"/"+c.meth, func(t *testing.T) {
			got, table, ok := paperValue(c.metric, c.dataset, c.meth)
			if ok != c.ok || (ok && (got != c.want || table != c.table)) {
				t.Errorf("paperValue = %v, Table %s, %v; want %v, Table %s, %v", got, table, ok, c.want, c.table, c.ok)
			}
		})
	}
}

func TestMeanStd(t *testing.T) {
	for _, c := range []struct {
		name      string
		xs        []float64
		mean, std float64
		k         int
	}{
		{"population std", []float64{1, 2, 3, 4}, 2.5, math.Sqrt(1.25), 4},
		{"one value", []float64{7}, 7, 0, 1},
		{"NaN skipped", []float64{1, math.NaN(), 3}, 2, 1, 2},
		{"none", []float64{math.NaN()}, math.NaN(), math.NaN(), 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := meanStd(c.xs)
			same := func(a, b float64) bool { return a == b || math.Abs(a-b) < 1e-12 || (math.IsNaN(a) && math.IsNaN(b)) }
			if !same(s.Mean, c.mean) || !same(s.Std, c.std) || s.K != c.k {
				t.Errorf("meanStd(%v) = %+v, want %g ± %g of %d", c.xs, s, c.mean, c.std, c.k)
			}
		})
	}
}

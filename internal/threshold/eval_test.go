package threshold

import (
	"errors"
	"math"
	"testing"

	"github.com/udocc/udocc/metrics"
)

func TestEvaluate(t *testing.T) {
	scores := []float64{0.9, 0.8, 0.8, 0.1, 0.5}
	labels := []int{1, 0, 1, 0, 0}
	cases := []struct {
		name string
		thr  float64
		want Eval
	}{
		// Rows 0, 1, 2 flagged: TP 2, FP 1, FN 0, F1 = 4/5. The oracle
		// flags k = 2 rows: 0.9 (row 0) and the tie 0.8 goes to row 1, the
		// lower index, a normal row: F1 = 1/2.
		{"over-selection with a tie in the oracle", 0.6, Eval{Selected: 0.6, True: 0.4, F1: 0.8, OracleF1: 0.5}},
		// Row 0 only: TP 1, FN 1, F1 = 2/3.
		{"under-selection", 0.85, Eval{Selected: 0.2, True: 0.4, F1: 2.0 / 3, OracleF1: 0.5}},
		// Nothing flagged: F1 0, as scikit-learn's f1_score.
		{"nothing flagged", 1, Eval{Selected: 0, True: 0.4, F1: 0, OracleF1: 0.5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Evaluate(scores, labels, c.thr)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got.Selected-c.want.Selected) > 1e-12 || got.True != c.want.True ||
				math.Abs(got.F1-c.want.F1) > 1e-12 || got.OracleF1 != c.want.OracleF1 {
				t.Errorf("Evaluate = %+v, want %+v", got, c.want)
			}
		})
	}
	if _, err := Evaluate(scores, labels[:4], 0); !errors.Is(err, metrics.ErrLength) {
		t.Errorf("short labels: %v, want ErrLength", err)
	}
	if _, err := OracleF1(scores, []int{1, 0, 2, 0, 0}); !errors.Is(err, metrics.ErrLabel) {
		t.Errorf("label 2: %v, want ErrLabel", err)
	}
	if f, err := OracleF1([]float64{1, 2}, []int{0, 0}); err != nil || f != 0 {
		t.Errorf("no anomalies: oracle F1 %g, %v; want 0", f, err)
	}
}

func TestLogRatioError(t *testing.T) {
	cases := []struct {
		name             string
		selected, actual float64
		want             float64
		within           bool // within a factor 1.5
	}{
		{"exact", 0.05, 0.05, 0, true},
		{"twice too many is ln 2", 0.1, 0.05, math.Ln2, false},
		{"half as many is ln 2 too", 0.025, 0.05, math.Ln2, false},
		{"1.4 times is within 1.5", 0.07, 0.05, math.Log(1.4), true},
		{"just inside 1/1.5", 0.034, 0.05, math.Log(0.05 / 0.034), true},
		{"just outside 1/1.5", 0.033, 0.05, math.Log(0.05 / 0.033), false},
		{"nothing selected is infinitely off", 0, 0.05, math.Inf(1), false},
		{"selected without anomalies is infinitely off", 0.1, 0, math.Inf(1), false},
		{"none of none is exact", 0, 0, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := LogRatioError(c.selected, c.actual)
			if got != c.want && math.Abs(got-c.want) > 1e-12 {
				t.Errorf("LogRatioError(%g, %g) = %g, want %g", c.selected, c.actual, got, c.want)
			}
			if w := WithinFactor(c.selected, c.actual, 1.5); w != c.within {
				t.Errorf("WithinFactor(%g, %g, 1.5) = %v, want %v", c.selected, c.actual, w, c.within)
			}
		})
	}
}

// BenchmarkRules times every rule on 10 000 scores of a normal bulk with
// 10% shifted anomalies.
func BenchmarkRules(b *testing.B) {
	x := make([]float64, 10000)
	for i := range x {
		x[i] = math.Sin(float64(i)*12.9898) * 3 // deterministic spread
		if i%10 == 0 {
			x[i] += 8
		}
	}
	for _, r := range All() {
		b.Run(r.Name(), func(b *testing.B) {
			for b.Loop() {
				if _, err := r.Threshold(x); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(x))*float64(b.N)/b.Elapsed().Seconds(), "scores/s")
		})
	}
}

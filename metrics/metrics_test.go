package metrics

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

const tol = 1e-12

func TestGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			check := func(what string, got float64, err error, want float64) {
				t.Helper()
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if math.Abs(got-want) > tol {
					t.Errorf("%s = %.17g, scikit-learn %.17g (diff %.3g)", what, got, want, got-want)
				}
			}
			auc, err := ROCAUC(c.labels, c.scores)
			check("ROCAUC", auc, err, c.auc)
			ap, err := PRAUC(c.labels, c.scores)
			check("PRAUC", ap, err, c.ap)
			counts, err := Count(c.labels, c.pred)
			check("Precision", counts.Precision(), err, c.precision)
			check("Recall", counts.Recall(), err, c.recall)
			check("F1", counts.F1(), err, c.f1)
		})
	}
}

// TestGoldenCoverage guards the golden table itself: enough cases, with
// ties, and one where nothing is predicted positive.
func TestGoldenCoverage(t *testing.T) {
	ties, none := 0, 0
	for _, c := range goldenCases {
		seen := map[float64]bool{}
		for _, s := range c.scores {
			if seen[s] {
				ties++
				break
			}
			seen[s] = true
		}
		if c, _ := Count(c.labels, c.pred); c.TP+c.FP == 0 {
			none++
		}
	}
	if ties < 20 || none == 0 {
		t.Errorf("%d golden cases with ties (want ≥ 20), %d with no predicted positive (want ≥ 1)", ties, none)
	}
}

// slowAUC is the Mann–Whitney definition: the fraction of (anomaly, normal)
// pairs ordered correctly, ties counting one half. O(n²).
func slowAUC(labels []int, scores []float64) float64 {
	var sum, pairs float64
	for i, yi := range labels {
		for j, yj := range labels {
			if yi != 1 || yj != 0 {
				continue
			}
			pairs++
			switch {
			case scores[i] > scores[j]:
				sum++
			case scores[i] == scores[j]:
				sum += 0.5
			}
		}
	}
	return sum / pairs
}

// slowAP is average precision from its definition: for each distinct
// score t, the precision of {s ≥ t} times the recall gained at t. O(n²).
func slowAP(labels []int, scores []float64) float64 {
	pos := 0
	for _, y := range labels {
		pos += y
	}
	var ap float64
	done := map[float64]bool{}
	for _, t := range scores {
		if done[t] {
			continue
		}
		done[t] = true
		var tp, fp, gain float64
		for i, s := range scores {
			switch {
			case s >= t && labels[i] == 1:
				tp++
				if s == t {
					gain++
				}
			case s >= t:
				fp++
			}
		}
		ap += gain / float64(pos) * tp / (tp + fp)
	}
	return ap
}

func TestAgainstSlow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 500; trial++ {
		n := 2 + rng.IntN(60)
		labels := make([]int, n)
		scores := make([]float64, n)
		for i := range labels {
			labels[i] = rng.IntN(2)
			scores[i] = float64(rng.IntN(1+trial%9)) - 3 // many ties
		}
		labels[0], labels[1] = 0, 1
		auc, err := ROCAUC(labels, scores)
		if err != nil {
			t.Fatal(err)
		}
		ap, err := PRAUC(labels, scores)
		if err != nil {
			t.Fatal(err)
		}
		auc2, ap2, err := AUCs(labels, scores)
		if err != nil {
			t.Fatal(err)
		}
		if auc2 != auc || ap2 != ap {
			t.Fatalf("trial %d: AUCs %v, %v; ROCAUC and PRAUC %v, %v", trial, auc2, ap2, auc, ap)
		}
		if want := slowAUC(labels, scores); math.Abs(auc-want) > tol {
			t.Fatalf("trial %d: ROCAUC %v, pairwise %v", trial, auc, want)
		}
		if want := slowAP(labels, scores); math.Abs(ap-want) > tol {
			t.Fatalf("trial %d: PRAUC %v, definition %v", trial, ap, want)
		}
	}
}

func TestErrors(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name   string
		labels []int
		scores []float64
		want   error
	}{
		{"all normal is one class", []int{0, 0, 0}, []float64{1, 2, 3}, ErrOneClass},
		{"all anomalous is one class", []int{1, 1}, []float64{1, 2}, ErrOneClass},
		{"empty", nil, nil, ErrLength},
		{"lengths differ", []int{0, 1}, []float64{1}, ErrLength},
		{"label 2", []int{0, 2}, []float64{1, 2}, ErrLabel},
		{"NaN score", []int{0, 1}, []float64{1, nan}, ErrNonFinite},
		{"infinite score", []int{0, 1}, []float64{math.Inf(-1), 1}, ErrNonFinite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ROCAUC(tc.labels, tc.scores); !errors.Is(err, tc.want) {
				t.Errorf("ROCAUC: %v, want %v", err, tc.want)
			}
			if _, err := PRAUC(tc.labels, tc.scores); !errors.Is(err, tc.want) {
				t.Errorf("PRAUC: %v, want %v", err, tc.want)
			}
		})
	}
}

func TestCounts(t *testing.T) {
	tests := []struct {
		name                  string
		labels, pred          []int
		want                  Counts
		precision, recall, f1 float64
		err                   error
	}{
		{"mixed", []int{1, 1, 0, 0, 1}, []int{1, 0, 1, 0, 1}, Counts{TP: 2, FP: 1, TN: 1, FN: 1}, 2.0 / 3, 2.0 / 3, 2.0 / 3, nil},
		{"nothing predicted: precision 0 by definition", []int{1, 0}, []int{0, 0}, Counts{TN: 1, FN: 1}, 0, 0, 0, nil},
		{"no anomalies: recall 0", []int{0, 0}, []int{1, 0}, Counts{FP: 1, TN: 1}, 0, 0, 0, nil},
		{"all right", []int{1, 0}, []int{1, 0}, Counts{TP: 1, TN: 1}, 1, 1, 1, nil},
		{"prediction 2", []int{1, 0}, []int{2, 0}, Counts{}, 0, 0, 0, ErrLabel},
		{"label -1", []int{-1, 0}, []int{1, 0}, Counts{}, 0, 0, 0, ErrLabel},
		{"lengths differ", []int{1}, []int{1, 0}, Counts{}, 0, 0, 0, ErrLength},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Count(tc.labels, tc.pred)
			if !errors.Is(err, tc.err) {
				t.Fatalf("Count: %v, want %v", err, tc.err)
			}
			if c != tc.want || c.Precision() != tc.precision || c.Recall() != tc.recall || c.F1() != tc.f1 {
				t.Errorf("%+v P=%v R=%v F1=%v, want %+v P=%v R=%v F1=%v",
					c, c.Precision(), c.Recall(), c.F1(), tc.want, tc.precision, tc.recall, tc.f1)
			}
		})
	}
}

// TestSignedZero: -0 and +0 are one score, a tie, whichever class holds either.
func TestSignedZero(t *testing.T) {
	labels := []int{1, 0, 1, 0}
	neg := math.Copysign(0, -1)
	for _, scores := range [][]float64{{neg, 0, 1, -1}, {0, neg, 1, -1}} {
		auc, ap, err := AUCs(labels, scores)
		if err != nil {
			t.Fatal(err)
		}
		if want := slowAUC(labels, scores); auc != want || auc != 0.875 {
			t.Errorf("scores %v: ROCAUC %v, want %v (pairwise) = 0.875", scores, auc, want)
		}
		if want := slowAP(labels, scores); math.Abs(ap-want) > tol {
			t.Errorf("scores %v: PRAUC %v, want %v", scores, ap, want)
		}
	}
}

// benchInput is 100,000 random labels and distinct scores.
func benchInput() ([]int, []float64) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 100000
	labels := make([]int, n)
	scores := make([]float64, n)
	for i := range labels {
		labels[i] = rng.IntN(2)
		scores[i] = rng.Float64()
	}
	return labels, scores
}

func BenchmarkAUCs(b *testing.B) {
	labels, scores := benchInput()
	for b.Loop() {
		if _, _, err := AUCs(labels, scores); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(scores))*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}

func BenchmarkROCAUC(b *testing.B) {
	labels, scores := benchInput()
	for b.Loop() {
		if _, err := ROCAUC(labels, scores); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(scores))*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}

package dynamics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAccumulatedFindsTheGap runs the toy data set on which both literal readings fail
// (TestPaperSmallestCollapses, TestPaperLargestFlagsAlmostNothing): 200 rows, 20
// anomalies behind a clean gap, the extreme rows at both ends never move. The zero counts
// at the ends are weak evidence (few crossings expected there), the gap's zero count is
// strong evidence (many expected), so the rule flags the 20 anomalies and the 2 extreme
// top rows, and nothing else.
func TestAccumulatedFindsTheGap(t *testing.T) {
	recs, labels := runToy(t, &Accumulated{})
	if got := count(labels); got != 22 {
		t.Errorf("flags %d of 200 rows, want 22", got)
	}
	for _, rec := range recs[1:] {
		if rec.DeltaStar != 179 {
			t.Errorf("epoch %d: δ* = %d, want 179 (the gap)", rec.Epoch, rec.DeltaStar)
		}
	}
}

// TestAccumulatedCurve checks the objective against its definition on hand-made counts.
func TestAccumulatedCurve(t *testing.T) {
	const n = 10
	a := &Accumulated{Z: 2}
	c1 := []int{0, 0, 0, 2, 4, 4, 2, 6, 0, 2, 0}
	c2 := []int{0, 0, 2, 2, 0, 4, 2, 2, 2, 0, 0}
	for e, c := range [][]int{c1, c2} {
		if _, err := a.Pick(Dynamics{Epoch: e + 2, Counts: c}); err != nil {
			t.Fatal(err)
		}
	}
	curve := a.Curve()
	for δ := 0; δ <= n; δ++ {
		if δ < 2 || δ > n-1 {
			if !math.IsNaN(curve[δ]) {
				t.Errorf("curve[%d] = %g outside [2, n−1]", δ, curve[δ])
			}
			continue
		}
		c := float64(c1[δ] + c2[δ])
		k := float64(δ - 1)
		want := (math.Sqrt(c) + 1) * (math.Sqrt(c) + 1) / (2 * 2 * k * (n - k) / n)
		if math.Abs(curve[δ]-want) > 1e-12 {
			t.Errorf("curve[%d] = %g, want %g", δ, curve[δ], want)
		}
	}
}

// TestAccumulatedWindow checks that a window sums exactly its last epochs' counts.
func TestAccumulatedWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 50
	w := &Accumulated{Window: 3}
	var hist [][]int
	for e := 2; e < 12; e++ {
		c := Crossings(perm(rng, n), perm(rng, n))
		hist = append(hist, c)
		if _, err := w.Pick(Dynamics{Epoch: e, Counts: c}); err != nil {
			t.Fatal(err)
		}
		fresh := &Accumulated{}
		sum := make([]int, n+1)
		for _, h := range hist[max(0, len(hist)-3):] {
			for i, v := range h {
				sum[i] += v
			}
		}
		fresh.Pick(Dynamics{Epoch: e, Counts: sum})
		got, want := w.Curve(), fresh.Curve()
		for δ := 2; δ < n; δ++ {
			// fresh saw one epoch of summed counts, w saw min(3, epochs) epochs.
			k := float64(min(3, len(hist)))
			if math.Abs(got[δ]*k-want[δ]) > 1e-9*want[δ] {
				t.Fatalf("epoch %d, δ = %d: windowed %g x %g epochs, want %g", e, δ, got[δ], k, want[δ])
			}
		}
	}
}

// TestAccumulatedMajority checks that δ never leaves [⌈n/2⌉, n−1] on random rankings,
// whatever the counts, unless minorities are allowed.
func TestAccumulatedMajority(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{3, 4, 5, 10, 101, 1000} {
		a, free := &Accumulated{}, &Accumulated{AllowMinority: true}
		low := false
		for e := 2; e < 30; e++ {
			prev := perm(rng, n)
			cur := nearby(rng, prev, n/3, 3)
			d := Dynamics{Epoch: e, Prev: prev, Cur: cur, Counts: Crossings(prev, cur)}
			r, err := a.Pick(d)
			if err != nil {
				t.Fatal(err)
			}
			if r.Delta < (n+1)/2 || r.Delta > n-1 || r.Ties < 1 {
				t.Fatalf("n = %d: δ* = %d (ties %d) outside [%d, %d]", n, r.Delta, r.Ties, (n+1)/2, n-1)
			}
			f, err := free.Pick(d)
			if err != nil {
				t.Fatal(err)
			}
			low = low || f.Delta < (n+1)/2
		}
		if n >= 101 && !low {
			t.Logf("n = %d: the unconstrained search never went below n/2 either", n)
		}
	}
}

func TestAccumulatedErrors(t *testing.T) {
	if err := (&Accumulated{Window: -1}).Validate(); err == nil {
		t.Error("a negative window is valid")
	}
	if err := (&Accumulated{Z: math.NaN()}).Validate(); err == nil {
		t.Error("z = NaN is valid")
	}
	a := &Accumulated{}
	if _, err := a.Pick(Dynamics{Counts: []int{0, 0}}); err == nil {
		t.Error("n = 1 gave no error")
	}
	a.Pick(Dynamics{Counts: make([]int, 11)})
	if _, err := a.Pick(Dynamics{Counts: make([]int, 12)}); err == nil {
		t.Error("a change of n gave no error")
	}
}

// TestAccumulatedFloor checks that a Proposed with the Accumulated rule never trains on
// fewer than ⌈n/2⌉ rows, even when the ranks churn so much that few rows stay below δ̄.
func TestAccumulatedFloor(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 101
	p, err := NewProposed(n, ProposedOptions{Rule: &Accumulated{}})
	if err != nil {
		t.Fatal(err)
	}
	for e := 1; e <= 20; e++ {
		scores := make([]float64, n)
		for i := range scores {
			scores[i] = rng.Float64() // a fresh ranking every epoch: maximal churn
		}
		mask, rec, err := p.Next(e, scores)
		if err != nil {
			t.Fatal(err)
		}
		if got := count(mask); got < 51 || got != rec.NextTrainSize {
			t.Fatalf("epoch %d: trains on %d rows (record %d), want at least 51", e, got, rec.NextTrainSize)
		}
	}
}

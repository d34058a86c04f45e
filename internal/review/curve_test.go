package review

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestCurvePosteriorFindsTheCurve: labels drawn from a grid curve give a posterior
// whose heaviest (slope, ceiling) pair is that curve's.
func TestCurvePosteriorFindsTheCurve(t *testing.T) {
	n := 20000
	g := gridFor(n)
	si, ri := 12, 6 // slope index (0: s = 0), ceiling index
	s := 0.1 * math.Pow(200, float64(si-1)/float64(gridS-1))
	r, c := gridR[ri], math.Log(0.02)
	rng := rand.New(rand.NewPCG(1, 2))
	y := make([]bool, n)
	for b := range g.lo {
		p := r / (1 + math.Exp(-s*(c-g.x[b])))
		for i := g.lo[b]; i < g.hi[b]; i++ {
			y[i] = rng.Float64() < p
		}
	}
	post := CurvePosterior(y)
	best := 0
	sum := 0.0
	for i, p := range post {
		sum += p
		if p > post[best] {
			best = i
		}
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Fatalf("posterior sums to %g", sum)
	}
	if best != si*len(gridR)+ri {
		t.Fatalf("heaviest pair: slope index %d, ceiling index %d; want %d, %d", best/len(gridR), best%len(gridR), si, ri)
	}
	// LearnCurve mixes with all-alike weights and sums to 1.
	l := LearnCurve([][]float64{post, post}, []float64{1, 3}, 0.25)
	sum = 0
	for i, p := range l {
		sum += p
		if want := 0.75*post[i] + 0.25/float64(CurvePairs); math.Abs(p-want) > 1e-12 {
			t.Fatalf("LearnCurve[%d] = %g, want %g", i, p, want)
		}
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Fatalf("LearnCurve sums to %g", sum)
	}
}

// TestDefaultCurve: the shipped curve prior is a distribution over the pairs, with a
// positive prior scale, and a wrong-length curve is refused.
func TestDefaultCurve(t *testing.T) {
	w, scale := DefaultCurve()
	sum := 0.0
	for _, p := range w {
		if !(p > 0) {
			t.Fatalf("a weight %g ≤ 0: every pair must stay possible", p)
		}
		sum += p
	}
	if len(w) != CurvePairs || math.Abs(sum-1) > 1e-6 || !(scale > 0) {
		t.Fatalf("%d weights summing to %g, scale %g", len(w), sum, scale)
	}
	if _, err := (Method{Curve: []float64{1}}).Calibrate(10, nil, Prior{}, Target{}); err == nil {
		t.Fatal("a curve of one weight was accepted")
	}
}

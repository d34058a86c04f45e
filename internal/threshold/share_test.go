package threshold

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestShareOf: a cheap rule counts on every score; a costly one counts on every score up
// to CostlyAbove and on CostlyRows evenly spaced ones above it, the same share as the rule
// on that sample.
func TestShareOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	big := make([]float64, CostlyAbove+2345)
	for i := range big {
		big[i] = rng.NormFloat64()
		if i%50 == 0 {
			big[i] += 8
		}
	}
	km, err := ShareOf(KMeans{}, big)
	if err != nil {
		t.Fatal(err)
	}
	thr, _ := KMeans{}.Threshold(big)
	if want := float64(Count(big, thr)) / float64(len(big)); km != want {
		t.Errorf("kmeans share %v, want %v on every score", km, want)
	}
	sample := make([]float64, CostlyRows)
	for i := range sample {
		sample[i] = big[i*len(big)/CostlyRows]
	}
	g, err := ShareOf(GMMBIC{}, big)
	if err != nil {
		t.Fatal(err)
	}
	thr, _ = GMMBIC{}.Threshold(sample)
	if want := float64(Count(sample, thr)) / CostlyRows; g != want || math.Abs(g-0.02) > 0.01 {
		t.Errorf("gmm-bic share %v, want %v (the sample's), near 0.02", g, want)
	}
	small := big[:CostlyAbove]
	g, _ = ShareOf(GMMBIC{}, small)
	thr, _ = GMMBIC{}.Threshold(small)
	if want := float64(Count(small, thr)) / float64(len(small)); g != want {
		t.Errorf("gmm-bic share of %d scores %v, want %v on every score", len(small), g, want)
	}
	if _, err := ShareOf(KMeans{}, nil); !errors.Is(err, ErrEmpty) {
		t.Errorf("no scores: %v, want ErrEmpty", err)
	}
}

// TestGeoShare: the geometric mean floors each share at one row, and refuses shares
// outside [0, 1].
func TestGeoShare(t *testing.T) {
	if g, err := GeoShare([]float64{0.04, 0.01}, 1000); err != nil || math.Abs(g-0.02) > 1e-15 {
		t.Errorf("geometric mean of 0.04 and 0.01: %v, %v; want 0.02", g, err)
	}
	if g, _ := GeoShare([]float64{0, 0.1}, 1000); math.Abs(g-0.01) > 1e-15 {
		t.Errorf("geometric mean of 0 (one row of 1000) and 0.1: %v, want 0.01", g)
	}
	for _, bad := range [][]float64{nil, {0.1, 1.5}, {math.NaN()}} {
		if _, err := GeoShare(bad, 10); err == nil {
			t.Errorf("shares %v: no error", bad)
		}
	}
}

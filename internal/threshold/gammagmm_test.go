package threshold

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// detectors are m detectors' scores of n rows, the last round(share·n) of them
// anomalies: normal rows score N(0, 1) on every detector, anomalies N(gap, 1), each
// detector with its own noise.
func detectors(seed uint64, n, m int, share, gap float64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	k := int(share*float64(n) + 0.5)
	cols := make([][]float64, m)
	for j := range cols {
		cols[j] = make([]float64, n)
		for i := range cols[j] {
			cols[j][i] = rng.NormFloat64()
			if i >= n-k {
				cols[j][i] += gap
			}
		}
	}
	return cols
}

// TestGammaGMMSeparated: where anomalies stand apart on every detector, the posterior
// mean is near their share, its 80 % interval holds it, and the quantiles are ordered
// within the limit.
func TestGammaGMMSeparated(t *testing.T) {
	for _, c := range []struct {
		seed  uint64
		share float64
	}{{1, 0.03}, {2, 0.05}, {3, 0.1}} {
		cols := detectors(c.seed, 1500, 3, c.share, 8)
		p, err := GammaGMM{}.Estimate(cols)
		if err != nil {
			t.Fatal(err)
		}
		if !WithinFactor(p.Mean, c.share, 1.25) {
			t.Errorf("share %g: posterior mean %g, want within ×1.25", c.share, p.Mean)
		}
		lo, med, hi := p.Quantile(0.1), p.Quantile(0.5), p.Quantile(0.9)
		if !(lo <= med && med <= hi && hi <= p.Limit) {
			t.Errorf("share %g: quantiles %g, %g, %g not ordered below the limit %g", c.share, lo, med, hi, p.Limit)
		}
		if !(lo <= c.share*1.1 && hi >= c.share*0.9) {
			t.Errorf("share %g: 80 %% interval [%g, %g] misses it", c.share, lo, hi)
		}
	}
}

// TestGammaGMMInvariant: the estimate does not depend on the detectors' units: a shift
// and a positive scaling of each detector give the same posterior; and it is
// deterministic.
func TestGammaGMMInvariant(t *testing.T) {
	cols := detectors(7, 800, 3, 0.06, 5)
	p, err := GammaGMM{}.Estimate(cols)
	if err != nil {
		t.Fatal(err)
	}
	again, err := GammaGMM{}.Estimate(cols)
	if err != nil {
		t.Fatal(err)
	}
	if again.Mean != p.Mean || again.Quantile(0.9) != p.Quantile(0.9) {
		t.Errorf("two estimates of the same scores: %g and %g", p.Mean, again.Mean)
	}
	moved := make([][]float64, len(cols))
	for j, c := range cols {
		a, b := float64(j+2)*3.5, float64(j)*-40+7
		moved[j] = make([]float64, len(c))
		for i, v := range c {
			moved[j][i] = a*v + b
		}
	}
	q, err := GammaGMM{}.Estimate(moved)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(q.Mean-p.Mean) > 1e-6 || math.Abs(q.Quantile(0.1)-p.Quantile(0.1)) > 1e-6 {
		t.Errorf("shifted and scaled detectors: mean %g, q10 %g; want %g, %g", q.Mean, q.Quantile(0.1), p.Mean, p.Quantile(0.1))
	}
}

// TestGammaGMMLimit: the posterior never passes its limit, even where half the rows
// stand apart.
func TestGammaGMMLimit(t *testing.T) {
	cols := detectors(3, 800, 2, 0.45, 8)
	for _, g := range []GammaGMM{{}, {HighGamma: 0.3, Limit: 0.5}} {
		p, err := g.Estimate(cols)
		if err != nil {
			t.Fatal(err)
		}
		lim := g.defaults().Limit
		if !(p.Mean >= 0 && p.Mean <= lim && p.Quantile(0.9) <= lim) {
			t.Errorf("limit %g: mean %g, q90 %g", lim, p.Mean, p.Quantile(0.9))
		}
	}
}

// TestGammaGMMDegenerate: constant detectors are left out (all constant: γ = 0), and
// unusable input is an error.
func TestGammaGMMDegenerate(t *testing.T) {
	flat := []float64{2, 2, 2, 2, 2, 2}
	p, err := GammaGMM{}.Estimate([][]float64{flat, flat})
	if err != nil {
		t.Fatal(err)
	}
	if p.Zero != 1 || p.Mean != 0 || p.Quantile(0.9) != 0 {
		t.Errorf("constant detectors: zero mass %g, mean %g, q90 %g; want 1, 0, 0", p.Zero, p.Mean, p.Quantile(0.9))
	}
	cols := detectors(5, 400, 2, 0.05, 8)
	withFlat, err := GammaGMM{}.Estimate(append(cols, make([]float64, 400)))
	if err != nil {
		t.Fatal(err)
	}
	alone, err := GammaGMM{}.Estimate(cols)
	if err != nil {
		t.Fatal(err)
	}
	if withFlat.Mean != alone.Mean {
		t.Errorf("a constant detector changed the mean: %g, without it %g", withFlat.Mean, alone.Mean)
	}
	for name, cols := range map[string][][]float64{
		"no detectors": nil,
		"lengths":      {{1, 2, 3}, {1, 2}},
		"one row":      {{1}},
	} {
		if _, err := (GammaGMM{}).Estimate(cols); !errors.Is(err, ErrGammaGMM) {
			t.Errorf("%s: error %v, want ErrGammaGMM", name, err)
		}
	}
	if _, err := (GammaGMM{}).Estimate([][]float64{{1, math.NaN(), 3}}); !errors.Is(err, ErrNonFinite) {
		t.Errorf("NaN: error %v, want ErrNonFinite", err)
	}
}

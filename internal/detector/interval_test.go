package detector_test

import (
	"context"
	"math"
	"testing"

	"github.com/udocc/udocc/internal/detector"
)

// TestRatioInterval: the default count comes with an 80 % interval for the share,
// saved in model.json and read back by Load; a given contamination has none.
func TestRatioInterval(t *testing.T) {
	m, err := detector.Fit(context.Background(), table(200, 4, 1), nil, quick())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	lo, hi := m.RatioInterval()
	if !(lo > 0 && lo < hi && hi <= 1) {
		t.Fatalf("interval [%v, %v]: want 0 < low < high <= 1", lo, hi)
	}
	if llo, lhi := reloaded(t, m).RatioInterval(); llo != lo || lhi != hi {
		t.Errorf("loaded interval [%v, %v], fitted [%v, %v]", llo, lhi, lo, hi)
	}
	o := quick()
	c, err := detector.Fit(context.Background(), table(200, 4, 1), detector.Ensemble{Contamination: 0.1}, o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if clo, chi := c.RatioInterval(); !math.IsNaN(clo) || !math.IsNaN(chi) || c.Ratio() != 0.1 {
		t.Errorf("contamination 0.1: interval [%v, %v], ratio %v; want none and 0.1", clo, chi, c.Ratio())
	}
}

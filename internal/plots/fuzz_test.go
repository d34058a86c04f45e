package plots

import (
	"encoding/binary"
	"math"
	"path/filepath"
	"testing"
	"time"
)

// floatBytes packs xs as little-endian float64s, the encoding FuzzPlots reads.
func floatBytes(xs ...float64) []byte {
	b := make([]byte, 8*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return b
}

// FuzzPlots draws a line figure, on every combination of log axes, and a histogram of
// the values in b (little-endian float64s, paired as x and y), and checks that each
// finishes in bounded time and that the tickers return a bounded number of ticks. The
// seeds are the inputs that have broken figures: constant and all-zero series on a log
// axis (an all-constant table's losses), huge, tiny and non-finite values.
func FuzzPlots(f *testing.F) {
	inf, nan := math.Inf(1), math.NaN()
	for _, xs := range [][]float64{
		{1, 0.3, 2, 0.7, 3, 0.1, 4, 0.9}, // random
		{1, 2, 2, 2, 3, 2, 4, 2},         // constant
		{1, 0, 2, 0, 3, 0},               // zero losses
		{1, 1e300, 2, -1e300, 3, math.MaxFloat64, 4, -math.MaxFloat64}, // huge
		{1, 1e-300, 2, 5e-324, 3, 1e-320},                              // tiny and subnormal
		{nan, nan, inf, -inf, 1, nan, 2, inf},                          // not finite
		{1, 1e-45, 2, 1e-45},                                           // a float32 subnormal, twice
		{5e-324, 5e-324, math.MaxFloat64, math.MaxFloat64},             // the extremes of x
		{},
	} {
		f.Add(floatBytes(xs...), uint8(0))
		f.Add(floatBytes(xs...), uint8(3))
	}
	f.Fuzz(drawFuzzed)
}

func drawFuzzed(t *testing.T, b []byte, axes uint8) {
	dir := t.TempDir()
	{
		var xs, ys []float64
		for i := 0; i+16 <= len(b) && i < 16*1000; i += 16 {
			xs = append(xs, math.Float64frombits(binary.LittleEndian.Uint64(b[i:])))
			ys = append(ys, math.Float64frombits(binary.LittleEndian.Uint64(b[i+8:])))
		}
		logX, logY := axes&1 != 0, axes&2 != 0
		within(t, 20*time.Second, func() {
			fig := Figure{Title: "fuzz", LogX: logX, LogY: logY,
				Series: []Series{{Name: "s", X: xs, Y: ys, Color: Blue}, {Name: "band", X: xs, Y: ys, Std: xs, Color: Grey}},
			}
			if len(ys) > 0 {
				fig.Marks = []Mark{VMark("v", xs[0], Red, true), HMark("h", ys[0], Green, false)}
			}
			if err := fig.Save(filepath.Join(dir, "fig.png")); err != nil {
				t.Errorf("figure: %v", err)
			}
			h := Histogram{Title: "fuzz", Groups: []Series{{Name: "y", Y: ys, Color: Blue}}, Bins: int(axes) * 1000}
			if len(xs) > 0 {
				h.Marks = []Mark{VMark("v", xs[0], Red, true)}
			}
			h.Save(filepath.Join(dir, "hist.png")) // an error (no values to show) is fine
		})
		for _, r := range [][2]float64{{xs0(xs), xs0(ys)}, {xs0(ys), xs0(xs)}} {
			if n := len((logTicks{}).Ticks(r[0], r[1])); n > 10000 {
				t.Errorf("logTicks(%g, %g): %d ticks", r[0], r[1], n)
			}
			if n := len((plainTicks{}).Ticks(r[0], r[1])); n > 10000 {
				t.Errorf("plainTicks(%g, %g): %d ticks", r[0], r[1], n)
			}
		}
	}
}

func xs0(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return xs[0]
}

// within runs do and fails the test when it has not returned after d.
func within(t *testing.T, d time.Duration, do func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		do()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still drawing after %v", d)
	}
}

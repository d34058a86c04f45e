package plots

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestLogLogFigure draws markers and dashed lines on log axes, with values a log axis
// cannot show (0 and negative) left out rather than failing the figure.
func TestLogLogFigure(t *testing.T) {
	dir := t.TempDir()
	f := Figure{Title: "ratios", XLabel: "true", YLabel: "selected", LogX: true, LogY: true,
		Series: []Series{
			{Name: "diagonal", X: []float64{0.01, 0.5}, Y: []float64{0.01, 0.5}, Color: Grey},
			{Name: "band", X: []float64{0.01, 0.5}, Y: []float64{0.015, 0.75}, Color: Grey, Dashed: true},
			{Name: "runs", X: []float64{0.02, 0.1, 0, 0.3}, Y: []float64{0.03, 0.08, 0.1, -1}, Color: Blue, Points: true},
		},
		Marks: []Mark{VMark("v", 0.1, Red, true), HMark("non-positive", 0, Red, true)}}
	path := filepath.Join(dir, "loglog.png")
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, path)
}

// TestLogTicks checks which ticks are labelled: powers of ten always, their multiples 2
// and 5 only on an axis shorter than two decades, linear ticks where that leaves fewer
// than two labels.
func TestLogTicks(t *testing.T) {
	for _, c := range []struct {
		name   string
		lo, hi float64
		want   []string
	}{
		{"within a decade and a half", 0.015, 0.4, []string{"0.02", "0.05", "0.1", "0.2"}},
		{"four decades", 0.001, 10, []string{"0.001", "0.01", "0.1", "1", "10"}},
		{"too short for two labels", 0.11, 0.19, []string{"0.12", "0.15", "0.18"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, tk := range (logTicks{}).Ticks(c.lo, c.hi) {
				if tk.Label != "" && tk.Value >= c.lo && tk.Value <= c.hi {
					got = append(got, tk.Label)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("labels in [%g, %g] = %v, want %v", c.lo, c.hi, got, c.want)
			}
		})
	}
}

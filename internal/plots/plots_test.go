package plots

import (
	"bytes"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func checkPNG(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s is not a PNG: %v", path, err)
	}
	if r := img.Bounds(); r.Dx() < 400 || r.Dy() < 250 {
		t.Errorf("%s is only %v", path, r)
	}
}

func TestFigureAndHistogram(t *testing.T) {
	dir := t.TempDir()
	xs, ys, sd := []float64{1, 2, 3, 4}, []float64{4, 1, math.NaN(), 2}, []float64{1, 1, 1, 1}
	f := Figure{Title: "t", XLabel: "x", YLabel: "y",
		Series: []Series{{Name: "a", X: xs, Y: ys, Std: sd, Color: Blue}},
		Marks:  []Mark{VMark("v", 2, Red, true), HMark("h", 3, Grey, false)}}
	path := filepath.Join(dir, "f.png")
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, path)
	h := Histogram{Title: "h", XLabel: "score", Bins: 20,
		Groups: []Series{{Name: "normal", Y: []float64{1, 2, 2, 3}, Color: Blue}, {Name: "anomaly", Y: []float64{7, 8}, Color: Red}},
		Marks:  []Mark{VMark("threshold", 5, Red, true)}}
	path = filepath.Join(dir, "h.png")
	if err := h.Save(path); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, path)
	if err := (Histogram{Title: "empty"}).Save(filepath.Join(dir, "e.png")); err == nil {
		t.Error("an empty histogram gave no error")
	}
}

// TestHistogramLogCount is issue 42 item 10: with a log count axis, 60 flagged rows
// among 3,000 show as bars, where a linear axis leaves them almost invisible.
func TestHistogramLogCount(t *testing.T) {
	var all, flagged []float64
	for i := range 3000 {
		v := math.Sin(float64(i)) // in [-1, 1]
		if i%50 == 0 {
			v = 2 + 6*float64(i)/3000 // a long tail of 60 rows
			flagged = append(flagged, v)
		}
		all = append(all, v)
	}
	redPixels := func(logCount bool) int {
		path := filepath.Join(t.TempDir(), "h.png")
		h := Histogram{Title: "h", XLabel: "score", Bins: 60, LogCount: logCount,
			Groups: []Series{{Name: "all rows", Y: all, Color: Blue}, {Name: "flagged", Y: flagged, Color: Red}},
			Marks:  []Mark{VMark("threshold", 1.5, Orange, true)}}
		if err := h.Save(path); err != nil {
			t.Fatal(err)
		}
		checkPNG(t, path)
		b, _ := os.ReadFile(path)
		img, _ := png.Decode(bytes.NewReader(b))
		n := 0
		for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
			for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				if r > 0xa000 && g < 0x9000 && bl < 0x9000 && r-g > 0x3000 { // the flagged bars' faded red
					n++
				}
			}
		}
		return n
	}
	lin, log := redPixels(false), redPixels(true)
	t.Logf("red pixels: log %d, linear %d", log, lin)
	if log < 3*lin || log < 500 {
		t.Errorf("flagged rows' red pixels: %d on a log count axis, %d on a linear one; want the log axis to show them", log, lin)
	}
}

// TestHeavyTailed checks the rule that puts a histogram on an asinh axis: a normal
// sample is not heavy-tailed; the same with a few rows 100 times further out is.
func TestHeavyTailed(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	v := make([]float64, 1000)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	if HeavyTailed(v) {
		t.Error("a normal sample called heavy-tailed")
	}
	v[0], v[1] = 100, 300
	if !HeavyTailed(v) {
		t.Error("a normal sample with rows at 100 and 300 not called heavy-tailed")
	}
}

// TestSymlogHistogram checks the asinh axis's ticks (0, ±1, ±3, ±10, … in the values'
// units, ascending, inside the axis) and that a histogram with negative values and a
// heavy tail draws on it.
func TestSymlogHistogram(t *testing.T) {
	ts := symlogTicks{}.Ticks(math.Asinh(-2), math.Asinh(400))
	var labels []string
	for i, tk := range ts {
		labels = append(labels, tk.Label)
		if i > 0 && tk.Value <= ts[i-1].Value {
			t.Fatalf("ticks not ascending: %v", ts)
		}
	}
	if got, want := strings.Join(labels, " "), "-1 0 1 3 10 30 100 300"; got != want {
		t.Errorf("ticks %q, want %q", got, want)
	}
	path := filepath.Join(t.TempDir(), "h.png")
	h := Histogram{Title: "t", Groups: []Series{{Name: "rows", Y: []float64{-2, -1, 0, 0.5, 1, 2, 350}, Color: Blue}},
		Marks: []Mark{VMark("threshold", 5, Orange, true)}, Bins: 20, LogCount: true, SymLog: true}
	if err := h.Save(path); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, path)
}

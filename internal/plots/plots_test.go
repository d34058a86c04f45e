package plots

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
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

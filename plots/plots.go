package plots

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/udocc/udocc/internal/atomicfile"
)

// Colours used across udocc's figures.
var (
	Blue   = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	Orange = color.RGBA{R: 255, G: 127, B: 14, A: 255}
	Green  = color.RGBA{R: 44, G: 160, B: 44, A: 255}
	Red    = color.RGBA{R: 214, G: 39, B: 40, A: 255}
	Grey   = color.RGBA{R: 127, G: 127, B: 127, A: 255}
	Purple = color.RGBA{R: 148, G: 103, B: 189, A: 255}
)

// Series is one line, with an optional ± band (Std, same length as Y), or with Points
// a set of markers without a line.
type Series struct {
	Name   string
	X, Y   []float64
	Std    []float64
	Color  color.Color
	Points bool // markers at (X, Y), no line
	Dashed bool // a dashed line
}

// Mark is a vertical (X) or horizontal (Y) reference line; set one of them, the other NaN.
type Mark struct {
	Name   string
	X, Y   float64
	Color  color.Color
	Dashed bool
}

// VMark is a vertical mark at x.
func VMark(name string, x float64, c color.Color, dashed bool) Mark {
	return Mark{Name: name, X: x, Y: math.NaN(), Color: c, Dashed: dashed}
}

// HMark is a horizontal mark at y.
func HMark(name string, y float64, c color.Color, dashed bool) Mark {
	return Mark{Name: name, X: math.NaN(), Y: y, Color: c, Dashed: dashed}
}

// Figure is a line figure: axes labels, series and marks. On a log axis the values
// that are not positive are left out.
type Figure struct {
	Title, XLabel, YLabel string
	Series                []Series
	Marks                 []Mark
	LogX, LogY            bool
}

// Save draws the figure to path as a PNG of 6 x 4 inches.
func (f Figure) Save(path string) error {
	p := plot.New()
	p.Title.Text = f.Title
	p.X.Label.Text = f.XLabel
	p.Y.Label.Text = f.YLabel
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	if f.LogX {
		p.X.Scale = plot.LogScale{}
	}
	if f.LogY {
		p.Y.Scale = plot.LogScale{}
	}
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range f.Series {
		if len(s.X) != len(s.Y) {
			return fmt.Errorf("plots: series %q has %d x and %d y values", s.Name, len(s.X), len(s.Y))
		}
		if s.Std != nil {
			band, err := bandPolygon(s)
			if err != nil {
				return err
			}
			p.Add(band)
		}
		xy := make(plotter.XYs, 0, len(s.X))
		for i := range s.X {
			if !finite(s.X[i]) || !finite(s.Y[i]) || (f.LogX && s.X[i] <= 0) || (f.LogY && s.Y[i] <= 0) {
				continue
			}
			xy = append(xy, plotter.XY{X: s.X[i], Y: s.Y[i]})
			xmin, xmax = math.Min(xmin, s.X[i]), math.Max(xmax, s.X[i])
			ymin, ymax = math.Min(ymin, s.Y[i]), math.Max(ymax, s.Y[i])
		}
		if len(xy) == 0 {
			continue
		}
		th, err := seriesPlotter(s, xy)
		if err != nil {
			return err
		}
		p.Add(th)
		if s.Name != "" {
			p.Legend.Add(s.Name, th)
		}
	}
	if xmin > xmax {
		xmin, xmax, ymin, ymax = 0, 1, 0, 1
	}
	for _, m := range f.Marks {
		if finite(m.Y) && (!f.LogY || m.Y > 0) {
			ymin, ymax = math.Min(ymin, m.Y), math.Max(ymax, m.Y)
		}
	}
	for _, m := range f.Marks {
		var pts plotter.XYs
		switch {
		case f.LogX && m.X <= 0, f.LogY && m.Y <= 0:
			continue
		case !math.IsNaN(m.X):
			pts = plotter.XYs{{X: m.X, Y: ymin}, {X: m.X, Y: ymax}}
		case !math.IsNaN(m.Y):
			pts = plotter.XYs{{X: xmin, Y: m.Y}, {X: xmax, Y: m.Y}}
		default:
			continue
		}
		if err := addMark(p, m, pts); err != nil {
			return err
		}
	}
	padX(&p.X, xmin, xmax, f.LogX)
	padY(&p.Y, ymin, ymax, f.LogY)
	return save(p, path)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// seriesPlotter draws s's points xy as a line, dashed or solid, or as markers.
func seriesPlotter(s Series, xy plotter.XYs) (interface {
	plot.Plotter
	plot.Thumbnailer
}, error) {
	if s.Points {
		sc, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: s.Color, Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}
		return sc, nil
	}
	l, err := plotter.NewLine(xy)
	if err != nil {
		return nil, err
	}
	l.Color = s.Color
	l.Width = vg.Points(1.5)
	if s.Dashed {
		l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	return l, nil
}

// padX widens the x axis 2% on either side of the data (a factor 1.05 on a log axis).
func padX(a *plot.Axis, lo, hi float64, log bool) {
	if log {
		if lo > 0 {
			a.Min, a.Max = lo/1.05, hi*1.05
		}
		a.Tick.Marker = logTicks{}
		return
	}
	d := math.Max(hi-lo, 1e-12)
	a.Min, a.Max = lo-0.02*d, hi+0.02*d
	a.Tick.Marker = plainTicks{}
}

// padY widens the y axis 2% below the data and leaves room above for the legend, which
// sits at the top, so it never covers a mark at the edge.
func padY(a *plot.Axis, lo, hi float64, log bool) {
	if log {
		if lo > 0 {
			a.Min, a.Max = lo/1.2, hi*math.Pow(hi/lo, 0.35)
		}
		a.Tick.Marker = logTicks{}
		return
	}
	d := math.Max(hi-lo, 1e-12)
	a.Min, a.Max = lo-0.02*d, hi+0.35*d
	a.Tick.Marker = plainTicks{}
}

// logTicks mark a log axis at every multiple 1 to 9 of each power of ten, labelling the
// powers of ten, and also the multiples 2 and 5 where the axis spans less than two
// decades, so that an axis inside one decade still has labels; an axis too short for two
// labels gets plainTicks. (gonum's LogTicks starts a decade late below 1 and repeats
// each power of ten.)
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	labelled := 0
	short := math.Log10(hi/lo) < 2
	for e := int(math.Floor(math.Log10(lo))); e <= int(math.Ceil(math.Log10(hi))); e++ {
		for m := 1; m <= 9; m++ {
			v, _ := strconv.ParseFloat(strconv.Itoa(m)+"e"+strconv.Itoa(e), 64) // exact decimal, unlike m·10^e
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || short && (m == 2 || m == 5) {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			ts = append(ts, t)
			if t.Label != "" {
				labelled++
			}
		}
	}
	if labelled < 2 {
		return plainTicks{}.Ticks(lo, hi)
	}
	return ts
}

// plainTicks are gonum's default ticks labelled in the shortest exact form ("250", not
// "250.00").
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', 6, 64)
		}
	}
	return ts
}

func bandPolygon(s Series) (*plotter.Polygon, error) {
	var pts plotter.XYs
	for i := range s.X {
		if !math.IsNaN(s.Y[i]) && !math.IsNaN(s.Std[i]) {
			pts = append(pts, plotter.XY{X: s.X[i], Y: s.Y[i] + s.Std[i]})
		}
	}
	for i := len(s.X) - 1; i >= 0; i-- {
		if !math.IsNaN(s.Y[i]) && !math.IsNaN(s.Std[i]) {
			pts = append(pts, plotter.XY{X: s.X[i], Y: s.Y[i] - s.Std[i]})
		}
	}
	poly, err := plotter.NewPolygon(pts)
	if err != nil {
		return nil, err
	}
	poly.Color = withAlpha(s.Color, 60)
	poly.LineStyle.Width = 0
	return poly, nil
}

// Histogram is a histogram of one or more groups of values (such as the scores of rows
// labelled normal and anomalous) with reference marks.
type Histogram struct {
	Title, XLabel string
	Groups        []Series // Name, Y (the values) and Color are used
	Bins          int
	Marks         []Mark // vertical marks only
}

// Save draws the histogram to path as a PNG of 6 x 4 inches.
func (h Histogram) Save(path string) error {
	p := plot.New()
	p.Title.Text = h.Title
	p.X.Label.Text = h.XLabel
	p.Y.Label.Text = "rows"
	p.Legend.Top = true
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, g := range h.Groups {
		for _, v := range g.Y {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if lo > hi {
		return fmt.Errorf("plots: histogram %q has no values", h.Title)
	}
	if hi == lo {
		hi = lo + 1
	}
	bins := max(h.Bins, 10)
	width := (hi - lo) / float64(bins)
	ymax := 0.0
	for _, g := range h.Groups {
		counts := make([]float64, bins)
		for _, v := range g.Y {
			counts[min(bins-1, int((v-lo)/width))]++
		}
		var hb []plotter.HistogramBin
		for i, c := range counts {
			hb = append(hb, plotter.HistogramBin{Min: lo + float64(i)*width, Max: lo + float64(i+1)*width, Weight: c})
			ymax = math.Max(ymax, c)
		}
		hist := &plotter.Histogram{Bins: hb, Width: width, FillColor: fade(g.Color), LineStyle: draw.LineStyle{Color: g.Color, Width: vg.Points(0.5)}}
		p.Add(hist)
		if g.Name != "" {
			p.Legend.Add(fmt.Sprintf("%s (%d)", g.Name, len(g.Y)), hist)
		}
	}
	p.Y.Min, p.Y.Max = 0, ymax*1.35 // room for the legend above the bars
	for _, m := range h.Marks {
		if math.IsNaN(m.X) || math.IsInf(m.X, 0) {
			continue
		}
		if err := addMark(p, m, plotter.XYs{{X: m.X, Y: 0}, {X: m.X, Y: ymax}}); err != nil {
			return err
		}
	}
	return save(p, path)
}

func fade(c color.Color) color.Color { return withAlpha(c, 110) }

// withAlpha is c, made opaque, at opacity a: a non-premultiplied colour, since the
// colour values of an opaque c exceed a (a premultiplied color.RGBA would be invalid).
func withAlpha(c color.Color, a uint8) color.Color {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	n.A = a
	return n
}

func save(p *plot.Plot, path string) error {
	w, err := p.WriterTo(6*vg.Inch, 4*vg.Inch, "png")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(f io.Writer) error {
		_, err := w.WriteTo(f)
		return err
	})
}

// addMark draws mark m as the line through pts, with its legend entry when it has a name.
func addMark(p *plot.Plot, m Mark, pts plotter.XYs) error {
	l, err := plotter.NewLine(pts)
	if err != nil {
		return err
	}
	l.Color = m.Color
	l.Width = vg.Points(1.5)
	if m.Dashed {
		l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	p.Add(l)
	if m.Name != "" {
		p.Legend.Add(m.Name, l)
	}
	return nil
}

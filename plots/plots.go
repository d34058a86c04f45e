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

// Series is one line, with an optional ± band (Std, same length as Y).
type Series struct {
	Name  string
	X, Y  []float64
	Std   []float64
	Color color.Color
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

// Figure is a line figure: axes labels, series and marks.
type Figure struct {
	Title, XLabel, YLabel string
	Series                []Series
	Marks                 []Mark
	LogY                  bool
}

// Save draws the figure to path as a PNG of 6 x 4 inches.
func (f Figure) Save(path string) error {
	p := plot.New()
	p.Title.Text = f.Title
	p.X.Label.Text = f.XLabel
	p.Y.Label.Text = f.YLabel
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	if f.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
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
			if math.IsNaN(s.Y[i]) || math.IsInf(s.Y[i], 0) || (f.LogY && s.Y[i] <= 0) {
				continue
			}
			xy = append(xy, plotter.XY{X: s.X[i], Y: s.Y[i]})
			xmin, xmax = math.Min(xmin, s.X[i]), math.Max(xmax, s.X[i])
			ymin, ymax = math.Min(ymin, s.Y[i]), math.Max(ymax, s.Y[i])
		}
		if len(xy) == 0 {
			continue
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return err
		}
		l.Color = s.Color
		l.Width = vg.Points(1.5)
		p.Add(l)
		if s.Name != "" {
			p.Legend.Add(s.Name, l)
		}
	}
	if xmin > xmax {
		xmin, xmax, ymin, ymax = 0, 1, 0, 1
	}
	for _, m := range f.Marks {
		if !math.IsNaN(m.Y) && !math.IsInf(m.Y, 0) {
			ymin, ymax = math.Min(ymin, m.Y), math.Max(ymax, m.Y)
		}
	}
	for _, m := range f.Marks {
		var pts plotter.XYs
		switch {
		case !math.IsNaN(m.X):
			pts = plotter.XYs{{X: m.X, Y: ymin}, {X: m.X, Y: ymax}}
		case !math.IsNaN(m.Y):
			pts = plotter.XYs{{X: xmin, Y: m.Y}, {X: xmax, Y: m.Y}}
		default:
			continue
		}
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
	}
	pad(p, xmin, xmax, ymin, ymax, f.LogY)
	return save(p, path)
}

// pad widens the axes around the data: 2% on the sides and below, and room above for
// the legend, which sits at the top, so it never covers a mark at the edge.
func pad(p *plot.Plot, xmin, xmax, ymin, ymax float64, logY bool) {
	dx := math.Max(xmax-xmin, 1e-12)
	p.X.Min, p.X.Max = xmin-0.02*dx, xmax+0.02*dx
	p.X.Tick.Marker = plainTicks{}
	if logY {
		if ymin > 0 {
			p.Y.Min, p.Y.Max = ymin/1.2, ymax*math.Pow(ymax/ymin, 0.35)
		}
		return
	}
	dy := math.Max(ymax-ymin, 1e-12)
	p.Y.Min, p.Y.Max = ymin-0.02*dy, ymax+0.35*dy
	p.Y.Tick.Marker = plainTicks{}
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
		l, err := plotter.NewLine(plotter.XYs{{X: m.X, Y: 0}, {X: m.X, Y: ymax}})
		if err != nil {
			return err
		}
		l.Color = m.Color
		l.Width = vg.Points(1.5)
		if m.Dashed {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(l)
		p.Legend.Add(m.Name, l)
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

package plots

import (
	"cmp"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
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

// Figure is a line figure: axes labels, series and marks. Values a figure cannot show
// are left out: NaN, ±Inf, magnitudes above Limit, and on a log axis values not above
// 1/Limit. Whatever the values, drawing does bounded work.
type Figure struct {
	Title, XLabel, YLabel string
	Series                []Series
	Marks                 []Mark
	LogX, LogY            bool
}

// Limit bounds the magnitudes a figure shows; beyond it (and below its inverse on a log
// axis) values are left out, so that axis ranges and their ticks stay finite and few.
const Limit = 1e100

// shown reports whether v can be drawn on a linear axis, or on a log one.
func shown(v float64, log bool) bool {
	if log {
		return v > 1/Limit && v < Limit
	}
	return math.Abs(v) < Limit
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
			if len(s.Std) != len(s.Y) {
				return fmt.Errorf("plots: series %q has %d y and %d std values", s.Name, len(s.Y), len(s.Std))
			}
			if band, ok := bandPolygon(s, f.LogX, f.LogY); ok {
				p.Add(band)
			}
		}
		xy := make(plotter.XYs, 0, len(s.X))
		for i := range s.X {
			if !shown(s.X[i], f.LogX) || !shown(s.Y[i], f.LogY) {
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
	for _, m := range f.Marks {
		if shown(m.Y, f.LogY) {
			ymin, ymax = math.Min(ymin, m.Y), math.Max(ymax, m.Y)
		}
	}
	if xmin > xmax {
		xmin, xmax = emptyRange(f.LogX)
	}
	if ymin > ymax {
		ymin, ymax = emptyRange(f.LogY)
	}
	for _, m := range f.Marks {
		var pts plotter.XYs
		switch {
		case shown(m.X, f.LogX):
			pts = plotter.XYs{{X: m.X, Y: ymin}, {X: m.X, Y: ymax}}
		case shown(m.Y, f.LogY):
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

// emptyRange is the range of an axis with nothing to show.
func emptyRange(log bool) (float64, float64) {
	if log {
		return 1, 10
	}
	return 0, 1
}

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
	lo, hi = widen(lo, hi, log)
	if log {
		a.Min, a.Max = lo/1.05, hi*1.05
		a.Tick.Marker = logTicks{}
		return
	}
	d := hi - lo
	a.Min, a.Max = lo-0.02*d, hi+0.02*d
	a.Tick.Marker = plainTicks{}
}

// padY widens the y axis 2% below the data and leaves room above for the legend, which
// sits at the top, so it never covers a mark at the edge.
func padY(a *plot.Axis, lo, hi float64, log bool) {
	lo, hi = widen(lo, hi, log)
	if log {
		a.Min, a.Max = lo/1.2, hi*math.Pow(hi/lo, 0.35)
		a.Tick.Marker = logTicks{}
		return
	}
	d := hi - lo
	a.Min, a.Max = lo-0.02*d, hi+0.35*d
	a.Tick.Marker = plainTicks{}
}

// widen gives a range [lo, hi] of shown values (see shown) a width that float64 can
// tell apart: a range of one value, or one narrower than a millionth of its size,
// becomes ±10% around its middle (a factor 2 on a log axis), and at least ±1 on a
// linear one.
func widen(lo, hi float64, log bool) (float64, float64) {
	if log {
		if hi/lo < 1+1e-6 {
			return lo / 2, hi * 2
		}
		return lo, hi
	}
	if hi-lo < 1e-6*math.Max(math.Abs(lo), math.Abs(hi)) || hi-lo < 1e-12 {
		c := lo/2 + hi/2
		w := math.Max(math.Abs(c)*0.1, 1)
		return c - w, c + w
	}
	return lo, hi
}

// logTicks mark a log axis at every multiple 1 to 9 of each power of ten, labelling the
// powers of ten, and also the multiples 2 and 5 where the axis spans less than two
// decades, so that an axis inside one decade still has labels; an axis too short for two
// labels gets plainTicks. (gonum's LogTicks starts a decade late below 1 and repeats
// each power of ten.)
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0 && lo < hi && hi < math.Inf(1)) {
		return plainTicks{}.Ticks(lo, hi) // not a log range; never loop over its decades
	}
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
	if !(lo < hi) || math.IsInf(hi-lo, 0) {
		return nil
	}
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', 6, 64)
		}
	}
	return ts
}

// bandPolygon is the ± Std band around s, over the points where both edges can be
// shown; false when fewer than three are left.
func bandPolygon(s Series, logX, logY bool) (*plotter.Polygon, bool) {
	var keep []int
	for i := range s.X {
		if shown(s.X[i], logX) && shown(s.Y[i]+s.Std[i], logY) && shown(s.Y[i]-s.Std[i], logY) {
			keep = append(keep, i)
		}
	}
	if len(keep) < 2 {
		return nil, false
	}
	var pts plotter.XYs
	for _, i := range keep {
		pts = append(pts, plotter.XY{X: s.X[i], Y: s.Y[i] + s.Std[i]})
	}
	for j := len(keep) - 1; j >= 0; j-- {
		i := keep[j]
		pts = append(pts, plotter.XY{X: s.X[i], Y: s.Y[i] - s.Std[i]})
	}
	poly, err := plotter.NewPolygon(pts)
	if err != nil {
		return nil, false
	}
	poly.Color = withAlpha(s.Color, 60)
	poly.LineStyle.Width = 0
	return poly, true
}

// Histogram is a histogram of one or more groups of values (such as the scores of rows
// labelled normal and anomalous) with reference marks. Values that a linear axis cannot
// show (see Figure) are left out; a histogram with none left is an error.
type Histogram struct {
	Title, XLabel string
	Groups        []Series // Name, Y (the values) and Color are used
	Bins          int
	Marks         []Mark // vertical marks only
	// LogCount draws the counts on a log axis, so that a bin of a few rows beside one of
	// thousands stays visible; empty bins are not drawn.
	LogCount bool
	// SymLog draws the values on an asinh axis, linear near 0 and logarithmic beyond,
	// its ticks in the values' own units: a heavy tail then leaves the bulk of the
	// rows visible (HeavyTailed says when).
	SymLog bool
}

// HeavyTailed says whether values stretch so far beyond their bulk that a linear axis
// would squeeze most of them into a few bins: the largest lies more than 10
// interquartile ranges above the median (about 2.6 for a normal sample).
func HeavyTailed(v []float64) bool {
	if len(v) < 4 {
		return false
	}
	s := slices.Clone(v)
	slices.Sort(s)
	q := func(p float64) float64 { return s[int(p*float64(len(s)-1))] }
	iqr := q(0.75) - q(0.25)
	return iqr > 0 && s[len(s)-1]-q(0.5) > 10*iqr
}

// symlogTicks mark an asinh axis (Histogram.SymLog) at 0 and ±1, ±3, ±10, ±30, … in
// the values' units, where they fall inside it.
type symlogTicks struct{}

func (symlogTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	add := func(v float64) {
		if x := math.Asinh(v); x >= lo && x <= hi {
			ts = append(ts, plot.Tick{Value: x, Label: strconv.FormatFloat(v, 'g', -1, 64)})
		}
	}
	add(0)
	for p := 1.0; p < 1e300; p *= 10 {
		add(p)
		add(-p)
		add(3 * p)
		add(-3 * p)
		if math.Asinh(p) > math.Max(math.Abs(lo), math.Abs(hi)) {
			break
		}
	}
	slices.SortFunc(ts, func(a, b plot.Tick) int { return cmp.Compare(a.Value, b.Value) })
	return ts
}

// Save draws the histogram to path as a PNG of 6 x 4 inches.
func (h Histogram) Save(path string) error {
	p := plot.New()
	p.Title.Text = h.Title
	p.X.Label.Text = h.XLabel
	p.Y.Label.Text = "rows"
	if h.LogCount {
		p.Y.Label.Text = "rows (log scale)"
	}
	p.Legend.Top = true
	if h.SymLog {
		// Every value and mark moves to the asinh axis; the ticks say the values.
		groups := make([]Series, len(h.Groups))
		for i, g := range h.Groups {
			g.Y = slices.Clone(g.Y)
			for j, v := range g.Y {
				g.Y[j] = math.Asinh(v)
			}
			groups[i] = g
		}
		marks := slices.Clone(h.Marks)
		for i := range marks {
			marks[i].X = math.Asinh(marks[i].X)
		}
		h.Groups, h.Marks = groups, marks
		p.X.Tick.Marker = symlogTicks{}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, g := range h.Groups {
		for _, v := range g.Y {
			if shown(v, false) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if lo > hi {
		return fmt.Errorf("plots: histogram %q has no values", h.Title)
	}
	lo, hi = widen(lo, hi, false)
	bins := min(max(h.Bins, 10), 1000)
	width := (hi - lo) / float64(bins)
	ymax := 0.0
	for _, g := range h.Groups {
		counts := make([]float64, bins)
		for _, v := range g.Y {
			if shown(v, false) {
				counts[max(0, min(bins-1, int((v-lo)/width)))]++
			}
		}
		var hb []plotter.HistogramBin
		for i, c := range counts {
			hb = append(hb, plotter.HistogramBin{Min: lo + float64(i)*width, Max: lo + float64(i+1)*width, Weight: c})
			ymax = math.Max(ymax, c)
		}
		hist := &plotter.Histogram{Bins: hb, Width: width, FillColor: fade(g.Color), LineStyle: draw.LineStyle{Color: g.Color, Width: vg.Points(0.5)}, LogY: h.LogCount}
		p.Add(hist)
		if g.Name != "" {
			p.Legend.Add(fmt.Sprintf("%s (%d)", g.Name, len(g.Y)), hist)
		}
	}
	ymin := 0.0
	p.Y.Min, p.Y.Max = 0, ymax*1.35 // room for the legend above the bars
	if h.LogCount {
		ymin = 0.5
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{}
		p.Y.Min, p.Y.Max = ymin, math.Max(ymax, 1)*4
	}
	for _, m := range h.Marks {
		if !shown(m.X, false) {
			continue
		}
		if err := addMark(p, m, plotter.XYs{{X: m.X, Y: ymin}, {X: m.X, Y: math.Max(ymax, 1)}}); err != nil {
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

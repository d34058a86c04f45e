package plots

import (
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/udocc/udocc/internal/atomicfile"
)

// Bars is a horizontal bar chart: one bar per label, top to bottom in the order given,
// each of its value (a share of a score, say) and colour (Blue where Colors is nil or
// shorter). Values a linear axis cannot show (see Figure) are drawn as 0.
type Bars struct {
	Title, XLabel string
	Labels        []string
	Values        []float64
	Colors        []color.Color
}

// Save draws the chart to path as a PNG 6 inches wide and tall enough for its bars.
func (b Bars) Save(path string) error {
	if len(b.Labels) != len(b.Values) {
		return fmt.Errorf("plots: bars %q have %d labels and %d values", b.Title, len(b.Labels), len(b.Values))
	}
	if len(b.Values) == 0 {
		return fmt.Errorf("plots: bars %q have no values", b.Title)
	}
	p := plot.New()
	p.Title.Text = b.Title
	p.X.Label.Text = b.XLabel
	p.Add(plotter.NewGrid())
	n := len(b.Values)
	lo, hi := 0.0, 0.0
	for i, v := range b.Values {
		if !shown(v, false) {
			v = 0
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
		// One chart per bar, at its own row (the first at the top), so each has its colour.
		vals := make(plotter.Values, n)
		vals[n-1-i] = v
		bc, err := plotter.NewBarChart(vals, vg.Points(10))
		if err != nil {
			return err
		}
		bc.Horizontal = true
		bc.Color, bc.LineStyle.Width = Blue, 0
		if i < len(b.Colors) && b.Colors[i] != nil {
			bc.Color = b.Colors[i]
		}
		p.Add(bc)
	}
	labels := make([]string, n)
	for i, l := range b.Labels {
		labels[n-1-i] = l
	}
	p.NominalY(labels...)
	if lo == hi {
		hi = 1
	}
	p.X.Min, p.X.Max = lo-0.05*(hi-lo), hi+0.05*(hi-lo)
	h := vg.Length(math.Max(4, 0.6+0.22*float64(n))) * vg.Inch
	w, err := p.WriterTo(6*vg.Inch, h, "png")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(f io.Writer) error {
		_, err := w.WriteTo(f)
		return err
	})
}

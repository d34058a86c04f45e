package stats

import "math"

// Quantile returns the p-quantile, p in [0, 1], of the ascending, non-empty x by linear
// interpolation between order statistics (Hyndman–Fan type 7, numpy's default method):
// with h = p·(n−1), j = ⌊h⌋ and g = h − j, it is x[j] + g·(x[j+1] − x[j]). Quantile(x, ½)
// is the median, x[j] + ½·(x[j+1] − x[j]) for an even count.
func Quantile(x []float64, p float64) float64 {
	h := p * float64(len(x)-1)
	lo := int(math.Floor(h))
	if lo >= len(x)-1 {
		return x[len(x)-1]
	}
	return x[lo] + (h-float64(lo))*(x[lo+1]-x[lo])
}

// QuantileNumPy is Quantile with the float operations of numpy.quantile (its _lerp):
// for g ≥ ½ it interpolates from the upper end, x[j+1] − (x[j+1] − x[j])·(1 − g), so
// that its values are numpy's to the last bit. Soft-boundary Deep SVDD's radius is one
// (Ruff's get_radius calls numpy).
func QuantileNumPy(x []float64, q float64) float64 {
	h := float64(len(x)-1) * q
	j := int(math.Floor(h))
	if j >= len(x)-1 {
		return x[len(x)-1]
	}
	g := h - float64(j)
	a, b := x[j], x[j+1]
	if g >= 0.5 {
		return b - (b-a)*(1-g)
	}
	return a + (b-a)*g
}

package stats

// Sums says about which value TwoClassSplit accumulates the class sums. The class means'
// difference does not depend on the shift, but its rounding does, so the two can pick a
// different cut where two cuts' between-class variances agree to the last bits.
type Sums int

const (
	// AboutMedian takes the sums about the middle value x[n/2] and keeps the upper
	// class's sum as a suffix sum: large, close values keep their precision, and no sum
	// is formed as a difference of two large ones. Otsu's method in package dynamics
	// (the otsu training method) uses it.
	AboutMedian Sums = iota
	// AboutMean takes the sums about the mean Σx/n and forms the upper class's sum as the
	// total less the lower one's. The two-means and Otsu rules of package threshold (the
	// default count, kmeans, among them) use it.
	AboutMean
)

// TwoClassSplit returns the cut k of the ascending x into a lower class x[:k] and an
// upper class x[k:] that maximises the between-class variance k·(n−k)·(μ₀ − μ₁)², the
// exact optimum of Otsu's method and of one-dimensional 2-means (equivalently, the least
// within-class sum of squares), over the cuts between distinct values; the first such
// cut on ties. It is 0 when there is no cut: fewer than two values, or all equal. Every
// cut is tried in O(n), with no binning.
func TwoClassSplit(x []float64, sums Sums) int {
	n := len(x)
	if n < 2 || x[0] == x[n-1] {
		return 0
	}
	shift, total, suffix := classSums(x, sums)
	best, cut, lower := -1.0, 0, 0.0
	for k := 1; k < n; k++ {
		lower += x[k-1] - shift
		if x[k-1] == x[k] {
			continue
		}
		upper := total - lower
		if suffix != nil {
			upper = suffix[k]
		}
		d := lower/float64(k) - upper/float64(n-k)
		if v := float64(k) * float64(n-k) * d * d; v > best {
			best, cut = v, k
		}
	}
	return cut
}

// classSums returns the shift of the sums and what the upper class's sum of x[k:] − shift
// is taken from: with AboutMean the total Σ(x − shift), less the lower class's sum; with
// AboutMedian the suffix sums, suffix[k] = Σ_{i ≥ k}(x[i] − shift).
func classSums(x []float64, sums Sums) (shift, total float64, suffix []float64) {
	n := len(x)
	if sums == AboutMean {
		for _, v := range x {
			shift += v
		}
		shift /= float64(n)
		for _, v := range x {
			total += v - shift
		}
		return shift, total, nil
	}
	shift = x[n/2]
	suffix = make([]float64, n+1)
	for k := n - 1; k >= 0; k-- {
		suffix[k] = suffix[k+1] + (x[k] - shift)
	}
	return shift, 0, suffix
}

package stats

import (
	"math"
	"slices"
)

// Median is the median of v, the mean of the middle two values of an even count,
// (a + b)/2, as sorting v would give it, found by selection in O(len(v)); it reorders v.
// It is NaN for no values.
func Median(v []float64) float64 {
	n := len(v)
	if n == 0 {
		return math.NaN()
	}
	hi := Kth(v, n/2)
	if n%2 == 1 {
		return hi
	}
	// Kth leaves the n/2 smallest values in v[:n/2]; the largest of them is the other
	// middle one.
	return (slices.Max(v[:n/2]) + hi) / 2
}

// MedianDeviation returns Median(v) and the median absolute deviation (MAD) about it,
// median(|v − Median(v)|), or the mean absolute deviation where the MAD is 0 (more than
// half the values equal); the deviation is 0 only when every value is equal. It reorders
// v and then overwrites it with the deviations.
func MedianDeviation(v []float64) (median, dev float64) {
	median = Median(v)
	mean := 0.0
	for i, x := range v {
		v[i] = math.Abs(x - median)
		mean += v[i]
	}
	if dev = Median(v); dev > 0 {
		return median, dev
	}
	return median, mean / float64(len(v))
}

// MAD returns the median of the ascending, non-empty x and its median absolute
// deviation median(|x − median|), both medians Quantile's at ½ (so for an even count
// a + ½·(b − a), which can differ from Median's (a + b)/2 in the last bit), with no
// fallback: the MAD is 0 when more than half the values are equal. x is not modified.
func MAD(x []float64) (median, mad float64) {
	median = Quantile(x, 0.5)
	dev := make([]float64, len(x))
	for i, v := range x {
		dev[i] = math.Abs(v - median)
	}
	slices.Sort(dev)
	return median, Quantile(dev, 0.5)
}

// Kth returns the value that sorting v would put at v[k] (0 ≤ k < len(v)), in O(len(v)),
// reordering v so that no value before position k is larger and none after it is
// smaller: Hoare's selection with a median-of-three pivot and a three-way partition, so
// that many equal values (tied scores) cost no more than distinct ones.
func Kth(v []float64, k int) float64 {
	lo, hi := 0, len(v)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if v[mid] < v[lo] {
			v[mid], v[lo] = v[lo], v[mid]
		}
		if v[hi] < v[lo] {
			v[hi], v[lo] = v[lo], v[hi]
		}
		if v[hi] < v[mid] {
			v[hi], v[mid] = v[mid], v[hi]
		}
		p := v[mid]
		// v[lo:lt] < p, v[lt:i] == p, v(gt:hi] > p; v[i:gt+1] not yet seen.
		lt, i, gt := lo, lo, hi
		for i <= gt {
			switch {
			case v[i] < p:
				v[lt], v[i] = v[i], v[lt]
				lt, i = lt+1, i+1
			case v[i] > p:
				v[i], v[gt] = v[gt], v[i]
				gt--
			default:
				i++
			}
		}
		switch {
		case k < lt:
			hi = lt - 1
		case k > gt:
			lo = gt + 1
		default:
			return p
		}
	}
	return v[k]
}

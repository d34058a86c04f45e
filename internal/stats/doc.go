// Package stats is the one home of the numeric helpers that several udocc packages share:
// order statistics of a vector of float64 values, their robust spread, the exact two-class
// split of sorted values, and widening float32 values to float64.
//
// It is not for validation: callers check that values are finite and non-empty (package
// dynamics' and threshold's rules do, with their own sentinel errors), and the helpers
// panic on an empty input where the statistic does not exist. Where two callers compute
// a statistic with different floating-point operations, both are here, named by what
// they compute, so that each keeps its exact numbers:
//
//   - Quantile and QuantileNumPy are both the linear (Hyndman–Fan type 7) quantile of
//     sorted values; QuantileNumPy rounds as numpy.quantile does.
//   - Median (the mean of the middle two, by selection) and MAD (whose median is
//     Quantile's at ½) differ in the last bit for an even count.
//   - TwoClassSplit takes its sums about the median (AboutMedian) or the mean (AboutMean).
//
// A caller starts from Quantile, Median, MedianDeviation or TwoClassSplit.
package stats

package bench

import "math"

// stat is a mean ± std over seeds.
type stat struct {
	Mean, Std float64
	K         int // finite values averaged; 0 means no value
}

// meanStd is the mean and the population standard deviation (divided by k, as numpy's
// np.std by default) of the finite values of xs. The paper does not say which std it
// reports; with 10 seeds the sample std (k − 1) is 5.4% larger.
func meanStd(xs []float64) stat {
	var s stat
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			s.Mean += x
			s.K++
		}
	}
	if s.K == 0 {
		return stat{Mean: math.NaN(), Std: math.NaN()}
	}
	s.Mean /= float64(s.K)
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			s.Std += (x - s.Mean) * (x - s.Mean)
		}
	}
	s.Std = math.Sqrt(s.Std / float64(s.K))
	return s
}

// columnStats is meanStd of every column of rows (index i of each row), for per-epoch
// bands; rows may differ in length, missing entries count as absent.
func columnStats(rows [][]float64) []stat {
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	out := make([]stat, width)
	col := make([]float64, 0, len(rows))
	for i := range out {
		col = col[:0]
		for _, r := range rows {
			if i < len(r) {
				col = append(col, r[i])
			}
		}
		out[i] = meanStd(col)
	}
	return out
}

func floats(xs []Num) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

package stats

import "testing"

func TestQuantile(t *testing.T) {
	tests := []struct {
		name string
		x    []float64
		p    float64
		want float64
	}{
		// h = p·(n−1), j = ⌊h⌋: x[j] + (h − j)·(x[j+1] − x[j]).
		{"even count's median is the middle two's midpoint", []float64{1, 2, 3, 4}, 0.5, 2.5},
		{"h = 0.75 between the first two", []float64{1, 2, 3, 4}, 0.25, 1.75},
		{"h = 2.25 between the last two", []float64{1, 2, 3, 4}, 0.75, 3.25},
		{"odd count's median is the middle value", []float64{1, 2, 7, 20, 34}, 0.5, 7},
		{"h = 0.4 of the way from 1 to 2", []float64{1, 2, 7, 20, 34}, 0.1, 1.4},
		{"p = 0 is the minimum", []float64{-1, 2, 3}, 0, -1},
		{"p = 1 is the maximum", []float64{-1, 2, 3}, 1, 3},
		{"one value", []float64{4}, 0.3, 4},
		// x[0] + ½·(x[1] − x[0]) rounds to a value one ulp below numpy's and below
		// (x[0] + x[1])/2.
		{"rounds from the lower end", []float64{-1.6181830482538673, 3.192750264193613}, 0.5, 0.7872836079698726},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Quantile(tt.x, tt.p); got != tt.want {
				t.Errorf("Quantile(%v, %v) = %v, want %v", tt.x, tt.p, got, tt.want)
			}
		})
	}
}

func TestQuantileNumPy(t *testing.T) {
	tests := []struct {
		name string
		x    []float64
		q    float64
		want float64
	}{
		// numpy.quantile's documentation: a = [[10, 7, 4], [3, 2, 1]], np.quantile(a, 0.5)
		// is 3.5 and np.quantile(a, 0.5, axis=0) is [6.5, 4.5, 2.5].
		{"numpy docs, flattened", []float64{1, 2, 3, 4, 7, 10}, 0.5, 3.5},
		{"numpy docs, column 0", []float64{3, 10}, 0.5, 6.5},
		{"numpy docs, column 1", []float64{2, 7}, 0.5, 4.5},
		{"numpy docs, column 2", []float64{1, 4}, 0.5, 2.5},
		// Printed numpy outputs in tutorials: np.quantile(np.arange(8), [.25, .5, .75])
		// is 1.75 3.5 5.25; np.quantile([20, 2, 7, 1, 34], q) is 7, 2, 20, 1.4 for
		// q = .5, .25, .75, .1.
		{"arange(8) q=.25", []float64{0, 1, 2, 3, 4, 5, 6, 7}, 0.25, 1.75},
		{"arange(8) q=.5", []float64{0, 1, 2, 3, 4, 5, 6, 7}, 0.5, 3.5},
		{"arange(8) q=.75", []float64{0, 1, 2, 3, 4, 5, 6, 7}, 0.75, 5.25},
		{"five values q=.5", []float64{1, 2, 7, 20, 34}, 0.5, 7},
		{"five values q=.25", []float64{1, 2, 7, 20, 34}, 0.25, 2},
		{"five values q=.75", []float64{1, 2, 7, 20, 34}, 0.75, 20},
		{"five values q=.1", []float64{1, 2, 7, 20, 34}, 0.1, 1.4},
		{"q = 0 is the minimum", []float64{-1, 2, 3}, 0, -1},
		{"q = 1 is the maximum", []float64{-1, 2, 3}, 1, 3},
		{"one value", []float64{4}, 0.3, 4},
		// g = ½ interpolates from the upper end: x[1] − (x[1] − x[0])·½, one ulp above
		// Quantile's value of the same pair.
		{"rounds from the upper end", []float64{-1.6181830482538673, 3.192750264193613}, 0.5, 0.7872836079698731},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := QuantileNumPy(tt.x, tt.q); got != tt.want {
				t.Errorf("QuantileNumPy(%v, %v) = %v, want %v", tt.x, tt.q, got, tt.want)
			}
		})
	}
}

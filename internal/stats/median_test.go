package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestKth checks Kth and Median against sorting, on random values with many ties, sorted
// and reversed inputs and all-equal ones, of odd and even lengths, for every k; and that
// Kth leaves no larger value before k and no smaller one after it.
func TestKth(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var inputs [][]float64
	for _, n := range []int{1, 2, 3, 4, 5, 8, 31, 64, 257} {
		distinct, ties, equal := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range distinct {
			distinct[i] = r.NormFloat64()
			ties[i] = float64(r.IntN(4))
			equal[i] = 2.5
		}
		up := slices.Clone(distinct)
		slices.Sort(up)
		down := slices.Clone(up)
		slices.Reverse(down)
		inputs = append(inputs, distinct, ties, equal, up, down)
	}
	for _, in := range inputs {
		sorted := slices.Clone(in)
		slices.Sort(sorted)
		for k := range in {
			v := slices.Clone(in)
			if got := Kth(v, k); got != sorted[k] {
				t.Fatalf("%v: Kth %d = %v, sorting gives %v", in, k, got, sorted[k])
			}
			for i := range v {
				if (i < k && v[i] > v[k]) || (i > k && v[i] < v[k]) {
					t.Fatalf("%v: after Kth %d, v[%d] = %v against v[k] = %v", in, k, i, v[i], v[k])
				}
			}
		}
		// Kth on a slice a selection has reordered, as intervalCuts calls it twice.
		v := slices.Clone(in)
		for _, k := range []int{len(in) - 1, 0, len(in) / 3, len(in) / 2} {
			if got := Kth(v, k); got != sorted[k] {
				t.Fatalf("%v: Kth %d after other selections = %v, sorting gives %v", in, k, got, sorted[k])
			}
		}
		n := len(in)
		want := sorted[n/2]
		if n%2 == 0 {
			want = (sorted[n/2-1] + sorted[n/2]) / 2
		}
		if got := Median(slices.Clone(in)); got != want {
			t.Fatalf("%v: median %v, want %v", in, got, want)
		}
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		name string
		v    []float64
		want float64
	}{
		{"odd count: the middle value", []float64{9, 1, 5}, 5},
		{"even count: the middle two's mean", []float64{4, 1, 3, 2}, 2.5},
		// (x[0] + x[1])/2, between Quantile's and QuantileNumPy's value of the pair.
		{"even count rounds as (a + b)/2", []float64{3.192750264193613, -1.6181830482538673}, 0.7872836079698728},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Median(slices.Clone(tt.v)); got != tt.want {
				t.Errorf("Median(%v) = %v, want %v", tt.v, got, tt.want)
			}
		})
	}
	t.Run("no values: NaN", func(t *testing.T) {
		if got := Median(nil); !math.IsNaN(got) {
			t.Errorf("Median(nil) = %v, want NaN", got)
		}
	})
}

// TestMedianDeviation checks MedianDeviation on hand-worked cases: the MAD, the mean
// absolute deviation where the MAD is 0, and 0 for equal values.
func TestMedianDeviation(t *testing.T) {
	for _, c := range []struct {
		name     string
		v        []float64
		med, dev float64
	}{
		{"the MAD", []float64{1, 2, 3, 4, 100}, 3, 1},                         // deviations 2 1 0 1 97
		{"even count", []float64{4, 1, 3, 2}, 2.5, 1},                         // deviations 1.5 1.5 0.5 0.5
		{"MAD 0: the mean deviation", []float64{5, 5, 5, 5, 9}, 5, 0.8},       // mean of 0 0 0 0 4
		{"all equal", []float64{7, 7, 7}, 7, 0},                               //
		{"MAD 0, even count", []float64{-1, 0, 0, 0, 0, 0, 1, 3}, 0, 5.0 / 8}, // mean of 1 0 0 0 0 0 1 3
	} {
		t.Run(c.name, func(t *testing.T) {
			med, dev := MedianDeviation(slices.Clone(c.v))
			if med != c.med || dev != c.dev {
				t.Errorf("MedianDeviation(%v) = %v, %v; want %v, %v", c.v, med, dev, c.med, c.dev)
			}
		})
	}
}

// TestMAD checks MAD on hand-worked cases: Quantile's medians, and no fallback where more
// than half the values are equal.
func TestMAD(t *testing.T) {
	for _, c := range []struct {
		name     string
		x        []float64
		med, mad float64
	}{
		{"odd count", []float64{1, 2, 3, 4, 100}, 3, 1},              // deviations 0 1 1 2 97
		{"even count", []float64{1, 2, 3, 4}, 2.5, 1},                // deviations 0.5 0.5 1.5 1.5
		{"MAD 0 stays 0", []float64{5, 5, 5, 5, 9}, 5, 0},            // deviations 0 0 0 0 4
		{"one value", []float64{-2}, -2, 0},                          //
		{"outliers do not move it", []float64{0, 1, 2, 1e9}, 1.5, 1}, // deviations 0.5 0.5 1.5 ≈1e9
	} {
		t.Run(c.name, func(t *testing.T) {
			in := slices.Clone(c.x)
			med, mad := MAD(in)
			if med != c.med || mad != c.mad {
				t.Errorf("MAD(%v) = %v, %v; want %v, %v", c.x, med, mad, c.med, c.mad)
			}
			if !slices.Equal(in, c.x) {
				t.Errorf("MAD modified its input: %v", in)
			}
		})
	}
}

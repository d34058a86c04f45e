package threshold

import "github.com/udocc/udocc/internal/stats"

// KMeans splits the scores into the two clusters of least within-cluster
// sum of squares, the global optimum of one-dimensional 2-means (PyThresh's
// CLUST with k-means, without its random restarts), and flags the upper
// cluster. In one dimension the optimal clusters are contiguous in sorted
// order, so scanning the n − 1 split points finds the optimum exactly and
// deterministically. The threshold is the midpoint of the two cluster means,
// the boundary k-means assigns new scores by; on the fitted scores it
// flags exactly the upper cluster, because an optimal partition is a fixed
// point of Lloyd's iteration. Equivariant under shift and positive scaling.
type KMeans struct{}

// Name returns "kmeans".
func (KMeans) Name() string { return "kmeans" }

// Threshold returns (μ_low + μ_high)/2 of the optimal 2-means split.
func (KMeans) Threshold(scores []float64) (float64, error) {
	x, err := sorted(scores)
	if err != nil {
		return 0, err
	}
	i, lo, hi := bestSplit(x)
	if i == 0 {
		return x[0], nil
	}
	return (lo + hi) / 2, nil
}

// Otsu is Otsu's method (Otsu 1979, IEEE Trans. SMC 9(1)) on the scores
// themselves rather than on a histogram: the cut maximising the
// between-class variance w₀·w₁·(μ₀ − μ₁)². Because total variance is
// between-class plus within-class variance, this is the same partition as
// KMeans; the rules differ only in where the threshold sits in the gap:
// Otsu returns the largest score of the lower class, as skimage's
// threshold_otsu (which PyThresh's OTSU calls) returns a value of the
// lower class, KMeans the midpoint of the means. Without binning the cut
// does not depend on a bin count and is equivariant under shift and
// positive scaling.
type Otsu struct{}

// Name returns "otsu".
func (Otsu) Name() string { return "otsu" }

// Threshold returns the largest score of the lower class.
func (Otsu) Threshold(scores []float64) (float64, error) {
	x, err := sorted(scores)
	if err != nil {
		return 0, err
	}
	i, _, _ := bestSplit(x)
	if i == 0 {
		return x[0], nil
	}
	return x[i-1], nil
}

// bestSplit returns the split i of ascending x into x[:i] and x[i:] that
// maximises n₀·n₁·(μ₀ − μ₁)² (equivalently minimises the within-class sum of
// squares), the first such i on ties, with the two class means; i = 0 when
// x is constant. Splits fall only between distinct scores. The search's sums
// are taken about the mean (stats.AboutMean); the class means are the
// classes' plain sums over their sizes.
func bestSplit(x []float64) (int, float64, float64) {
	i := stats.TwoClassSplit(x, stats.AboutMean)
	if i == 0 {
		return 0, x[0], x[0]
	}
	var lo, hi float64
	for _, v := range x[:i] {
		lo += v
	}
	for _, v := range x[i:] {
		hi += v
	}
	return i, lo / float64(i), hi / float64(len(x)-i)
}

package synth

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// lloydIters caps the k-means iterations of the EM start.
const lloydIters = 20

// kmeans returns a cluster label per row of x: k-means++ seeding (D²
// sampling) followed by at most lloydIters Lloyd iterations. A cluster that
// empties keeps its previous centre.
func kmeans(x *mat.Dense, k int, rng *rand.Rand) []int {
	n, d := x.Dims()
	labels := make([]int, n)
	if k == 1 {
		return labels
	}
	centres := mat.NewDense(k, d, nil)
	centres.SetRow(0, x.RawRowView(rng.IntN(n)))
	dist := make([]float64, n)
	for i := range dist {
		dist[i] = sqDist(x.RawRowView(i), centres.RawRowView(0))
	}
	for c := 1; c < k; c++ {
		centres.SetRow(c, x.RawRowView(pickD2(dist, rng)))
		for i := range dist {
			dist[i] = min(dist[i], sqDist(x.RawRowView(i), centres.RawRowView(c)))
		}
	}
	counts := make([]int, k)
	for it := 0; it < lloydIters; it++ {
		changed := false
		for i := 0; i < n; i++ {
			best, bestD := 0, math.Inf(1)
			for c := 0; c < k; c++ {
				if dd := sqDist(x.RawRowView(i), centres.RawRowView(c)); dd < bestD {
					best, bestD = c, dd
				}
			}
			if it == 0 || labels[i] != best {
				changed = true
				labels[i] = best
			}
		}
		if !changed {
			break
		}
		clear(counts)
		sums := mat.NewDense(k, d, nil)
		for i, c := range labels {
			floats.Add(sums.RawRowView(c), x.RawRowView(i))
			counts[c]++
		}
		for c := 0; c < k; c++ {
			if counts[c] > 0 {
				floats.ScaleTo(centres.RawRowView(c), 1/float64(counts[c]), sums.RawRowView(c))
			}
		}
	}
	return labels
}

// pickD2 draws an index with probability proportional to dist (uniformly
// when every distance is zero).
func pickD2(dist []float64, rng *rand.Rand) int {
	total := floats.Sum(dist)
	if !(total > 0) {
		return rng.IntN(len(dist))
	}
	u := rng.Float64() * total
	for i, v := range dist {
		if u -= v; u < 0 {
			return i
		}
	}
	return len(dist) - 1
}

func sqDist(a, b []float64) float64 {
	var s float64
	for j := range a {
		t := a[j] - b[j]
		s += t * t
	}
	return s
}

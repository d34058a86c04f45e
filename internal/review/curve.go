package review

import "math"

// LearnCurve learns a prior over the grid's (slope, ceiling) pairs from fully labelled
// tables: posts are their CurvePosterior, each with a weight (e.g. 1/its source group's
// number of tables, so that each group weighs alike); the average of the tables'
// posteriors is the prior (empirical Bayes: Robbins 1956; Carlin and Louis 2000, ch. 5).
// It is mixed with all-alike weights in the proportion flat, so that no pair is ruled out
// by the tables at hand. The weights sum to 1.
func LearnCurve(posts [][]float64, weights []float64, flat float64) []float64 {
	out := make([]float64, CurvePairs)
	wsum := 0.0
	for t, post := range posts {
		for i, p := range post {
			out[i] += weights[t] * p
		}
		wsum += weights[t]
	}
	for i := range out {
		out[i] = (1-flat)*out[i]/wsum + flat/float64(CurvePairs)
	}
	return out
}

// CurvePosterior is the posterior over the grid's (slope, ceiling) pairs given every
// label of a table (y in rank order, rank 1 first): the likelihood
// Π_bins p^a (1-p)^(cnt-a), a the bin's anomalies, summed over the locations c.
func CurvePosterior(y []bool) []float64 {
	n := len(y)
	g := gridFor(n)
	G := len(g.share)
	B := len(g.lo)
	a := make([]float64, B)
	for b := range B {
		for r := g.lo[b]; r < g.hi[b]; r++ {
			if y[r] {
				a[b]++
			}
		}
	}
	ll := make([]float64, G)
	for b := range B {
		cnt := float64(g.hi[b] - g.lo[b])
		lnp, ln1p := g.logs(b)
		for j := range ll {
			ll[j] += a[b]*lnp[j] + (cnt-a[b])*ln1p[j]
		}
	}
	top := math.Inf(-1)
	for _, v := range ll {
		top = max(top, v)
	}
	post := make([]float64, CurvePairs)
	sum := 0.0
	for j, v := range ll {
		e := math.Exp(v - top)
		post[j%CurvePairs] += e
		sum += e
	}
	for i := range post {
		post[i] /= sum
	}
	return post
}

package review

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sync"
)

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

// curveFile is the curve prior shipped with the package (curve.json), learned by
// `go run ./bench/review -learn-curve internal/review/curve.json` on the corpus.
type curveFile struct {
	Trained    string    `json:"trained"`
	Flat       float64   `json:"flat"`
	PriorScale float64   `json:"prior_scale"`
	Weights    []float64 `json:"weights"`
}

//go:embed curve.json
var curveJSON []byte

var defaultCurve = sync.OnceValue(func() curveFile {
	var f curveFile
	if err := json.Unmarshal(curveJSON, &f); err != nil || len(f.Weights) != CurvePairs || !(f.PriorScale > 0) {
		panic(fmt.Sprintf("review: curve.json: %d weights, prior scale %g, %v", len(f.Weights), f.PriorScale, err))
	}
	return f
})

// DefaultCurve is the curve prior the zero Method uses (a copy) and the share prior's
// scale learned with it: by LearnCurve on the fully labelled tables of the corpus, each
// source group weighing alike (curve.json).
func DefaultCurve() (weights []float64, priorScale float64) {
	f := defaultCurve()
	return slices.Clone(f.Weights), f.PriorScale
}

// CurveJSON is the file DefaultCurve is read from, for a learner to write anew.
func CurveJSON(weights []float64, flat, priorScale float64, trained string) ([]byte, error) {
	b, err := json.MarshalIndent(curveFile{Trained: trained, Flat: flat, PriorScale: priorScale, Weights: weights}, "", " ")
	return append(b, '\n'), err
}

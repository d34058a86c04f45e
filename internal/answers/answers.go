// Package answers re-ranks a fit's scores with the review's answers: rows near a row
// the user called an anomaly rise, rows near a row the user called normal fall.
//
// The evidence for row i is the log ratio of its distance to the nearest answered
// normal over its distance to the nearest answered anomaly, in the standardised columns
// (z-scores; constant columns dropped):
//
//	e_i = ln((b_i + δ) / (a_i + δ)),
//
// a 1-nearest-neighbour classifier's margin (Cover & Hart 1967), the same pull toward
// labelled anomalies and away from labelled normals as Deep SAD's loss (Ruff et al.,
// ICLR 2020, eq. 3), without retraining. δ is the median nearest-answer distance over
// the rows, so that far rows carry little evidence. The new score is the mix of the
// rank percentiles
//
//	s'_i = (1 − β) pct(score_i) + β pct(e_i),
//
// and with no anomaly among the answers the scores are returned unchanged: the answers
// then hold no evidence of where anomalies lie.
package answers

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Answer is one answered row: its 0-based row index and whether it is an anomaly.
type Answer struct {
	Row     int
	Anomaly bool
}

// RowError is an answer that names no row of the table.
type RowError struct {
	Row, N int
}

func (e *RowError) Error() string {
	return fmt.Sprintf("answers: row %d is not a row of the table (1..%d)", e.Row+1, e.N)
}

// Standardise is x (n×d, row-major) as z-scores with its constant columns dropped, in
// float64, and the number of columns kept.
func Standardise(x []float32, n, d int) ([]float64, int) {
	var keep []int
	mu := make([]float64, d)
	sd := make([]float64, d)
	for j := 0; j < d; j++ {
		var s, ss float64
		for i := 0; i < n; i++ {
			v := float64(x[i*d+j])
			s += v
		}
		m := s / float64(n)
		for i := 0; i < n; i++ {
			v := float64(x[i*d+j]) - m
			ss += v * v
		}
		mu[j], sd[j] = m, math.Sqrt(ss/float64(n))
		if sd[j] > 0 {
			keep = append(keep, j)
		}
	}
	k := len(keep)
	z := make([]float64, n*k)
	for i := 0; i < n; i++ {
		for c, j := range keep {
			z[i*k+c] = (float64(x[i*d+j]) - mu[j]) / sd[j]
		}
	}
	return z, k
}

// Evidence is e_i for every row of z (n×k, standardised), from the answers; nil when
// the answers hold no anomaly or no normal row. An answered row's own evidence leaves
// itself out, so that it reads as an unanswered row would.
func Evidence(z []float64, n, k int, ans []Answer) ([]float64, error) {
	var anom, norm []int
	for _, a := range ans {
		if a.Row < 0 || a.Row >= n {
			return nil, &RowError{Row: a.Row, N: n}
		}
		if a.Anomaly {
			anom = append(anom, a.Row)
		} else {
			norm = append(norm, a.Row)
		}
	}
	if len(anom) == 0 || len(norm) == 0 {
		return nil, nil
	}
	nearest := func(i int, set []int) float64 {
		best := math.Inf(1)
		xi := z[i*k : (i+1)*k]
		for _, r := range set {
			if r == i {
				continue
			}
			xr := z[r*k : (r+1)*k]
			var s float64
			for c := range xi {
				t := xi[c] - xr[c]
				s += t * t
			}
			best = min(best, s)
		}
		return math.Sqrt(best)
	}
	a := make([]float64, n)
	b := make([]float64, n)
	all := make([]float64, 0, 2*n)
	for i := 0; i < n; i++ {
		a[i], b[i] = nearest(i, anom), nearest(i, norm)
		if !math.IsInf(a[i], 1) {
			all = append(all, a[i])
		}
		if !math.IsInf(b[i], 1) {
			all = append(all, b[i])
		}
	}
	slices.Sort(all)
	delta := 1e-9
	if len(all) > 0 {
		delta = max(all[len(all)/2], 1e-9)
	}
	e := make([]float64, n)
	for i := range e {
		ai, bi := a[i], b[i]
		switch {
		case math.IsInf(ai, 1): // the only answered anomaly is i itself
			e[i] = 0
		case math.IsInf(bi, 1):
			e[i] = 0
		default:
			e[i] = math.Log((bi + delta) / (ai + delta))
		}
	}
	return e, nil
}

// Pct is the rank percentile of each value in (0, 1], ties sharing their mean rank.
func Pct(v []float64) []float64 {
	n := len(v)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(p, q int) bool { return v[idx[p]] < v[idx[q]] })
	out := make([]float64, n)
	for p := 0; p < n; {
		q := p
		for q+1 < n && v[idx[q+1]] == v[idx[p]] {
			q++
		}
		r := float64(p+q+2) / 2 / float64(n)
		for t := p; t <= q; t++ {
			out[idx[t]] = r
		}
		p = q + 1
	}
	return out
}

// Mix is (1 − beta) pct(scores) + beta pct(e); scores unchanged when e is nil.
func Mix(scores, e []float64, beta float64) []float64 {
	if e == nil || beta == 0 {
		return scores
	}
	ps, pe := Pct(scores), Pct(e)
	out := make([]float64, len(scores))
	for i := range out {
		out[i] = (1-beta)*ps[i] + beta*pe[i]
	}
	return out
}

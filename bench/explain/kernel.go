package main

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/udocc/udocc/data"
	udocc "github.com/udocc/udocc/internal/detector"
)

// regressionShapley estimates the Shapley values of each of rows (of ds) in the game
// Model.Explain plays — a coalition's value is the model's score of the row with the
// features outside it set to the normal rows' median; a feature at the median plays no
// part — by regression on sampled coalitions instead of permutations (Lundberg & Lee
// 2017's KernelSHAP; Covert & Lee 2021 for the paired samples; Musco & Witter 2025's
// Leverage SHAP for leverage): budget coalitions a row, in pairs (a coalition and its
// complement). The Shapley values are the solution of the least squares
//
//	min Σ_S μ(S) (v(S) − v(∅) − Σ_{j∈S} φ_j)²  subject to  Σ_j φ_j = v(N) − v(∅),
//
// with Shapley's kernel μ(S) = (k−1)/(C(k,|S|) |S| (k−|S|)). KernelSHAP draws the
// coalitions from μ (a size s with probability ∝ 1/(s(k−s)), then a uniform subset) and
// weighs them alike; leverage draws every size alike (the design's leverage scores) and
// weighs a coalition by μ/probability ∝ 1/(s(k−s)). It is a measurement only (bench
// -precision), for models without a Gaussian part.
func regressionShapley(m *udocc.Model, ds *data.Dataset, rows []int, budget func(k int) int, leverage bool) ([][]float64, error) {
	median64, _ := m.Normal()
	d := ds.D
	median := make([]float32, d)
	for j, v := range median64 {
		median[j] = float32(v)
	}
	out := make([][]float64, len(rows))
	for r, row := range rows {
		x := ds.Row(row)
		var active []int
		for j, v := range x {
			if v != median[j] {
				active = append(active, j)
			}
		}
		k := len(active)
		phi := make([]float64, d)
		out[r] = phi
		// The ends: the baseline and the row.
		ends := &data.Dataset{Name: ds.Name, N: 2, D: d, X: append(append([]float32(nil), median...), x...)}
		ev, _, err := m.ScoreDataset(context.Background(), ends)
		if err != nil {
			return nil, err
		}
		base, full := ev[0], ev[1]
		if k == 0 {
			continue
		}
		if k == 1 {
			phi[active[0]] = full - base
			continue
		}
		rng := rand.New(rand.NewPCG(uint64(row), 0xfeed))
		// Size probabilities.
		p := make([]float64, k) // p[s], s = 1..k-1
		var tot float64
		for s := 1; s < k; s++ {
			if leverage {
				p[s] = 1
			} else {
				p[s] = 1 / float64(s*(k-s))
			}
			tot += p[s]
		}
		pairs := max(1, budget(k)/2)
		z := make([][]bool, 0, 2*pairs)
		w := make([]float64, 0, 2*pairs)
		X := make([]float32, 0, 2*pairs*d)
		for t := 0; t < pairs; t++ {
			u, s := rng.Float64()*tot, 1
			for ; s < k-1; s++ {
				if u -= p[s]; u <= 0 {
					break
				}
			}
			in := make([]bool, k)
			for _, i := range rng.Perm(k)[:s] {
				in[i] = true
			}
			out := make([]bool, k)
			for i := range in {
				out[i] = !in[i]
			}
			for _, c := range [][]bool{in, out} {
				size := 0
				for _, b := range c {
					if b {
						size++
					}
				}
				wt := 1.0
				if leverage {
					wt = 1 / float64(size*(k-size))
				}
				z = append(z, c)
				w = append(w, wt)
				at := len(X)
				X = append(X, median...)
				for i, b := range c {
					if b {
						X[at+active[i]] = x[active[i]]
					}
				}
			}
		}
		v, _, err := m.ScoreDataset(context.Background(), &data.Dataset{Name: ds.Name, N: len(z), D: d, X: X})
		if err != nil {
			return nil, err
		}
		A := mat.NewSymDense(k, nil)
		b := mat.NewVecDense(k, nil)
		for i, c := range z {
			y := v[i] - base
			for a := 0; a < k; a++ {
				if !c[a] {
					continue
				}
				b.SetVec(a, b.AtVec(a)+w[i]*y)
				for bb := a; bb < k; bb++ {
					if c[bb] {
						A.SetSym(a, bb, A.At(a, bb)+w[i])
					}
				}
			}
		}
		for a := 0; a < k; a++ { // a trace of ridge, against a feature the samples never split
			A.SetSym(a, a, A.At(a, a)*(1+1e-9)+1e-12)
		}
		var ch mat.Cholesky
		if !ch.Factorize(A) {
			return nil, errSingular
		}
		ones := mat.NewVecDense(k, nil)
		for a := 0; a < k; a++ {
			ones.SetVec(a, 1)
		}
		var ab, a1 mat.VecDense
		if err := ch.SolveVecTo(&ab, b); err != nil {
			return nil, err
		}
		if err := ch.SolveVecTo(&a1, ones); err != nil {
			return nil, err
		}
		lam := (mat.Dot(ones, &ab) - (full - base)) / mat.Dot(ones, &a1)
		for i, j := range active {
			phi[j] = ab.AtVec(i) - lam*a1.AtVec(i)
		}
		if math.IsNaN(lam) {
			return nil, errSingular
		}
	}
	return out, nil
}

var errSingular = errors.New("explain: the sampled coalitions leave the regression singular")

// Package answers sharpens a fit's scores with the review's answers: rows near rows the
// user called anomalies rise, rows near rows the user called normal fall.
//
// The evidence for a row x is the log ratio of its distance to the answered normal rows
// (b) over its distance to the answered anomalies (a), in the training table's
// standardised columns (z-scores; constant columns dropped). A distance is the mean over
// the K nearest answered rows of that kind (all of them where fewer are answered; the
// default K is 1, the nearest):
//
//	e(x) = ln((b + δ) / (a + δ)),
//
// the margin of a k-nearest-neighbour classifier (Cover & Hart 1967): the pull toward
// labelled anomalies and away from labelled normals of Deep SAD's loss (Ruff et al.,
// ICLR 2020, eq. 3), without retraining. δ is the median of those distances over the
// training rows (at most SampleRows of them), so that far rows carry little evidence.
// The sharpened score mixes the two on one scale, their training rows' percentiles F
// (interpolated between 1,025 stored quantiles):
//
//	s'(x) = (1 − β) F_s(s(x)) + β F_e(e(x)),   β = clamp(0.5 + A_e − A_s, 0, 1),
//
// where A_s is the AUC of the scores s over the answered rows (the answered anomalies
// against the answered normal rows) and A_e the evidence's, each answered
// row's evidence read with itself left out: the evidence weighs more where it separates
// the answers better than the scores do, and less where it separates them worse. A fit
// applies it to the scores of its networks fine-tuned on the answers (Deep SAD), and the
// rule was chosen with the fine-tuning on the corpus's 71 tables (bench/sad/results.md;
// bench/answers/results.md measures it on the label-free scores). With no anomaly
// or no normal row among the answers there is no evidence, and the scores stay as they
// were.
package answers

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
)

// Quantiles is how many quantiles of the training rows' scores and evidence a Sharpener
// keeps.
const Quantiles = 1025

// Answer is one answered row: its 0-based row index and whether it is an anomaly.
type Answer struct {
	Row     int
	Anomaly bool
}

// Rule sets the evidence's weight β = Max·m/(m+C) from m, the anomalies answered (C = 0
// makes β = Max whatever m), then weighs it by the answered rows' own check (Check).
type Rule struct {
	Max, C float64
	Check  Check
	// Margin is CheckGate's: the evidence may separate the answered rows worse than the
	// scores by this much.
	Margin float64
	// K is the Sharpener's: how many nearest answered rows of each kind a distance
	// averages (0: 1).
	K int
}

// Check says how the answered rows weigh β: by how well the evidence (each row's read
// with itself left out) and the label-free scores separate the answered anomalies from
// the answered normal rows, their AUCs A_e and A_s (Sharpener.Check).
type Check int

const (
	CheckNone     Check = iota // β as the rule gives it
	CheckGate                  // β = 0 where A_e < A_s − Margin
	CheckWeak                  // β × clamp(2(1 − A_s), 0, 1): the evidence counts where the scores separate little
	CheckContrast              // β × clamp(0.5 + A_e − A_s, 0, 1)
)

// DefaultRule is the rule a fit with answers uses on its fine-tuned scores: the nearest
// answered row of each kind, β = clamp(0.5 + A_e − A_s, 0, 1), chosen with the
// fine-tuning (bench/sad/results.md).
var DefaultRule = Rule{Max: 1, Check: CheckContrast, K: 1}

// Beta is the weight of the evidence with m anomalies answered, before the check.
func (r Rule) Beta(m int) float64 {
	if m == 0 {
		return 0
	}
	if r.C == 0 {
		return r.Max
	}
	return r.Max * float64(m) / (float64(m) + r.C)
}

// Weight is β with m anomalies answered, of which the evidence's AUC over the answered
// rows is ae and the label-free scores' as.
func (r Rule) Weight(m int, ae, as float64) float64 {
	b := r.Beta(m)
	clamp := func(v float64) float64 { return min(max(v, 0), 1) }
	switch r.Check {
	case CheckGate:
		if ae < as-r.Margin {
			return 0
		}
	case CheckWeak:
		return b * clamp(2*(1-as))
	case CheckContrast:
		return b * clamp(0.5+ae-as)
	}
	return b
}

// RowError is an answer that names no row of the table.
type RowError struct {
	Index, Row, N int
}

func (e *RowError) Error() string {
	return fmt.Sprintf("answers: answer %d: row %d is not a row of the table (0..%d)", e.Index, e.Row, e.N-1)
}

// ErrFormat reports a Sharpener whose fields disagree (a damaged model.json).
var ErrFormat = errors.New("answers: malformed")

// Sharpener is the state that sharpens scores: the answered rows, standardised, and the
// training rows' quantiles. It is saved in model.json as "answers".
type Sharpener struct {
	// Columns are the table's columns read (those not constant in training); Mean and SD
	// standardise them.
	Columns []int     `json:"columns"`
	Mean    []float64 `json:"mean"`
	SD      []float64 `json:"sd"`
	// Anomalies and Normals are the answered rows, standardised.
	Anomalies [][]float64 `json:"anomalies"`
	Normals   [][]float64 `json:"normals"`
	// Delta is δ; Beta the evidence's weight β.
	Delta float64 `json:"delta"`
	Beta  float64 `json:"beta"`
	// K is how many nearest answered rows of each kind a distance averages (all of
	// them where there are fewer); 0 reads as 1 (models saved before K).
	K int `json:"k,omitempty"`
	// Scores and Evidence are quantiles of the training rows' scores and evidence,
	// ascending, at equal steps of probability from 0 to 1.
	Scores   []float64 `json:"score_quantiles"`
	Evidence []float64 `json:"evidence_quantiles"`
}

// New is the Sharpener of a table x (n rows of d columns, row-major, no missing value),
// its scores and the answers on its rows, weighed by rule; nil where the answers hold no
// anomaly or no normal row.
func New(x []float32, n, d int, scores []float64, ans []Answer, rule Rule) (*Sharpener, error) {
	s, _, err := Fit(x, n, d, scores, ans, rule)
	return s, err
}

// Fit is New, and the table's sharpened scores (Apply's), nil with the Sharpener.
func Fit(x []float32, n, d int, scores []float64, ans []Answer, rule Rule) (*Sharpener, []float64, error) {
	if len(x) != n*d || len(scores) != n || n < 2 {
		return nil, nil, fmt.Errorf("answers: %d values and %d scores for %d rows of %d columns", len(x), len(scores), n, d)
	}
	var anom, norm []int
	for i, a := range ans {
		if a.Row < 0 || a.Row >= n {
			return nil, nil, &RowError{Index: i, Row: a.Row, N: n}
		}
		if a.Anomaly {
			anom = append(anom, a.Row)
		} else {
			norm = append(norm, a.Row)
		}
	}
	if len(anom) == 0 || len(norm) == 0 {
		return nil, nil, nil
	}
	s := &Sharpener{K: rule.K}
	// Each column's mean and standard deviation, summed row by row (in row order per
	// column, as a column at a time would).
	sum, ss := make([]float64, d), make([]float64, d)
	for i := 0; i < n; i++ {
		for j, v := range x[i*d : (i+1)*d] {
			sum[j] += float64(v)
		}
	}
	for j := range sum {
		sum[j] /= float64(n)
	}
	for i := 0; i < n; i++ {
		for j, v := range x[i*d : (i+1)*d] {
			t := float64(v) - sum[j]
			ss[j] += t * t
		}
	}
	for j, mean := range sum {
		if sd := math.Sqrt(ss[j] / float64(n)); sd > 0 {
			s.Columns, s.Mean, s.SD = append(s.Columns, j), append(s.Mean, mean), append(s.SD, sd)
		}
	}
	if len(s.Columns) == 0 {
		return nil, nil, nil // every column constant: no distance to read
	}
	for _, r := range anom {
		s.Anomalies = append(s.Anomalies, s.standardise(nil, x[r*d:(r+1)*d]))
	}
	for _, r := range norm {
		s.Normals = append(s.Normals, s.standardise(nil, x[r*d:(r+1)*d]))
	}
	// δ and the quantiles read the sample's rows; every row is then sharpened in one
	// pass (Apply).
	sample := stride(n)
	xs := make([]float32, 0, len(sample)*d)
	for _, i := range sample {
		xs = append(xs, x[i*d:(i+1)*d]...)
	}
	a, b := s.nearest(xs, len(sample), d)
	all := slices.Concat(a, b)
	slices.Sort(all)
	s.Delta = max(all[len(all)/2], 1e-9)
	s.Scores, s.Evidence = quantiles(pick(scores, sample)), quantiles(s.evidence(a, b))
	ae, as := s.Check(scores, anom, norm)
	s.Beta = rule.Weight(len(anom), ae, as)
	return s, s.Apply(x, n, d, scores), nil
}

// Check is how well the evidence and the label-free scores separate the answered rows:
// the AUC of each over the answered anomalies (rows anom) against the answered normal
// rows (norm), an answered row's evidence read with itself left out of the answers.
func (s *Sharpener) Check(scores []float64, anom, norm []int) (evidence, score float64) {
	loo := func(set [][]float64, i int) [][]float64 {
		return append(slices.Clone(set[:i]), set[i+1:]...)
	}
	ea := make([]float64, len(anom))
	for i, r := range s.Anomalies {
		ea[i] = s.margin(s.kclosest(r, loo(s.Anomalies, i)), s.kclosest(r, s.Normals))
	}
	en := make([]float64, len(norm))
	for i, r := range s.Normals {
		en[i] = s.margin(s.kclosest(r, s.Anomalies), s.kclosest(r, loo(s.Normals, i)))
	}
	sa, sn := make([]float64, len(anom)), make([]float64, len(norm))
	for i, r := range anom {
		sa[i] = scores[r]
	}
	for i, r := range norm {
		sn[i] = scores[r]
	}
	return auc(ea, en), auc(sa, sn)
}

// auc is the Mann–Whitney AUC of pos against neg, ties counted half; +Inf distances
// (a set of one, left out) read as no evidence either way.
func auc(pos, neg []float64) float64 {
	var w float64
	for _, p := range pos {
		for _, q := range neg {
			switch {
			case p > q:
				w++
			case p == q:
				w += 0.5
			}
		}
	}
	return w / float64(len(pos)*len(neg))
}

// Apply is the sharpened scores of x's rows (n rows of d columns, the training table's),
// whose label-free scores are scores.
func (s *Sharpener) Apply(x []float32, n, d int, scores []float64) []float64 {
	out := make([]float64, n)
	s.rows(n, func(lo, hi int, z []float64) {
		for i := lo; i < hi; i++ {
			z = s.standardise(z, x[i*d:(i+1)*d])
			e := s.margin(s.kclosest(z, s.Anomalies), s.kclosest(z, s.Normals))
			out[i] = mix(cdf(s.Scores, scores[i]), cdf(s.Evidence, e), s.Beta)
		}
	})
	return out
}

// Percentiles are F_s of the scores and F_e of the rows' evidence.
func (s *Sharpener) Percentiles(x []float32, n, d int, scores []float64) (ps, pe []float64) {
	return s.percentiles(scores, s.evidence(s.nearest(x, n, d)))
}

// percentiles are F_s of scores and F_e of the evidence e, row by row.
func (s *Sharpener) percentiles(scores, e []float64) (ps, pe []float64) {
	ps, pe = make([]float64, len(scores)), make([]float64, len(scores))
	for i := range ps {
		ps[i], pe[i] = cdf(s.Scores, scores[i]), cdf(s.Evidence, e[i])
	}
	return ps, pe
}

// Mix is (1 − beta) ps + beta pe.
func Mix(ps, pe []float64, beta float64) []float64 {
	out := make([]float64, len(ps))
	for i := range out {
		out[i] = mix(ps[i], pe[i], beta)
	}
	return out
}

// mix is one row's sharpened score: (1 − β)·F_s + β·F_e.
func mix(ps, pe, beta float64) float64 {
	return (1-beta)*ps + beta*pe
}

// standardise is row's kept columns as z-scores, written into z (a new slice where z is
// nil).
func (s *Sharpener) standardise(z []float64, row []float32) []float64 {
	if z == nil {
		z = make([]float64, len(s.Columns))
	}
	for c, j := range s.Columns {
		z[c] = (float64(row[j]) - s.Mean[c]) / s.SD[c]
	}
	return z
}

// nearest is each row's distance to the answered anomalies (a) and normal rows (b)
// (kclosest's).
func (s *Sharpener) nearest(x []float32, n, d int) (a, b []float64) {
	a, b = make([]float64, n), make([]float64, n)
	s.rows(n, func(lo, hi int, z []float64) {
		for i := lo; i < hi; i++ {
			z = s.standardise(z, x[i*d:(i+1)*d])
			a[i], b[i] = s.kclosest(z, s.Anomalies), s.kclosest(z, s.Normals)
		}
	})
	return a, b
}

// rows calls f on n rows in blocks [lo, hi) across the cores, each with its own buffer
// z of a standardised row. Each row's result is its own, so none depends on the blocks.
func (s *Sharpener) rows(n int, f func(lo, hi int, z []float64)) {
	const block = 4096
	if n <= block { // a request's few rows: no goroutines to start
		f(0, n, make([]float64, len(s.Columns)))
		return
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), (n+block-1)/block) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			z := make([]float64, len(s.Columns))
			for lo := range next {
				f(lo, min(lo+block, n), z)
			}
		}()
	}
	for lo := 0; lo < n; lo += block {
		next <- lo
	}
	close(next)
	wg.Wait()
}

// neighbours is how many of a set of m answered rows a distance averages: K, at most
// m, at least 1.
func (s *Sharpener) neighbours(m int) int {
	return max(1, min(s.K, m))
}

// kclosest is the mean Euclidean distance from z to its nearest rows of set, as many
// as neighbours says; +Inf for an empty set.
func (s *Sharpener) kclosest(z []float64, set [][]float64) float64 {
	k := s.neighbours(len(set))
	var buf [8]float64
	near := buf[:0] // the k least squared distances, ascending
	if k > len(buf) {
		near = make([]float64, 0, k)
	}
	for range k {
		near = append(near, math.Inf(1)) // an empty set's one distance stays +Inf
	}
	var dist [64]float64
	for lo := 0; lo < len(set); lo += len(dist) {
		chunk := set[lo:min(lo+len(dist), len(set))]
		sqDists(z, chunk, dist[:len(chunk)])
		for _, d2 := range dist[:len(chunk)] {
			if d2 >= near[k-1] {
				continue
			}
			i := k - 1
			for ; i > 0 && near[i-1] > d2; i-- {
				near[i] = near[i-1]
			}
			near[i] = d2
		}
	}
	var sum float64
	for _, d2 := range near {
		sum += math.Sqrt(d2)
	}
	return sum / float64(k)
}

// sqDists writes the squared Euclidean distance from z to each row of set into out.
// Four rows at a time: their sums are independent, so the adds overlap, and each row's
// sum still runs over the columns in order (the same bits as one row at a time).
func sqDists(z []float64, set [][]float64, out []float64) {
	j := 0
	for ; j+4 <= len(set); j += 4 {
		r0, r1, r2, r3 := set[j][:len(z)], set[j+1][:len(z)], set[j+2][:len(z)], set[j+3][:len(z)]
		var d0, d1, d2, d3 float64
		for c, v := range z {
			t0, t1, t2, t3 := v-r0[c], v-r1[c], v-r2[c], v-r3[c]
			d0 += t0 * t0
			d1 += t1 * t1
			d2 += t2 * t2
			d3 += t3 * t3
		}
		out[j], out[j+1], out[j+2], out[j+3] = d0, d1, d2, d3
	}
	for ; j < len(set); j++ {
		r := set[j][:len(z)]
		var d float64
		for c, v := range z {
			t := v - r[c]
			d += t * t
		}
		out[j] = d
	}
}

// evidence is e = ln((b + δ) / (a + δ)) row by row.
func (s *Sharpener) evidence(a, b []float64) []float64 {
	e := make([]float64, len(a))
	for i := range e {
		e[i] = s.margin(a[i], b[i])
	}
	return e
}

// margin is e = ln((b + δ) / (a + δ)) of a row at distance a from the answered
// anomalies and b from the answered normal rows.
func (s *Sharpener) margin(a, b float64) float64 {
	return math.Log((b + s.Delta) / (a + s.Delta))
}

// SampleRows are the most training rows whose distances and scores δ and the quantiles
// are read from: rows at an even stride beyond it.
const SampleRows = 1 << 16

// stride is the rows, at most SampleRows of n at an even stride, that δ and the
// quantiles read.
func stride(n int) []int {
	k := min(n, SampleRows)
	out := make([]int, k)
	for i := range out {
		out[i] = int(int64(i) * int64(n) / int64(k))
	}
	return out
}

// pick is v at rows.
func pick(v []float64, rows []int) []float64 {
	out := make([]float64, len(rows))
	for i, r := range rows {
		out[i] = v[r]
	}
	return out
}

// quantiles are min(len(v), Quantiles) quantiles of v, ascending, at equal steps of
// probability from 0 (the least) to 1 (the greatest).
func quantiles(v []float64) []float64 {
	sorted := slices.Clone(v)
	slices.Sort(sorted)
	k := min(len(sorted), Quantiles)
	q := make([]float64, k)
	for j := range q {
		q[j] = sorted[int(math.Round(float64(j)*float64(len(sorted)-1)/float64(k-1)))]
	}
	return q
}

// cdf is F(v) from ascending quantiles q at probabilities j/(len(q)−1): linear between
// them, the middle of a run of equal quantiles at one of them, 0 below and 1 above.
func cdf(q []float64, v float64) float64 {
	k := len(q)
	step := 1 / float64(k-1)
	i := sort.SearchFloat64s(q, v) // first q[i] >= v
	switch {
	case i == k:
		return 1
	case q[i] == v:
		last := i
		for last+1 < k && q[last+1] == v {
			last++
		}
		return float64(i+last) / 2 * step
	case i == 0:
		return 0
	}
	return (float64(i-1) + (v-q[i-1])/(q[i]-q[i-1])) * step
}

// Validate checks that the fields agree, for a table of d columns.
func (s *Sharpener) Validate(d int) error {
	k := len(s.Columns)
	switch {
	case k == 0 || len(s.Mean) != k || len(s.SD) != k:
		return fmt.Errorf("%w: %d columns, %d means, %d spreads", ErrFormat, k, len(s.Mean), len(s.SD))
	case len(s.Anomalies) == 0 || len(s.Normals) == 0:
		return fmt.Errorf("%w: %d anomalies and %d normal rows: want both", ErrFormat, len(s.Anomalies), len(s.Normals))
	case !(s.Delta > 0) || math.IsInf(s.Delta, 0) || !(s.Beta >= 0 && s.Beta <= 1) || s.K < 0:
		return fmt.Errorf("%w: delta %v, beta %v, k %d", ErrFormat, s.Delta, s.Beta, s.K)
	case len(s.Scores) < 2 || len(s.Evidence) < 2:
		return fmt.Errorf("%w: %d score and %d evidence quantiles: want 2 or more", ErrFormat, len(s.Scores), len(s.Evidence))
	}
	for c, j := range s.Columns {
		if j < 0 || j >= d || c > 0 && j <= s.Columns[c-1] {
			return fmt.Errorf("%w: columns[%d] = %d: want ascending in 0..%d", ErrFormat, c, j, d-1)
		}
		if !finite(s.Mean[c]) || !(s.SD[c] > 0) || !finite(s.SD[c]) {
			return fmt.Errorf("%w: column %d: mean %v, sd %v", ErrFormat, j, s.Mean[c], s.SD[c])
		}
	}
	for _, set := range [][][]float64{s.Anomalies, s.Normals} {
		for i, r := range set {
			if len(r) != k {
				return fmt.Errorf("%w: answered row %d has %d values for %d columns", ErrFormat, i, len(r), k)
			}
			for _, v := range r {
				if !finite(v) {
					return fmt.Errorf("%w: answered row %d holds %v", ErrFormat, i, v)
				}
			}
		}
	}
	for _, q := range [][]float64{s.Scores, s.Evidence} {
		for i, v := range q {
			if !finite(v) || i > 0 && v < q[i-1] {
				return fmt.Errorf("%w: quantile %d is %v: want finite and ascending", ErrFormat, i, v)
			}
		}
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

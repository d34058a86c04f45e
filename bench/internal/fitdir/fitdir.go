// Package fitdir reads what the studies need of a `udocc fit` output folder: the rows'
// scores and true labels (scores.csv) and the label-free count beside them
// (summary.json). bench/review and bench/answers read the corpus's cached fits with it.
package fitdir

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"

	"github.com/udocc/udocc/internal/answers"
	"github.com/udocc/udocc/internal/review"
	"github.com/udocc/udocc/metrics"
)

// Fit is one fit's folder as the studies read it.
type Fit struct {
	// Scores and Y are every row's score and true label (true_label 1), in row order.
	Scores []float64
	Y      []bool
	// Prior is the label-free count: the share flagged and its 80 % interval.
	Prior review.Prior
	// ROCAUC and Flagged are summary.json's.
	ROCAUC  float64
	Flagged int
}

// Read reads the fit in dir. scores.csv must have a score and a true_label column.
func Read(dir string) (*Fit, error) {
	var sum struct {
		SelectedRatio    float64    `json:"selected_ratio"`
		SelectedInterval [2]float64 `json:"selected_ratio_interval"`
		ROCAUC           float64    `json:"rocauc"`
		Flagged          int        `json:"flagged"`
	}
	path := filepath.Join(dir, "summary.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	fit := &Fit{ROCAUC: sum.ROCAUC, Flagged: sum.Flagged,
		Prior: review.Prior{Share: sum.SelectedRatio, Low: sum.SelectedInterval[0], High: sum.SelectedInterval[1]}}
	f, err := os.Open(filepath.Join(dir, "scores.csv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	si, li := slices.Index(head, "score"), slices.Index(head, "true_label")
	if si < 0 || li < 0 {
		return nil, fmt.Errorf("%s: no score or true_label column", f.Name())
	}
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			return fit, nil
		}
		if err != nil {
			return nil, err
		}
		s, err := strconv.ParseFloat(rec[si], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: score: %w", f.Name(), line, err)
		}
		fit.Scores = append(fit.Scores, s)
		fit.Y = append(fit.Y, rec[li] == "1")
	}
}

// Simulate is the answers to two rounds of 20 as `udocc review` asks them, and which
// rows were asked.
func Simulate(scores []float64, y []bool, prior review.Prior, seed uint64) ([]answers.Answer, []bool) {
	n := len(scores)
	ranks := review.Ranks(scores)
	rowOf := make([]int, n)
	for i, r := range ranks {
		rowOf[r-1] = i
	}
	var rv []review.Answer
	var out []answers.Answer
	asked := make([]bool, n)
	for round := 1; round <= 2; round++ {
		rs, err := review.Next(n, rv, nil, 20, seed, prior)
		if err != nil {
			panic(err) // review.Next refuses only bad arguments, which these are not
		}
		for _, r := range rs {
			i := rowOf[r-1]
			rv = append(rv, review.Answer{Rank: r, Anomaly: y[i], Round: round})
			out = append(out, answers.Answer{Row: i, Anomaly: y[i]})
			asked[i] = true
		}
	}
	return out, asked
}

// AUCs are the ROCAUC and PRAUC of s against y over the rows keep marks; NaN where
// they are undefined.
// (metrics.AUCs); NaN where those rows hold one class.
func AUCs(s []float64, y, keep []bool) (roc, pr float64) {
	var sc []float64
	var l []int
	for i := range s {
		if keep[i] {
			sc, l = append(sc, s[i]), append(l, b2i(y[i]))
		}
	}
	roc, pr, err := metrics.AUCs(l, sc)
	if err != nil {
		return math.NaN(), math.NaN()
	}
	return roc, pr
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
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

// LoadPyod reads a table's PyOD scores (bench/answers/pyod_scores.py): each detector's
// column of n rows (all, every column but y) and the columns by name. A missing file is
// logged and read as none.
func LoadPyod(path string, n int) (all [][]float64, named map[string][]float64) {
	cols, head, err := readCSV(path)
	if err != nil {
		log.Printf("%s: no PyOD scores (%v)", path, err)
		return nil, nil
	}
	if len(cols[0]) != n {
		log.Fatalf("%s: %d rows, want %d", path, len(cols[0]), n)
	}
	var out [][]float64
	for j := range head {
		if head[j] != "y" {
			out = append(out, cols[j])
		}
	}
	named = map[string][]float64{}
	for j, h := range head {
		named[h] = cols[j]
	}
	return out, named
}

func readCSV(path string) ([][]float64, []string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	head, err := r.Read()
	if err != nil {
		return nil, nil, err
	}
	cols := make([][]float64, len(head))
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		for j, s := range rec {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				v = math.NaN()
			}
			cols[j] = append(cols[j], v)
		}
	}
	return cols, head, nil
}

// Choose is the studies' held-out choice among candidates 0..n-1, candidate 0 the
// label-free fit: the one of the best mean ΔROCAUC + ΔPRAUC over label-free, per group
// then over the groups other than held ("": none held out), among those that leave no
// table of those groups worse than label-free by more than 0.02 ROCAUC (candidate 0
// always does). group[i] is table i's source group, roc[i][c] and pr[i][c] its figures
// under candidate c (means over seeds); NaN figures are left out of the means.
func Choose(group []string, roc, pr [][]float64, n int, held string) int {
	var groups []string
	for _, g := range group {
		if g != held && !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
	}
	best, bestV := 0, math.Inf(-1)
	for c := range n {
		safe := true
		for i := range group {
			if group[i] != held && roc[i][c] < roc[i][0]-0.02 {
				safe = false
			}
		}
		if !safe {
			continue
		}
		var v float64
		for _, g := range groups {
			var s float64
			k := 0
			for i := range group {
				if d := roc[i][c] - roc[i][0] + pr[i][c] - pr[i][0]; group[i] == g && !math.IsNaN(d) {
					s += d
					k++
				}
			}
			if k > 0 {
				v += s / float64(k)
			}
		}
		if v > bestV+1e-12 {
			best, bestV = c, v
		}
	}
	return best
}

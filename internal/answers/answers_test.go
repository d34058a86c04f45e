package answers

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// twoClusters is n rows of 3 columns: normal rows near the origin, and every tenth row
// an anomaly near (4, 4, 4). Its label-free scores are noise that ranks nothing, so
// that only the answers can.
func twoClusters(n int) (x []float32, scores []float64, y []bool) {
	rng := rand.New(rand.NewPCG(7, 1))
	x, scores, y = make([]float32, 3*n), make([]float64, n), make([]bool, n)
	for i := 0; i < n; i++ {
		y[i] = i%10 == 9
		for j := 0; j < 3; j++ {
			v := rng.NormFloat64() * 0.5
			if y[i] {
				v += 4
			}
			x[3*i+j] = float32(v)
		}
		scores[i] = rng.Float64()
	}
	return x, scores, y
}

// auc is the ROCAUC of s against y.
func rocOf(s []float64, y []bool) float64 {
	var pos, neg []float64
	for i, v := range s {
		if y[i] {
			pos = append(pos, v)
		} else {
			neg = append(neg, v)
		}
	}
	return auc(pos, neg)
}

func TestSharpenRanksAnswersNeighbours(t *testing.T) {
	const n = 400
	x, scores, y := twoClusters(n)
	ans := []Answer{{Row: 9, Anomaly: true}, {Row: 19, Anomaly: true}, {Row: 0}, {Row: 1}, {Row: 2}}
	d, err := New(x, n, 3, scores, ans, DefaultRule)
	if err != nil || d == nil {
		t.Fatalf("New: %v, %v", d, err)
	}
	ae, as := d.Check(scores, []int{9, 19}, []int{0, 1, 2})
	if want := DefaultRule.Weight(2, ae, as); d.Beta != want || !(want > 0) {
		t.Errorf("beta %v, want %v (the scores' AUC over the answered rows %v)", d.Beta, want, as)
	}
	s, err := New(x, n, 3, scores, ans, Rule{Max: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	before, after := rocOf(scores, y), rocOf(s.Apply(x, n, 3, scores), y)
	if !(after > 0.95 && before < 0.7) {
		t.Errorf("ROCAUC %.3f label-free, %.3f sharpened: want the answers to rank the anomalies' cluster first", before, after)
	}
	// A row scores the same alone as among the others, and as Fit scored it.
	all := s.Apply(x, n, 3, scores)
	if _, fitted, err := Fit(x, n, 3, scores, ans, Rule{Max: 0.9}); err != nil || !slices.Equal(fitted, all) {
		t.Errorf("Fit's sharpened scores differ from Apply's (%v)", err)
	}
	for _, i := range []int{0, 9, 123} {
		one := s.Apply(x[3*i:3*i+3], 1, 3, scores[i:i+1])
		if one[0] != all[i] {
			t.Errorf("row %d: %v alone, %v among the rows", i, one[0], all[i])
		}
	}
	// What model.json keeps scores the same.
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Sharpener
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if err := back.Validate(3); err != nil {
		t.Fatal(err)
	}
	if got := back.Apply(x, n, 3, scores); !slices.Equal(got, all) {
		t.Error("the sharpener read back from JSON scores differently")
	}
}

func TestNoEvidence(t *testing.T) {
	const n = 50
	x, scores, _ := twoClusters(n)
	for _, ans := range [][]Answer{nil, {{Row: 1}, {Row: 2}}, {{Row: 9, Anomaly: true}}} {
		s, err := New(x, n, 3, scores, ans, DefaultRule)
		if s != nil || err != nil {
			t.Errorf("answers %v: %v, %v; want no sharpener (an anomaly and a normal row are needed)", ans, s, err)
		}
	}
	var re *RowError
	if _, err := New(x, n, 3, scores, []Answer{{Row: 1}, {Row: n, Anomaly: true}}, DefaultRule); !errors.As(err, &re) || re.Index != 1 || re.Row != n {
		t.Errorf("a row past the table: %v, want a RowError naming answer 1, row %d", err, n)
	}
	if DefaultRule.Beta(0) != 0 {
		t.Error("no anomaly answered must weigh the evidence 0")
	}
}

func TestRuleGate(t *testing.T) {
	// Every row from one Gaussian; the label-free scores know rows 0 to 3 are
	// anomalies, which the columns do not show. Left out in turn, an answered anomaly is
	// no nearer the other anomalies than the normal rows: the evidence separates the
	// answered rows worse than the scores, and a gated rule leaves the scores alone.
	rng := rand.New(rand.NewPCG(3, 1))
	const n = 200
	x, scores := make([]float32, 2*n), make([]float64, n)
	for i := 0; i < n; i++ {
		x[2*i], x[2*i+1] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
		scores[i] = rng.Float64()
		if i < 4 {
			scores[i] += 10
		}
	}
	ans := []Answer{{Row: 0, Anomaly: true}, {Row: 1, Anomaly: true}, {Row: 2, Anomaly: true}, {Row: 3, Anomaly: true},
		{Row: 10}, {Row: 11}, {Row: 12}, {Row: 13}, {Row: 14}, {Row: 15}}
	open, err := New(x, n, 2, scores, ans, Rule{Max: 0.5, C: 1})
	if err != nil {
		t.Fatal(err)
	}
	gated, err := New(x, n, 2, scores, ans, Rule{Max: 0.5, C: 1, Check: CheckGate})
	if err != nil {
		t.Fatal(err)
	}
	ev, sc := gated.Check(scores, []int{0, 1, 2, 3}, []int{10, 11, 12, 13, 14, 15})
	if !(ev < sc) || sc != 1 {
		t.Errorf("check: evidence %v, scores %v; want the scores to separate the answered rows, the evidence less", ev, sc)
	}
	if open.Beta != 0.4 || gated.Beta != 0 {
		t.Errorf("beta %v ungated, %v gated; want 0.4 and 0", open.Beta, gated.Beta)
	}
	if got := gated.Apply(x, n, 2, scores); !slices.Equal(Pct(got), Pct(scores)) {
		t.Error("a closed gate changed the ranking")
	}
}

func TestCDF(t *testing.T) {
	q := []float64{1, 2, 2, 2, 5}
	for _, c := range []struct{ v, want float64 }{
		{0, 0}, {1, 0}, {1.5, 0.125}, {2, 0.5}, {3.5, 0.875}, {5, 1}, {6, 1},
	} {
		if got := cdf(q, c.v); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("cdf(%v) = %v, want %v", c.v, got, c.want)
		}
	}
	qs := quantiles([]float64{5, 1, 3})
	if !slices.Equal(qs, []float64{1, 3, 5}) {
		t.Errorf("quantiles of 3 values: %v", qs)
	}
	big := make([]float64, 10_000)
	for i := range big {
		big[i] = float64(i)
	}
	if qs := quantiles(big); len(qs) != Quantiles || qs[0] != 0 || qs[len(qs)-1] != 9999 {
		t.Errorf("%d quantiles from %v to %v", len(qs), qs[0], qs[len(qs)-1])
	}
}

// TestNeighbours checks the distance to a set: the mean over its K nearest rows, all of
// them where the set is smaller, the nearest where K is 0 or 1 (a model saved before K
// reads as such), and +Inf for an empty set.
func TestNeighbours(t *testing.T) {
	z := []float64{0, 0}
	set := [][]float64{{5, 0}, {0, 1}, {3, 4}, {0, 2}} // distances 5, 1, 5, 2
	for _, c := range []struct {
		k    int
		want float64
	}{{0, 1}, {1, 1}, {2, 1.5}, {3, 8.0 / 3}, {4, 13.0 / 4}, {9, 13.0 / 4}} {
		s := &Sharpener{K: c.k}
		if got := s.kclosest(z, set); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("K %d: %v, want %v", c.k, got, c.want)
		}
	}
	if got := (&Sharpener{K: 3}).kclosest(z, nil); !math.IsInf(got, 1) {
		t.Errorf("empty set: %v, want +Inf", got)
	}
	// A Sharpener saved without "k" reads the nearest row; one saved with it keeps it.
	const n = 200
	x, scores, _ := twoClusters(n)
	ans := []Answer{{Row: 9, Anomaly: true}, {Row: 19, Anomaly: true}, {Row: 29, Anomaly: true}, {Row: 0}, {Row: 1}, {Row: 2}}
	one, err := New(x, n, 3, scores, ans, Rule{Max: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(one)
	var old Sharpener
	if err := json.Unmarshal(b, &old); err != nil || old.K != 0 || bytes.Contains(b, []byte(`"k":`)) {
		t.Fatalf("a 1-nearest Sharpener saves no k: %s", b)
	}
	if !slices.Equal(old.Apply(x, n, 3, scores), one.Apply(x, n, 3, scores)) {
		t.Error("a reloaded 1-nearest Sharpener scores differently")
	}
	three, err := New(x, n, 3, scores, ans, Rule{Max: 0.5, K: 3})
	if err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(three)
	var back Sharpener
	if err := json.Unmarshal(b, &back); err != nil || back.K != 3 {
		t.Fatalf("K %d after a round trip, want 3 (%v)", back.K, err)
	}
	if slices.Equal(three.Apply(x, n, 3, scores), one.Apply(x, n, 3, scores)) {
		t.Error("K 3 and K 1 give the same scores")
	}
}

func TestValidate(t *testing.T) {
	const n = 60
	x, scores, _ := twoClusters(n)
	good, err := New(x, n, 3, scores, []Answer{{Row: 9, Anomaly: true}, {Row: 0}}, DefaultRule)
	if err != nil {
		t.Fatal(err)
	}
	for name, damage := range map[string]func(s *Sharpener){
		"column past the table": func(s *Sharpener) { s.Columns[0] = 3 },
		"zero spread":           func(s *Sharpener) { s.SD[1] = 0 },
		"short answered row":    func(s *Sharpener) { s.Normals[0] = s.Normals[0][:2] },
		"no anomaly":            func(s *Sharpener) { s.Anomalies = nil },
		"beta above 1":          func(s *Sharpener) { s.Beta = 1.5 },
		"quantiles descending":  func(s *Sharpener) { s.Scores[0] = s.Scores[1] + 1 },
		"NaN delta":             func(s *Sharpener) { s.Delta = math.NaN() },
		"negative k":            func(s *Sharpener) { s.K = -1 },
	} {
		b, _ := json.Marshal(good)
		var s Sharpener
		json.Unmarshal(b, &s)
		damage(&s)
		if err := s.Validate(3); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v, want ErrFormat", name, err)
		}
	}
	if err := good.Validate(3); err != nil {
		t.Error(err)
	}
}

// Pct is the rank percentile of each value, ties sharing their mean rank.
func Pct(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case v[a] < v[b]:
			return -1
		case v[a] > v[b]:
			return 1
		}
		return 0
	})
	out := make([]float64, len(v))
	for p := 0; p < len(idx); {
		q := p
		for q+1 < len(idx) && v[idx[q+1]] == v[idx[p]] {
			q++
		}
		for t := p; t <= q; t++ {
			out[idx[t]] = float64(p+q+2) / 2 / float64(len(v))
		}
		p = q + 1
	}
	return out
}

func TestRuleWeight(t *testing.T) {
	weak := Rule{Max: 0.8, Check: CheckWeak}
	for _, c := range []struct {
		m      int
		ae, as float64
		want   float64
	}{
		{0, 1, 0.2, 0}, // no anomaly answered: no evidence
		{3, 0.9, 1, 0}, // the scores rank every answered anomaly first
		{3, 0.9, 0.75, 0.4},
		{3, 0.1, 0.5, 0.8}, // scores no better than chance: the whole weight
		{3, 0.1, 0.2, 0.8},
	} {
		if got := weak.Weight(c.m, c.ae, c.as); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("weak: m %d, A_e %v, A_s %v: %v, want %v", c.m, c.ae, c.as, got, c.want)
		}
	}
	contrast := Rule{Max: 1, Check: CheckContrast}
	if got := contrast.Weight(2, 0.9, 0.6); math.Abs(got-0.8) > 1e-12 {
		t.Errorf("contrast: %v, want 0.8", got)
	}
	gate := Rule{Max: 0.5, Check: CheckGate, Margin: 0.1}
	if gate.Weight(2, 0.7, 0.85) != 0 || gate.Weight(2, 0.8, 0.85) != 0.5 {
		t.Error("gate: want 0 below A_s − margin, the weight above")
	}
	if (Rule{Max: 0.6, C: 2}).Beta(2) != 0.3 {
		t.Error("Max·m/(m+C)")
	}
}

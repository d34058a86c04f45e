package review

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// simTable is a table's labels in rank order (labels[i]: rank i+1), drawn from a
// decreasing curve so that the top ranks hold most anomalies.
func simTable(n int, share float64, seed uint64) []bool {
	rng := rand.New(rand.NewPCG(seed, 1))
	y := make([]bool, n)
	// p(i) = min(1, a / (i/n)^0.8) scaled to the share, a rough detector.
	w := make([]float64, n)
	s := 0.0
	for i := range w {
		w[i] = math.Pow((float64(i)+1)/float64(n), -0.8)
		s += w[i]
	}
	for i := range y {
		y[i] = rng.Float64() < min(1, w[i]*share*float64(n)/s)
	}
	return y
}

// review runs rounds of k answers through Next, answering from labels.
func review(t *testing.T, labels []bool, rounds, k int, seed uint64, prior Prior) []Answer {
	t.Helper()
	var ans []Answer
	for round := 1; round <= rounds; round++ {
		ranks, err := Next(len(labels), ans, nil, k, seed, prior)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range ranks {
			ans = append(ans, Answer{Rank: r, Anomaly: labels[r-1], Round: round})
		}
	}
	return ans
}

func TestNextDeterministic(t *testing.T) {
	labels := simTable(3000, 0.03, 1)
	a := review(t, labels, 3, 20, 7, Prior{})
	b := review(t, labels, 3, 20, 7, Prior{})
	if !slices.Equal(a, b) {
		t.Fatalf("same seed and answers gave different rows:\n%v\n%v", a, b)
	}
	c := review(t, labels, 3, 20, 8, Prior{})
	if slices.Equal(a, c) {
		t.Fatalf("seeds 7 and 8 gave the same rows")
	}
	e1, err := Calibrate(3000, a, Prior{Share: 0.04, Low: 0.01, High: 0.3}, Target{})
	if err != nil {
		t.Fatal(err)
	}
	e2, _ := Calibrate(3000, a, Prior{Share: 0.04, Low: 0.01, High: 0.3}, Target{})
	if e1 != e2 {
		t.Fatalf("same answers gave different estimates: %+v %+v", e1, e2)
	}
}

func TestNextNeverRepeats(t *testing.T) {
	for _, md := range []Method{{}, {Neyman: true}} {
		testNeverRepeats(t, md)
	}
}

func testNeverRepeats(t *testing.T, md Method) {
	for _, n := range []int{2, 7, 50, 214, 5000} {
		labels := simTable(n, 0.05, uint64(n))
		var ans []Answer
		seen := map[int]bool{}
		pending := []int{1, n} // asked earlier, not answered
		for _, r := range pending {
			seen[r] = true
		}
		for round := 1; round <= 10; round++ {
			ranks, err := md.Next(n, ans, pending, 20, 3, Prior{})
			if err != nil {
				t.Fatal(err)
			}
			left := n - len(seen)
			if len(ranks) != min(20, left) {
				t.Fatalf("n %d round %d: %d ranks, want %d", n, round, len(ranks), min(20, left))
			}
			for _, r := range ranks {
				if r < 1 || r > n {
					t.Fatalf("n %d: rank %d out of range", n, r)
				}
				if seen[r] {
					t.Fatalf("n %d round %d: rank %d asked again", n, round, r)
				}
				seen[r] = true
				ans = append(ans, Answer{Rank: r, Anomaly: labels[r-1], Round: round})
			}
		}
	}
}

// TestNextFirstRoundOnePerStratum: with the prototype's first pass (Method.FirstPass 1),
// the first round's first rows go one to each stratum.
func TestNextFirstRoundOnePerStratum(t *testing.T) {
	n := 10000
	st := strata(n)
	ranks, err := Method{FirstPass: 1}.Next(n, nil, nil, len(st), 0, Prior{})
	if err != nil {
		t.Fatal(err)
	}
	got := make([]int, len(st))
	for _, r := range ranks {
		got[stratumOf(st, r)]++
	}
	for h, c := range got {
		if c != 1 {
			t.Fatalf("stratum %d [%d, %d] got %d rows in the first round, want 1", h, st[h].lo+1, st[h].hi, c)
		}
	}
}

func TestStrata(t *testing.T) {
	// n = 214: round(0.214) → 1, round(0.428) → 1, 1, 2, 4, 11, 21, 43, 107, 214.
	want := []stratum{{0, 1}, {1, 2}, {2, 4}, {4, 11}, {11, 21}, {21, 43}, {43, 107}, {107, 214}}
	if got := strata(214); !slices.Equal(got, want) {
		t.Fatalf("strata(214) = %v, want %v", got, want)
	}
	// The prototype's: round(0.214) → 1, round(0.642) → 1, 2, 6, 21, 64, 214.
	want = []stratum{{0, 1}, {1, 2}, {2, 6}, {6, 21}, {21, 64}, {64, 214}}
	if got := strataAt(214, PrototypeStrata()); !slices.Equal(got, want) {
		t.Fatalf("the prototype's strata of 214 rows = %v, want %v", got, want)
	}
	for _, n := range []int{2, 3, 999, 100000} {
		st := strata(n)
		for r := 1; r <= n; r += 1 + n/1000 {
			h := stratumOf(st, r)
			if !(st[h].lo < r && r <= st[h].hi) {
				t.Fatalf("n %d: rank %d put in stratum %v", n, r, st[h])
			}
		}
	}
}

func TestCalibrateProperties(t *testing.T) {
	for _, n := range []int{20, 214, 3000} {
		labels := simTable(n, 0.05, 2)
		for seed := range uint64(5) {
			for _, rounds := range []int{1, 2, 4} {
				ans := review(t, labels, rounds, 10, seed, Prior{})
				e, err := Calibrate(n, ans, Prior{Share: 0.04, Low: 0.004, High: 0.15}, Target{})
				if err != nil {
					t.Fatal(err)
				}
				anom := 0
				known := map[int]bool{}
				for _, a := range ans {
					if a.Anomaly && !known[a.Rank] {
						anom++
					}
					known[a.Rank] = true
				}
				if e.Anomalies != anom || e.Answers != len(known) {
					t.Fatalf("n %d: Anomalies %d Answers %d, want %d %d", n, e.Anomalies, e.Answers, anom, len(known))
				}
				if e.Count < float64(anom) {
					t.Fatalf("n %d: count %g below the %d anomalies answered", n, e.Count, anom)
				}
				if !(e.Low <= e.Share && e.Share <= e.High) {
					t.Fatalf("n %d: share %g outside its interval [%g, %g]", n, e.Share, e.Low, e.High)
				}
				if e.Share != e.Count/float64(n) || e.Cut < 1 || e.Cut > n {
					t.Fatalf("n %d: share %g count %g cut %d", n, e.Share, e.Count, e.Cut)
				}
			}
		}
	}
}

func TestCalibrateEveryRowAnswered(t *testing.T) {
	n := 300
	labels := simTable(n, 0.1, 4)
	var ans []Answer
	T := 0
	for r := 1; r <= n; r++ {
		ans = append(ans, Answer{Rank: r, Anomaly: labels[r-1], Round: 1 + r%3})
		if labels[r-1] {
			T++
		}
	}
	e, err := Calibrate(n, ans, Prior{}, Target{})
	if err != nil {
		t.Fatal(err)
	}
	if e.Count != float64(T) || e.Low != e.Share || e.High != e.Share {
		t.Fatalf("every row answered: count %g [%g, %g], want exactly %d", e.Count, e.Low*float64(n), e.High*float64(n), T)
	}
	// The cut is then the best F1 over the candidate cuts, measured exactly.
	best := 0.0
	tp := 0
	for c := 1; c <= n; c++ {
		if labels[c-1] {
			tp++
		}
		best = max(best, 2*float64(tp)/float64(c+T))
	}
	if math.Abs(e.F1-best) > 1e-9 {
		t.Fatalf("every row answered: F1 of the cut %g, best %g", e.F1, best)
	}
}

// TestUserRowsDoNotBias: anomalies the user adds outside the design (Round 0) raise the
// count by at most their number: they are known rows, not evidence about their stratum's
// rate. Read as design answers, the same rows would be extrapolated to the whole stratum.
func TestUserRowsDoNotBias(t *testing.T) {
	n := 20000
	labels := simTable(n, 0.01, 5)
	ans := review(t, labels, 2, 20, 1, Prior{})
	base, err := Calibrate(n, ans, Prior{}, Target{})
	if err != nil {
		t.Fatal(err)
	}
	// The user adds 10 anomalies they found in the bottom stratum.
	known := map[int]bool{}
	for _, a := range ans {
		known[a.Rank] = true
	}
	user, design := slices.Clone(ans), slices.Clone(ans)
	added := 0
	for r := n; added < 10; r -= 37 {
		if known[r] {
			continue
		}
		user = append(user, Answer{Rank: r, Anomaly: true, Round: 0})
		design = append(design, Answer{Rank: r, Anomaly: true, Round: 3})
		added++
	}
	withUser, err := Calibrate(n, user, Prior{}, Target{})
	if err != nil {
		t.Fatal(err)
	}
	// At each grid point the count moves by 1 - p ∈ [0, 1] per row; the posterior
	// median moves by as much, give or take the narrower binomial spread of the rows left.
	d := withUser.Count - base.Count
	if d < 0 || d > 10.5 {
		t.Fatalf("10 user anomalies moved the count by %g (from %g), want within [0, 10]", d, base.Count)
	}
	asDesign, _ := Calibrate(n, design, Prior{}, Target{})
	if asDesign.Count-base.Count < 100 {
		t.Fatalf("the same rows as design answers moved the count only by %g: the test does not tell the rules apart", asDesign.Count-base.Count)
	}
	// The user's rows are never asked.
	next, err := Next(n, user, nil, 20, 1, Prior{})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range user[len(ans):] {
		if slices.Contains(next, u.Rank) {
			t.Fatalf("the user's rank %d asked", u.Rank)
		}
	}
}

// TestCalibrateRecovers: on simulated tables of shares 0.5 %–30 %, 80 answers bring the
// count much nearer the truth than the prior alone, and the 80 % interval covers the
// truth on about 80 % of them.
func TestCalibrateRecovers(t *testing.T) {
	var ln0, ln80 float64
	covered, tables := 0, 40
	for seed := range uint64(tables) {
		n := 4000
		share := []float64{0.005, 0.02, 0.08, 0.3}[seed%4]
		labels := simTable(n, share, 100+seed)
		T := 0
		for _, y := range labels {
			if y {
				T++
			}
		}
		e0, err := Calibrate(n, nil, Prior{}, Target{})
		if err != nil {
			t.Fatal(err)
		}
		e, err := Calibrate(n, review(t, labels, 4, 20, seed, Prior{}), Prior{}, Target{})
		if err != nil {
			t.Fatal(err)
		}
		ln0 += math.Abs(math.Log(e0.Count/float64(T))) / float64(tables)
		ln80 += math.Abs(math.Log(e.Count/float64(T))) / float64(tables)
		if e.Low*float64(n) <= float64(T) && float64(T) <= e.High*float64(n) {
			covered++
		}
	}
	if ln80 > ln0-0.3 || ln80 > 0.6 {
		t.Fatalf("mean |ln(count/true)| %.2f with 80 answers, %.2f with none", ln80, ln0)
	}
	if c := float64(covered) / float64(tables); c < 0.6 || c > 0.97 {
		t.Fatalf("the 80 %% interval covered %.0f %% of %d tables", 100*c, tables)
	}
}

func TestTargets(t *testing.T) {
	n := 3000
	labels := simTable(n, 0.05, 9)
	ans := review(t, labels, 4, 20, 2, Prior{})
	cut := func(tg Target) Estimate {
		e, err := Calibrate(n, ans, Prior{}, tg)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	p9, p5 := cut(Target{Precision: 0.9}), cut(Target{Precision: 0.5})
	if p9.Cut > p5.Cut || p5.Precision < 0.5 {
		t.Fatalf("precision 0.9 cut %d (precision %.2f), 0.5 cut %d (precision %.2f)", p9.Cut, p9.Precision, p5.Cut, p5.Precision)
	}
	r9, r5 := cut(Target{Recall: 0.9}), cut(Target{Recall: 0.5})
	if r9.Cut < r5.Cut || r9.Recall < 0.9 || r5.Recall < 0.5 {
		t.Fatalf("recall 0.9 cut %d (recall %.2f), 0.5 cut %d (recall %.2f)", r9.Cut, r9.Recall, r5.Cut, r5.Recall)
	}
	f := cut(Target{})
	for _, o := range []Estimate{p9, p5, r9, r5} {
		if o.F1 > f.F1+1e-12 {
			t.Fatalf("the F1 cut %d (F1 %.3f) is beaten by cut %d (F1 %.3f)", f.Cut, f.F1, o.Cut, o.F1)
		}
	}
}

func TestErrors(t *testing.T) {
	var rankErr *RankError
	var contra *ContradictionError
	var argErr *ArgError
	cases := []struct {
		name string
		err  func() error
		is   func(error) bool
	}{
		{"rank 0", func() error { _, err := Calibrate(10, []Answer{{Rank: 0, Round: 1}}, Prior{}, Target{}); return err },
			func(e error) bool { return errors.As(e, &rankErr) && rankErr.Rank == 0 && !rankErr.Pending }},
		{"rank n+1", func() error { _, err := Next(10, []Answer{{Rank: 11, Round: 1}}, nil, 3, 0, Prior{}); return err },
			func(e error) bool { return errors.As(e, &rankErr) && rankErr.Rank == 11 && rankErr.N == 10 }},
		{"pending out of range", func() error { _, err := Next(10, nil, []int{3, 12}, 3, 0, Prior{}); return err },
			func(e error) bool { return errors.As(e, &rankErr) && rankErr.Pending && rankErr.Index == 1 }},
		{"contradiction", func() error {
			_, err := Calibrate(10, []Answer{{Rank: 2, Anomaly: true, Round: 1}, {Rank: 5, Round: 1}, {Rank: 2, Round: 0}}, Prior{}, Target{})
			return err
		}, func(e error) bool {
			return errors.As(e, &contra) && contra.Rank == 2 && contra.First == 0 && contra.Second == 2
		}},
		{"n < 2", func() error { _, err := Calibrate(1, nil, Prior{}, Target{}); return err },
			func(e error) bool { return errors.As(e, &argErr) && argErr.Arg == "n" }},
		{"k < 1", func() error { _, err := Next(10, nil, nil, 0, 0, Prior{}); return err },
			func(e error) bool { return errors.As(e, &argErr) && argErr.Arg == "k" }},
		{"negative round", func() error { _, err := Next(10, []Answer{{Rank: 1, Round: -1}}, nil, 1, 0, Prior{}); return err },
			func(e error) bool { return errors.As(e, &argErr) }},
		{"prior share 0 with an interval", func() error { _, err := Calibrate(10, nil, Prior{Low: 0.1, High: 0.2}, Target{}); return err },
			func(e error) bool { return errors.As(e, &argErr) && argErr.Arg == "prior.Share" }},
		{"prior outside its interval", func() error {
			_, err := Calibrate(10, nil, Prior{Share: 0.5, Low: 0.1, High: 0.2}, Target{})
			return err
		}, func(e error) bool { return errors.As(e, &argErr) }},
		{"both targets", func() error { _, err := Calibrate(10, nil, Prior{}, Target{Precision: 0.5, Recall: 0.5}); return err },
			func(e error) bool { return errors.As(e, &argErr) && argErr.Arg == "target" }},
		{"precision > 1", func() error { _, err := Calibrate(10, nil, Prior{}, Target{Precision: 2}); return err },
			func(e error) bool { return errors.As(e, &argErr) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.err()
			if err == nil || !c.is(err) {
				t.Fatalf("got %v (%T)", err, err)
			}
		})
	}
	// Answers given twice alike are one answer.
	e, err := Calibrate(10, []Answer{{Rank: 2, Anomaly: true, Round: 1}, {Rank: 2, Anomaly: true, Round: 0}}, Prior{}, Target{})
	if err != nil || e.Answers != 1 || e.Anomalies != 1 {
		t.Fatalf("a repeated answer: %+v, %v", e, err)
	}
}

func TestRanks(t *testing.T) {
	got := Ranks([]float64{0.5, 2, 0.5, math.NaN(), 3})
	want := []int{3, 2, 4, 5, 1}
	if !slices.Equal(got, want) {
		t.Fatalf("Ranks = %v, want %v", got, want)
	}
	// Against a stable comparison sort, on scores with many ties, both zeros, infinities
	// and NaN.
	rng := rand.New(rand.NewPCG(3, 3))
	s := make([]float64, 5000)
	for i := range s {
		switch rng.IntN(20) {
		case 0:
			s[i] = math.NaN()
		case 1:
			s[i] = math.Copysign(0, -1)
		case 2:
			s[i] = math.Inf(1 - 2*rng.IntN(2))
		default:
			s[i] = math.Round(rng.NormFloat64()*20) / 4
		}
	}
	order := make([]int, len(s))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		x, y := s[order[a]], s[order[b]]
		return !math.IsNaN(x) && (math.IsNaN(y) || x > y)
	})
	want = make([]int, len(s))
	for r, i := range order {
		want[i] = r + 1
	}
	if got := Ranks(s); !slices.Equal(got, want) {
		t.Fatal("Ranks differs from a stable sort by descending score")
	}
}

func TestPAV(t *testing.T) {
	got := pav([]float64{0.5, 0.2, 0.4, 0.1}, []float64{1, 1, 1, 2})
	want := []float64{0.5, 0.3, 0.3, 0.1}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("pav = %v, want %v", got, want)
		}
	}
}

// TestConcurrent: Next and Calibrate may run concurrently (the grids are shared) and give
// the same results as one at a time.
func TestConcurrent(t *testing.T) {
	labels := simTable(2000, 0.05, 3)
	ans := review(t, labels, 2, 20, 1, Prior{})
	want, err := Calibrate(2000, ans, Prior{}, Target{})
	if err != nil {
		t.Fatal(err)
	}
	wantNext, _ := Next(2000, ans, nil, 20, 2, Prior{})
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			n := 2000 + 500*(i%3) // other sizes too, so that grids are built side by side
			if _, err := Calibrate(n, ans, Prior{}, Target{}); err != nil {
				errs <- err
				return
			}
			got, err := Calibrate(2000, ans, Prior{}, Target{})
			next, _ := Next(2000, ans, nil, 20, 2, Prior{})
			if err == nil && (got != want || !slices.Equal(next, wantNext)) {
				err = errors.New("a concurrent call gave another result")
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestSharePriorTails compares the share prior's Student t (the default) with the normal
// (PriorDF +Inf): on a table whose share is far above the label-free count's, the same
// answers pull the t's count further from the prior, toward the answers. A PriorDF ≤ 0
// other than 0 is refused.
func TestSharePriorTails(t *testing.T) {
	n := 4000
	labels := simTable(n, 0.3, 7)
	T := 0
	for _, y := range labels {
		if y {
			T++
		}
	}
	prior := Prior{Share: 0.01, Low: 0.002, High: 0.05}
	ans := review(t, labels, 2, 20, 3, prior)
	tdist, err := Calibrate(n, ans, prior, Target{})
	if err != nil {
		t.Fatal(err)
	}
	normal, err := Method{PriorDF: math.Inf(1)}.Calibrate(n, ans, prior, Target{})
	if err != nil {
		t.Fatal(err)
	}
	p := prior.Share * float64(n)
	if !(normal.Count > p && tdist.Count > normal.Count) || float64(T) < 5*p {
		t.Errorf("count %.0f under the t, %.0f under the normal, %.0f the prior's, %d true: want the t's furthest from the prior", tdist.Count, normal.Count, p, T)
	}
	if same, err := (Method{PriorDF: DefaultPriorDF}).Calibrate(n, ans, prior, Target{}); err != nil || same != tdist {
		t.Errorf("PriorDF %d gives %+v, the default %+v (%v)", DefaultPriorDF, same, tdist, err)
	}
	var ae *ArgError
	if _, err := (Method{PriorDF: -1}).Calibrate(n, ans, prior, Target{}); !errors.As(err, &ae) || ae.Arg != "Method.PriorDF" {
		t.Errorf("PriorDF -1: %v, want an ArgError naming Method.PriorDF", err)
	}
}

// BenchmarkRanks ranks a million scores with ties.
func BenchmarkRanks(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	s := make([]float64, 1_000_000)
	for i := range s {
		s[i] = math.Round(rng.NormFloat64()*1000) / 100
	}
	for b.Loop() {
		Ranks(s)
	}
}

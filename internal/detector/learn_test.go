package detector_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/udocc/udocc/internal/detector"
	"github.com/udocc/udocc/internal/method"
)

// TestLearn fits with answers (Ensemble.Answers) and checks the one path: the scores are
// sharpened, the count and cut come from the answers, the model scores new rows as it
// scored its training rows, before and after a save, and a review or calibration of it
// is refused.
func TestLearn(t *testing.T) {
	ctx := context.Background()
	rows := subtle(300, 4, 11)
	free, err := detector.Fit(ctx, rows, nil, quick())
	if err != nil {
		t.Fatal(err)
	}
	defer free.Close()
	if _, ok := free.Sharpened(); ok {
		t.Error("a label-free fit says its scores are sharpened")
	}
	// Answers as a review gives them: the rows it asks, answered from the truth (every
	// tenth row is an anomaly).
	asked, err := free.ReviewRows(ctx, nil, detector.ReviewOptions{K: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var ans []detector.Answer
	anomalies := 0
	for _, r := range asked {
		a := r.Row%10 == 9 || r.Row%10 == 4
		ans = append(ans, detector.Answer{Row: r.Row, Anomaly: a, Round: r.Round})
		if a {
			anomalies++
		}
	}
	// Rows the user knew of: two of the cluster the scores miss (round 0, outside the
	// review's design).
	for _, r := range []int{4, 14} {
		if !slices.ContainsFunc(ans, func(a detector.Answer) bool { return a.Row == r }) {
			ans = append(ans, detector.Answer{Row: r, Anomaly: true})
			anomalies++
		}
	}
	if anomalies == 0 || anomalies == len(ans) {
		t.Fatalf("%d of %d answered rows are anomalies: the test needs both", anomalies, len(ans))
	}
	o := quick()
	m, err := detector.Fit(ctx, rows, detector.Ensemble{Answers: ans}, o)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	beta, ok := m.Sharpened()
	if !ok || !(beta > 0) {
		t.Fatalf("sharpened %v, beta %v: want the answers' evidence weighed", ok, beta)
	}
	if slices.Equal(m.Scores(), free.Scores()) {
		t.Error("the answers left every score as it was")
	}
	// The same seed and answers give the same scores (the fine-tuning draws its rows
	// from the fit's seed).
	twice, err := detector.Fit(ctx, rows, detector.Ensemble{Answers: ans}, o)
	if err != nil {
		t.Fatal(err)
	}
	defer twice.Close()
	if !slices.Equal(twice.Scores(), m.Scores()) {
		t.Error("a second fit with the same seed and answers scores differently")
	}
	// The cluster the label-free scores missed rises: its unanswered rows' mean rank.
	if before, after := meanRank(free.Scores(), 24), meanRank(m.Scores(), 24); !(after < before) {
		t.Errorf("the cluster's rows rank %.0f on average, %.0f label-free: want them higher", after, before)
	}
	b := m.CountBasis()
	if b.Answers != len(ans) || b.Anomalies != anomalies {
		t.Errorf("the count rests on %d answers (%d anomalies), want %d (%d)", b.Answers, b.Anomalies, len(ans), anomalies)
	}
	// Labels are the scores above the threshold.
	for i, l := range m.Labels() {
		if l != (m.Scores()[i] > m.Threshold()) {
			t.Fatalf("row %d: label %v, score %v, threshold %v", i, l, m.Scores()[i], m.Threshold())
		}
	}
	// New rows score as the training rows did, in the model and saved.
	again, err := m.Score(ctx, rows)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again, m.Scores()) {
		t.Error("Score on the training rows differs from Scores")
	}
	l := reloaded(t, m)
	loaded, err := l.Score(ctx, rows)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(loaded, again) {
		t.Error("the saved model scores the rows differently")
	}
	if l.Threshold() != m.Threshold() {
		t.Errorf("threshold %v saved, %v fitted", l.Threshold(), m.Threshold())
	}
	// Its scores rest on the answers: more answers go to the label-free model.
	if _, err := m.ReviewRows(ctx, ans, detector.ReviewOptions{}); !errors.Is(err, detector.ErrLearned) {
		t.Errorf("ReviewRows: %v, want ErrLearned", err)
	}
	if _, err := l.Calibrate(ctx, ans, detector.CalibrateOptions{Scores: loaded}); !errors.Is(err, detector.ErrLearned) {
		t.Errorf("Calibrate: %v, want ErrLearned", err)
	}
	// The answers fine-tuned the networks, and the saved model holds them: the
	// explanations split the fine-tuned networks' score, the same after a reload.
	ft, ok := m.FineTuned()
	if lt, lok := l.FineTuned(); !ok || ft.Anomalies != anomalies || ft.Normals != len(ans)-anomalies || ft.Eta != method.DefaultSAD.Eta || lt != ft || !lok {
		t.Errorf("fine-tuned %v %+v (saved: %v %+v), want %d anomalies and %d normal rows", ok, ft, lok, lt, anomalies, len(ans)-anomalies)
	}
	ex, err := m.Explain(ctx, rows[9:10])
	if err != nil {
		t.Fatal(err)
	}
	lex, err := l.Explain(ctx, rows[9:10])
	if err != nil {
		t.Fatal(err)
	}
	if ex[0].Score == free.Scores()[9] || lex[0].Score != ex[0].Score {
		t.Errorf("explained score %v (saved: %v), the label-free fit's %v: want the fine-tuned networks'", ex[0].Score, lex[0].Score, free.Scores()[9])
	}
}

func TestLearnRefuses(t *testing.T) {
	ctx := context.Background()
	rows := table(60, 3, 2)
	for name, e := range map[string]detector.Ensemble{
		"a row past the table": {Answers: []detector.Answer{{Row: 60, Anomaly: true}}},
		"both ways":            {Answers: []detector.Answer{{Row: 1}, {Row: 1, Anomaly: true}}},
		"with a contamination": {Answers: []detector.Answer{{Row: 1}}, Contamination: 0.1},
	} {
		m, err := detector.Fit(ctx, rows, e, quick())
		if err == nil {
			m.Close()
			t.Errorf("%s: fitted", name)
			continue
		}
		t.Logf("%s: %v", name, err)
	}
	var ae *detector.AnswerError
	o := quick()
	if _, err := detector.Fit(ctx, rows, detector.Ensemble{Answers: []detector.Answer{{Row: 3}, {Row: 70, Anomaly: true}}}, o); !errors.As(err, &ae) || ae.Index != 1 || !errors.Is(err, detector.ErrNoRow) {
		t.Errorf("%v: want an AnswerError naming answer 1, ErrNoRow", err)
	}
}

// TestLearnWide fits a table wide enough to reach the networks as its principal
// components: the answers' distances read the components, and the saved model scores
// the rows as the fit did.
func TestLearnWide(t *testing.T) {
	ctx := context.Background()
	rows := table(300, 310, 4)
	var ans []detector.Answer
	for _, r := range []int{9, 19, 29, 0, 1, 2, 3, 4} {
		ans = append(ans, detector.Answer{Row: r, Anomaly: r%10 == 9, Round: 1})
	}
	o := quick()
	m, err := detector.Fit(ctx, rows, detector.Ensemble{Answers: ans}, o)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, ok := m.Sharpened(); !ok {
		t.Fatal("not sharpened")
	}
	l := reloaded(t, m)
	got, err := l.Score(ctx, rows)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, m.Scores()) {
		t.Error("the saved wide model scores the training rows differently")
	}
}

// subtle is n rows of d numbers: normal rows near the origin; every tenth row (9, 19, …)
// an anomaly far from them, which the label-free scores find, and every tenth row from 4
// (4, 14, …) one of a tight cluster inside their spread, which they miss.
func subtle(n, d int, seed uint64) [][]float64 {
	rows := table(n, d, seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	for i := 4; i < n; i += 10 {
		for j := range rows[i] {
			rows[i][j] = 0.05 * rng.NormFloat64()
		}
		rows[i][0] += 1.2
	}
	return rows
}

// meanRank is the mean rank, 1 the highest score, of the rows from..n step 10 of s
// (the cluster from row 24 on, past the answered 4 and 14).
func meanRank(s []float64, from int) float64 {
	var sum, k float64
	for i := from; i < len(s); i += 10 {
		r := 1
		for _, v := range s {
			if v > s[i] {
				r++
			}
		}
		sum, k = sum+float64(r), k+1
	}
	return sum / k
}

// TestLearnNoAnomaly gives answers that hold no anomaly: the count and cut come from
// them; the networks and scores stay the label-free fit's, bit for bit.
func TestLearnNoAnomaly(t *testing.T) {
	ctx := context.Background()
	rows := table(200, 3, 5)
	free, err := detector.Fit(ctx, rows, nil, quick())
	if err != nil {
		t.Fatal(err)
	}
	defer free.Close()
	o := quick()
	m, err := detector.Fit(ctx, rows, detector.Ensemble{Answers: []detector.Answer{{Row: 0}, {Row: 1}, {Row: 2}, {Row: 3}}}, o)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	_, sharp := m.Sharpened()
	_, tuned := m.FineTuned()
	if sharp || tuned || !slices.Equal(m.Scores(), free.Scores()) {
		t.Errorf("sharpened %v, fine-tuned %v: want the label-free scores", sharp, tuned)
	}
	if m.CountBasis().Answers != 4 {
		t.Errorf("the count rests on %d answers, want 4", m.CountBasis().Answers)
	}
}

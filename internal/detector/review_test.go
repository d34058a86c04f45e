package detector_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/udocc/udocc/internal/detector"
)

// TestReviewLoaded reviews a loaded model's rows: without rows it says it has none;
// given the rows or their scores it asks the same rows; bad answers are refused with
// the row; a calibration is saved with its provenance, and the loaded copy labels by its
// threshold.
func TestReviewLoaded(t *testing.T) {
	ctx := context.Background()
	rows := table(300, 4, 3)
	m, err := detector.Fit(ctx, rows, nil, quick())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	l := reloaded(t, m)
	if b := l.CountBasis(); b.Answers != 0 {
		t.Errorf("a label-free model's count basis %+v", b)
	}
	if _, err := l.ReviewRows(ctx, nil, detector.ReviewOptions{}); !errors.Is(err, detector.ErrNoReviewRows) {
		t.Errorf("no rows: %v", err)
	}
	byRows, err := l.ReviewRows(ctx, nil, detector.ReviewOptions{Rows: rows, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	byScores, err := l.ReviewRows(ctx, nil, detector.ReviewOptions{Scores: m.Scores(), Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	fitted, err := m.ReviewRows(ctx, nil, detector.ReviewOptions{Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(byRows, byScores) || !slices.Equal(byRows, fitted) || len(byRows) != detector.DefaultReviewRows {
		t.Fatalf("the same rows, three ways: %v\n%v\n%v", byRows, byScores, fitted)
	}
	for _, r := range byRows {
		if r.Round != 1 || r.Score != m.Scores()[r.Row] {
			t.Errorf("row %+v", r)
		}
	}

	var answers []detector.Answer
	for _, r := range byRows {
		answers = append(answers, detector.Answer{Row: r.Row, Anomaly: r.Row%10 == 9, Round: r.Round})
	}
	bad := []struct {
		name    string
		answers []detector.Answer
		want    error
		row     int
	}{
		{"a row past the last", append(slices.Clone(answers), detector.Answer{Row: 300, Anomaly: true}), detector.ErrNoRow, 300},
		{"a negative row", append(slices.Clone(answers), detector.Answer{Row: -1}), detector.ErrNoRow, -1},
		{"contradicting answers", append(slices.Clone(answers), detector.Answer{Row: answers[3].Row, Anomaly: !answers[3].Anomaly}), detector.ErrContradiction, answers[3].Row},
		{"a negative round", append(slices.Clone(answers), detector.Answer{Row: 5, Round: -1}), detector.ErrBadRound, 5},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := l.Calibrate(ctx, tc.answers, detector.CalibrateOptions{Scores: m.Scores()})
			var ae *detector.AnswerError
			if !errors.Is(err, tc.want) || !errors.As(err, &ae) || ae.Row != tc.row || ae.Index != len(answers) {
				t.Errorf("%v (%+v)", err, ae)
			}
			_, err = l.ReviewRows(ctx, tc.answers, detector.ReviewOptions{Scores: m.Scores()})
			if !errors.Is(err, tc.want) {
				t.Errorf("ReviewRows: %v", err)
			}
		})
	}
	if _, err := l.Calibrate(ctx, answers, detector.CalibrateOptions{Scores: m.Scores(), Precision: 0.9, Recall: 0.5}); err == nil {
		t.Errorf("a precision and a recall together were taken")
	}

	c, err := l.Calibrate(ctx, answers, detector.CalibrateOptions{Scores: m.Scores(), Precision: 0.9, LabelsSHA256: "ab12"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Target != "precision=0.9" || c.Answers != len(answers) || l.Threshold() != c.Threshold || !(c.Low <= c.Share && c.Share <= c.High) {
		t.Errorf("calibration %+v, threshold %v", c, l.Threshold())
	}
	if lo, hi := l.RatioInterval(); lo != c.Low || hi != c.High {
		t.Errorf("RatioInterval %v %v, the calibration's %v %v", lo, hi, c.Low, c.High)
	}
	saved := reloaded(t, l)
	b := saved.CountBasis()
	if saved.Threshold() != c.Threshold || b.Answers != c.Answers || b.Anomalies != c.Anomalies || b.LabelsSHA256 != "ab12" || b.Share != c.Share || b.Prior {
		t.Errorf("saved: threshold %v, basis %+v; calibration %+v", saved.Threshold(), b, c)
	}
	labels, err := saved.Predict(ctx, rows)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range m.Scores() {
		if labels[i] != (s > c.Threshold) {
			t.Fatalf("row %d: score %v labelled %v by the threshold %v", i, s, labels[i], c.Threshold)
		}
	}
	// Calibrated again, the saved model starts from the same label-free count.
	c2, err := saved.Calibrate(ctx, answers, detector.CalibrateOptions{Scores: m.Scores(), Precision: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	if c2.PriorShare != c.PriorShare || c2.Share != c.Share || c2.Threshold != c.Threshold {
		t.Errorf("calibrated twice: %+v, then %+v", c, c2)
	}
}

// TestCalibrateKnownRanks calibrates from the answered rows' ranks and scores alone (a
// labels file without its table, udocc cut --labels): the count is the full scores',
// and the threshold keeps every answered row on its side of the cut.
func TestCalibrateKnownRanks(t *testing.T) {
	ctx := context.Background()
	rows := table(300, 4, 5)
	m, err := detector.Fit(ctx, rows, nil, quick())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	scores := m.Scores()
	rank, _ := detector.ReviewRanks(scores)
	var answers []detector.Answer
	var ranked []detector.RankedAnswer
	for round := 1; round <= 2; round++ {
		ask, err := m.ReviewRows(ctx, answers, detector.ReviewOptions{Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range ask {
			a := detector.Answer{Row: r.Row, Anomaly: r.Row%10 == 9, Round: r.Round}
			answers = append(answers, a)
			ranked = append(ranked, detector.RankedAnswer{Rank: rank[r.Row], Score: scores[r.Row], Anomaly: a.Anomaly, Round: a.Round})
		}
	}
	l := reloaded(t, m)
	full, err := m.Calibrate(ctx, answers, detector.CalibrateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := l.CalibrateKnown(len(scores), ranked, detector.CalibrateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	k := got
	if k.Count != full.Count || k.Cut != full.Cut || k.Low != full.Low || k.High != full.High {
		t.Errorf("from ranks %+v, from the scores %+v", k, full)
	}
	for _, a := range ranked {
		if (a.Score > k.Threshold) != (a.Rank <= k.Cut) {
			t.Errorf("rank %d (score %v) on the wrong side of the threshold %v (cut %d)", a.Rank, a.Score, k.Threshold, k.Cut)
		}
	}
	// The training rows' sketch is exact at every share of 300 rows up to a half.
	if k.Cut > 0 && k.Cut < len(scores)/2 && math.Abs(k.Threshold-full.Threshold) > 1e-9*math.Abs(full.Threshold) {
		t.Errorf("threshold from ranks %v, from the scores %v", k.Threshold, full.Threshold)
	}
}

// TestCalibratePaperMethod refuses a method whose members are thresholded one by one.
func TestCalibratePaperMethod(t *testing.T) {
	ctx := context.Background()
	m, err := detector.Fit(ctx, table(100, 3, 1), detector.Proposed{}, detector.Options{PretrainEpochs: 2, Epochs: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := m.Calibrate(ctx, []detector.Answer{{Row: 1, Anomaly: true, Round: 1}}, detector.CalibrateOptions{}); !errors.Is(err, detector.ErrNoRecut) {
		t.Errorf("%v", err)
	}
}

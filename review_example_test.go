package udocc_test

import (
	"context"
	"fmt"

	"github.com/udocc/udocc"
)

// ExampleModel_ReviewRows asks a round of rows of a fitted model's training rows, as a
// user labelling them would be asked: the same seed and answers give the same rows, and
// no row is asked twice.
func ExampleModel_ReviewRows() {
	ctx := context.Background()
	rows := table(200, 4, 1)
	m, err := udocc.Fit(ctx, rows, nil, quick())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	first, err := m.ReviewRows(ctx, nil, udocc.ReviewOptions{K: 5, Seed: 7})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The user answers: in this table every tenth row (9, 19, ...) is an anomaly.
	var answers []udocc.Answer
	for _, r := range first {
		answers = append(answers, udocc.Answer{Row: r.Row, Anomaly: r.Row%10 == 9, Round: r.Round})
	}
	second, err := m.ReviewRows(ctx, answers, udocc.ReviewOptions{K: 5, Seed: 7})
	if err != nil {
		fmt.Println(err)
		return
	}
	asked := map[int]bool{}
	for _, r := range append(first, second...) {
		asked[r.Row] = true
	}
	fmt.Println("rounds:", first[0].Round, second[0].Round)
	fmt.Println("rows asked:", len(first)+len(second), "distinct:", len(asked))
	// Output:
	// rounds: 1 2
	// rows asked: 10 distinct: 10
}

// ExampleModel_Calibrate turns answers into the count, its 80 % interval and the
// threshold, which the model then labels by.
func ExampleModel_Calibrate() {
	ctx := context.Background()
	rows := table(200, 4, 1)
	m, err := udocc.Fit(ctx, rows, nil, quick())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	var answers []udocc.Answer
	for round := 1; round <= 2; round++ {
		ask, err := m.ReviewRows(ctx, answers, udocc.ReviewOptions{K: 20, Seed: 7})
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, r := range ask {
			answers = append(answers, udocc.Answer{Row: r.Row, Anomaly: r.Row%10 == 9, Round: r.Round})
		}
	}
	c, err := m.Calibrate(ctx, answers, udocc.CalibrateOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("answers:", c.Answers, "target:", c.Target)
	fmt.Println("the interval holds the count:", c.Low <= c.Share && c.Share <= c.High)
	fmt.Println("the model labels by the new threshold:", m.Threshold() == c.Threshold)
	fmt.Println("rows flagged are the cut:", flagged(m.Labels()) == c.Cut)
	// Output:
	// answers: 40 target: f1
	// the interval holds the count: true
	// the model labels by the new threshold: true
	// rows flagged are the cut: true
}

func flagged(labels []bool) int {
	n := 0
	for _, l := range labels {
		if l {
			n++
		}
	}
	return n
}

// ExampleEnsemble_answers fits with a user's answers. They fine-tune the networks (Deep
// SAD) and sharpen the scores (rows near answered anomalies rise), and the count and the
// cut come from them. Without answers the fit is the label-free one.
func ExampleEnsemble_answers() {
	ctx := context.Background()
	// Every tenth row from 9 is an anomaly far from the others, which the scores find;
	// every tenth row from 4 is one of a tight cluster inside the normal rows, which
	// they miss.
	rows := table(300, 4, 11)
	for i := 4; i < len(rows); i += 10 {
		rows[i] = []float64{1.2, 0, 0, 0}
	}
	free, err := udocc.Fit(ctx, rows, nil, quick())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer free.Close()
	// The label-free model picks the rows to ask; the user answers them, and adds two
	// rows of the cluster they knew of (round 0: outside the design).
	isAnomaly := func(row int) bool { return row%10 == 9 || row%10 == 4 }
	answers := []udocc.Answer{{Row: 4, Anomaly: true}, {Row: 14, Anomaly: true}}
	for round := 1; round <= 2; round++ {
		ask, err := free.ReviewRows(ctx, answers, udocc.ReviewOptions{K: 20, Seed: 1})
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, r := range ask {
			answers = append(answers, udocc.Answer{Row: r.Row, Anomaly: isAnomaly(r.Row), Round: r.Round})
		}
	}
	m, err := udocc.Fit(ctx, rows, udocc.Ensemble{Answers: answers}, quick())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	ft, tuned := m.FineTuned()
	fmt.Println("fine-tuned:", tuned, "on", ft.Anomalies+ft.Normals, "answers")
	beta, ok := m.Sharpened()
	fmt.Println("sharpened:", ok, "evidence weighed:", beta > 0)
	fmt.Println("the count rests on", m.CountBasis().Answers, "answers")
	fmt.Println("row 24, in the cluster, ranks higher:", rank(m.Scores(), 24) < rank(free.Scores(), 24))
	// Output:
	// fine-tuned: true on 42 answers
	// sharpened: true evidence weighed: true
	// the count rests on 42 answers
	// row 24, in the cluster, ranks higher: true
}

// rank is row i's rank among scores, 1 for the highest.
func rank(scores []float64, i int) int {
	r := 1
	for _, s := range scores {
		if s > scores[i] {
			r++
		}
	}
	return r
}

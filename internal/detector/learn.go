package detector

import (
	"context"
	"errors"
	"fmt"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/answers"
)

// ErrLearned reports a review or a calibration of a model fitted with answers: its
// scores, count and cut already rest on them. Review and calibrate the label-free model,
// then fit again with all the answers.
var ErrLearned = errors.New("udocc: the model was fitted with answers: review and calibrate the label-free model, then fit again with every answer")

// Learn takes the user's answers on the training rows ds (the table the model was fitted
// on) and follows one path: answers → scores → count → cut. The scores are sharpened by
// the answers (package internal/answers: a row near an answered anomaly rises, one near
// an answered normal row falls, in the columns the networks read; the model keeps the
// answered rows and scores new rows the same way). The count and its 80 % interval are the review's estimate (Calibrate),
// read on the label-free ranks the review's design drew the rows on. The cut flags as
// many rows of the sharpened scores as Calibrate's cut would. The scores stay as they
// were where the answers hold no anomaly or no normal row, or where the label-free
// scores already rank every answered anomaly above every answered normal row. A nil ctx is
// context.Background().
func (m *Model) Learn(ctx context.Context, ds *data.Dataset, ans []Answer, o CalibrateOptions) (Calibration, error) {
	if err := m.calibrable(); err != nil {
		return Calibration{}, err
	}
	if m.scores == nil {
		return Calibration{}, ErrNoReviewRows
	}
	if o.Rows != nil || o.Scores != nil {
		return Calibration{}, errors.New("udocc: Learn reads the training rows: leave CalibrateOptions.Rows and Scores nil")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	x, err := m.AnswerRows(ds)
	if err != nil {
		return Calibration{}, err
	}
	n := len(m.scores)
	if x.N != n {
		return Calibration{}, fmt.Errorf("udocc: Learn: %d rows; the model was fitted on %d", x.N, n)
	}
	rank, _ := ReviewRanks(m.scores)
	ra, err := rankedAnswers(ans, rank)
	if err != nil {
		return Calibration{}, err
	}
	rows := make([]answers.Answer, len(ans))
	for i, a := range ans {
		rows[i] = answers.Answer{Row: a.Row, Anomaly: a.Anomaly}
	}
	sh, sharp, err := answers.Fit(x.X, x.N, x.D, m.scores, rows, answers.DefaultRule)
	if err != nil {
		return Calibration{}, fmt.Errorf("udocc: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return Calibration{}, err
	}
	if sh == nil || sh.Beta == 0 {
		// No evidence, or none the scores need: the answers leave them as they are.
		sh, sharp = nil, m.scores
	}
	// calibrateRanked sets the threshold, labels and review on success only.
	saved := *m.meta
	labelFree := m.scores
	m.scores, m.meta.Answers, m.meta.Tail = sharp, sh, newTail(sharp)
	c, err := m.calibrateRanked(n, ra, sharp, nil, o)
	if err != nil {
		*m.meta, m.scores = saved, labelFree
		return Calibration{}, err
	}
	return c, nil
}

// Sharpened says whether the model's scores were sharpened by answers, with the
// evidence's weight β.
func (m *Model) Sharpened() (beta float64, ok bool) {
	if a := m.meta.Answers; a != nil {
		return a.Beta, true
	}
	return 0, false
}

// AnswerRows are the rows of ds (the model's columns) whose distances the answers'
// evidence reads: ds matched and imputed, or, for a model that reads its table's
// principal components, those components, as the networks read them.
func (m *Model) AnswerRows(ds *data.Dataset) (*data.Dataset, error) {
	ds, err := m.prepare(ds)
	if err != nil {
		return nil, err
	}
	x, _, err := m.networkRows(ds, false)
	return x, err
}

// sharpen applies the model's answers to the label-free scores s of ds's rows (the
// rows the networks read: AnswerRows).
func (m *Model) sharpen(ds *data.Dataset, s []float64) []float64 {
	if a := m.meta.Answers; a != nil {
		return a.Apply(ds.X, ds.N, ds.D, s)
	}
	return s
}

// learned refuses a review or calibration of a model fitted with answers.
func (m *Model) learned() error {
	if m.meta.Answers != nil {
		return ErrLearned
	}
	return nil
}

package detector

import (
	"context"
	"errors"
	"fmt"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/answers"
	"github.com/udocc/udocc/internal/method"
	"github.com/udocc/udocc/internal/models"
)

// ErrLearned reports a review or a calibration of a model fitted with answers: its
// scores, count and cut already rest on them. Review and calibrate the label-free model,
// then fit again with all the answers.
var ErrLearned = errors.New("udocc: the model was fitted with answers: review and calibrate the label-free model, then fit again with every answer")

// Learn takes the user's answers on the training rows ds (the table the model was fitted
// on) and follows one path: answers → scores → count → cut.
//
//   - The scores: where the answers hold an anomaly and a normal row, the ensemble's
//     encoders are fine-tuned by Deep SAD's loss (FineTuneSAD, method.DefaultSAD), and
//     their scores are then sharpened (package internal/answers: a row near answered
//     anomalies rises, one near answered normal rows falls, in the columns the networks
//     read). The model keeps the fine-tuned networks and the answered rows, and scores
//     new rows the same way. Where the answers hold no anomaly or no normal row, the
//     scores stay the label-free fit's, bit for bit.
//   - The count and its 80 % interval are the review's estimate (Calibrate), read on the
//     label-free ranks the review's design drew the rows on.
//   - The cut flags as many rows of the new scores as Calibrate's cut would.
//
// Bad answers and a bad target are refused before the networks change. A nil ctx is
// context.Background(); after an error during or after the fine-tuning (a cancelled
// ctx), discard the model.
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
	if _, _, err := reviewTarget(o.Precision, o.Recall); err != nil {
		return Calibration{}, err
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
	anom := 0
	for i, a := range ans {
		rows[i] = answers.Answer{Row: a.Row, Anomaly: a.Anomaly}
		if a.Anomaly {
			anom++
		}
	}
	if anom > 0 && anom < len(ans) {
		o := method.DefaultSAD
		o.Seed = m.meta.Members[0].Seed
		tuned, err := m.FineTuneSAD(ctx, ds, ans, o)
		if err != nil {
			return Calibration{}, err
		}
		m.scores = tuned
	}
	// From here on an error leaves the model as it now is: fine-tuned, neither sharpened
	// nor calibrated.
	saved, base := *m.meta, m.scores
	sh, sharp, err := answers.Fit(x.X, x.N, x.D, base, rows, answers.DefaultRule)
	if err != nil {
		return Calibration{}, fmt.Errorf("udocc: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return Calibration{}, err
	}
	if sh == nil || sh.Beta == 0 {
		// No evidence, or none the scores need: the sharpening leaves them as they are.
		sh, sharp = nil, base
	}
	// calibrateRanked sets the threshold, labels and review on success only.
	m.scores, m.meta.Answers, m.meta.Tail = sharp, sh, newTail(sharp)
	c, err := m.calibrateRanked(n, ra, sharp, nil, o)
	if err != nil {
		*m.meta, m.scores = saved, base
		return Calibration{}, err
	}
	return c, nil
}

// FineTune records a Deep SAD fine-tuning by answers: its settings and the answers it
// trained on.
type FineTune = models.FineTune

// FineTuned says whether answers fine-tuned the model's networks, and how.
func (m *Model) FineTuned() (FineTune, bool) {
	if f := m.meta.FineTune; f != nil {
		return *f, true
	}
	return FineTune{}, false
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

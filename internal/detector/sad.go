package detector

import (
	"context"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/method"
	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/torch"
)

// FineTuneSAD fine-tunes the model's encoders with answers on ds's rows, the training
// table, by Deep SAD's loss (method.FineTune), and returns the rows' new scores. It
// changes the model: its networks, its combination and its record of the fine-tuning
// (model.json's fine_tune), which Save writes. Learn calls it with method.DefaultSAD;
// bench/sad measures other settings.
func (m *Model) FineTuneSAD(ctx context.Context, ds *data.Dataset, answers []Answer, o method.SAD) ([]float64, error) {
	if err := m.calls.enter(); err != nil {
		return nil, err
	}
	defer m.calls.leave()
	ds, err := m.prepare(ds)
	if err != nil {
		return nil, err
	}
	defer torch.WithThreads(workers(m.threads))()
	nds, gd, err := m.networkRows(ds, true)
	if err != nil {
		return nil, err
	}
	if err := checkAnswers(answers, nds.N); err != nil {
		return nil, err
	}
	labels := make([]int8, nds.N)
	for _, a := range answers {
		labels[a.Row] = 1
		if a.Anomaly {
			labels[a.Row] = -1
		}
	}
	scores, comb, err := method.FineTune(ctx, m.fit, nds, gd, labels, o)
	if err != nil {
		return nil, err
	}
	ft := &models.FineTune{Eta: o.Eta, Epochs: o.Epochs, LR: o.LR, Rows: o.Rows, Seed: o.Seed}
	for _, a := range answers {
		if a.Anomaly {
			ft.Anomalies++
		} else {
			ft.Normals++
		}
	}
	m.meta.Ensemble, m.meta.FineTune = comb, ft
	return scores, nil
}

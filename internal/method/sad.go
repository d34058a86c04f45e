package method

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/training"
)

// DefaultSAD is the fine-tuning a fit with answers runs: η 10, 60 epochs at lr 0.01,
// on the answered rows and 2,048 others, then the sharpening on top
// (bench/sad/results.md).
var DefaultSAD = SAD{Eta: 10, Epochs: 60, LR: 0.01, Rows: 2048}

// SAD are the settings of a Deep SAD fine-tuning (FineTune).
type SAD struct {
	// Eta weighs the answered rows' terms of the loss (Ruff et al. 2020 use 1).
	Eta float64
	// Epochs and LR are the fine-tuning's epochs and Adam's learning rate.
	Epochs int
	LR     float64
	// Rows is the most unanswered rows the fine-tuning trains on, drawn from Seed; every
	// answered row trains too.
	Rows int
	Seed uint64
}

// FineTune fine-tunes a fitted ensemble's encoders with the answers, by Deep SAD's loss
// (Ruff et al., "Deep Semi-Supervised Anomaly Detection", ICLR 2020, Eq. (3)): an
// unanswered row's term is its distance d, an answered normal row's η·d, an answered
// anomaly's η/(d + ε). ds are the rows as the networks read them (matched, imputed,
// and for a wide table projected); labels[i] is row i's answer (1 normal, -1 anomaly,
// 0 none). The combination's scales are then fitted again on ds's rows, with the
// Gaussian's distances gd mixed in where the ensemble has one, and ds's new scores are
// returned with the new combination, which the saved model must hold. The autoencoders
// are not changed.
func FineTune(ctx context.Context, f Fitted, ds *data.Dataset, gd []float64, labels []int8, o SAD) ([]float64, *models.Ensemble, error) {
	e, ok := f.(*ensemble)
	if !ok {
		return nil, nil, errors.New("method: Deep SAD fine-tunes the ensemble")
	}
	if len(labels) != ds.N {
		return nil, nil, fmt.Errorf("method: %d labels for %d rows", len(labels), ds.N)
	}
	var rows, others []int
	for i, y := range labels {
		if y != 0 {
			rows = append(rows, i)
		} else {
			others = append(others, i)
		}
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x5ad))
	rng.Shuffle(len(others), func(i, j int) { others[i], others[j] = others[j], others[i] })
	rows = append(rows, others[:min(len(others), o.Rows)]...)
	m := len(rows)
	x := make([]float32, m*ds.D)
	lab := make([]int8, m)
	for j, i := range rows {
		copy(x[j*ds.D:(j+1)*ds.D], ds.Row(i))
		lab[j] = labels[i]
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if err := training.FineTuneSAD(e.nw.Enc, x, m, ds.D, e.nw.Scaler, lab, o.Eta, o.LR, o.Epochs, 128, rng); err != nil {
		return nil, nil, err
	}
	var comb *models.Ensemble
	var s []float64
	if len(e.recon) == ds.N {
		// The training rows, whose reconstruction errors the fit kept: only the
		// encoders changed.
		dist, err := e.nw.distances(ctx, ds)
		if err != nil {
			return nil, nil, err
		}
		comb, s = refitDistances(e.comb, dist, e.recon)
	} else {
		dist, rec, err := e.nw.outputs(ctx, ds)
		if err != nil {
			return nil, nil, err
		}
		if comb, s, err = fitCombinationTaking(dist, rec, e.comb.DistanceWeight); err != nil {
			return nil, nil, err
		}
	}
	e.recon = nil
	if gd != nil && e.comb.GaussianWeight > 0 {
		if err := fitGaussian(comb, s, gd, e.comb.GaussianWeight); err != nil {
			return nil, nil, err
		}
	}
	e.comb = comb
	return s, comb, nil
}

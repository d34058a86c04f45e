package training

import (
	"math"

	"github.com/udocc/udocc/dynamics"
)

// allRows is the selector of OC and SB: every epoch trains on every row.
//
// OC has no threshold: Label returns no labels and +Inf. SB labels a row anomalous when
// its final eval-mode distance is outside the sphere of radius R, with R the (1−ν)
// quantile (linear interpolation, numpy's default) of the square-rooted eval-mode
// distances: Ruff's get_radius applied to the scores udocc reports. The R of the loss
// comes from train-mode minibatch distances (as in Ruff's code), which BatchNorm's batch
// statistics can make many times smaller than eval-mode ones, so it would flag nearly
// every row if used for labels.
type allRows struct {
	name string
	nu   float64
}

func (a *allRows) Name() string { return a.name }

func (a *allRows) Next(e int, scores []float64) ([]bool, dynamics.Record, error) {
	n := len(scores)
	return nil, dynamics.Record{
		Epoch: e, DeltaBar: math.NaN(), MinScaled: math.NaN(),
		SelectedRatio: math.NaN(), NextTrainSize: n, Threshold: math.NaN(),
	}, nil
}

func (a *allRows) Label(scores []float64) ([]bool, float64, error) {
	if a.name != "sb" {
		return nil, math.Inf(1), nil
	}
	roots := make([]float64, len(scores))
	for i, s := range scores {
		roots[i] = math.Sqrt(s)
	}
	r, err := dynamics.Quantile(roots, 1-a.nu)
	if err != nil {
		return nil, 0, err
	}
	thr := r * r
	labels := make([]bool, len(scores))
	for i, s := range scores {
		labels[i] = s > thr
	}
	return labels, thr, nil
}

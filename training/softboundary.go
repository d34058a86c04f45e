package training

import (
	"math"

	"github.com/udocc/udocc/dynamics"
)

// softBoundary is SB's selector: dynamics.All's schedule (every row, every epoch) with
// the labels of the sphere. A row is anomalous when its final eval-mode distance is
// outside the sphere of radius R, with R the (1−ν) quantile (linear interpolation,
// numpy's default) of the square-rooted eval-mode distances: Ruff's get_radius applied
// to the scores udocc reports. The R of the loss comes from train-mode minibatch
// distances (as in Ruff's code), which BatchNorm's batch statistics can make many times
// smaller than eval-mode ones, so it would flag nearly every row if used for labels.
type softBoundary struct {
	*dynamics.All
	nu float64
}

// Name returns "sb".
func (softBoundary) Name() string { return "sb" }

// Label implements dynamics.Selector.
func (a softBoundary) Label(scores []float64) ([]bool, float64, error) {
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

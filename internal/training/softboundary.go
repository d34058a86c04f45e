package training

import (
	"math"

	"github.com/udocc/udocc/internal/dynamics"
)

// softBoundary is SB's selector: dynamics.All's schedule (every row, every epoch) with
// the labels of the sphere ‖φ(x)−c‖² > R² (the paper's Table III classifies SB by its
// learned boundary).
//
// R is Ruff's get_radius, the (1−ν) quantile (linear interpolation, numpy's default) of
// the square-rooted distances, taken over the final eval-mode distances of all rows,
// the scores udocc reports and `score` computes; finetune stores it as the model's
// radius, so a saved model labels new rows by the same sphere. The R of the loss is the
// one of Ruff's training loop: updated after every minibatch from its train-mode
// distances. That last minibatch R is not the one used for labels: it belongs to the
// network with BatchNorm's batch statistics and to one minibatch (35 rows on satellite),
// and at the paper's settings its R² is 0.8–5.8 times the eval-mode one (above it in 87
// of 100 runs), so it flags far fewer rows than ν on most data sets (satellite 7% for
// ν = 32%): bench/notes/reproduction.md, "Soft-boundary labels".
type softBoundary struct {
	*dynamics.All
	nu float64
}

// Name returns "sb".
func (softBoundary) Name() string { return "sb" }

// radius is R for the eval-mode distances scores, in float32 as the network stores it.
func (a softBoundary) radius(scores []float64) (float32, error) {
	roots := make([]float64, len(scores))
	for i, s := range scores {
		roots[i] = math.Sqrt(s)
	}
	r, err := dynamics.Quantile(roots, 1-a.nu)
	return float32(r), err
}

// Label implements dynamics.Selector: rows outside the sphere of radius(scores), and
// the threshold R² in score units.
func (a softBoundary) Label(scores []float64) ([]bool, float64, error) {
	r, err := a.radius(scores)
	if err != nil {
		return nil, 0, err
	}
	thr := float64(r) * float64(r)
	labels := make([]bool, len(scores))
	for i, s := range scores {
		labels[i] = s > thr
	}
	return labels, thr, nil
}

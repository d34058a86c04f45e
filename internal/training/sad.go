package training

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/udocc/udocc/internal/parallel"
	"github.com/udocc/udocc/internal/scale"
	"github.com/udocc/udocc/internal/torch"
)

// FineTuneSAD fine-tunes each trained encoder of encs, in place, on the n rows of x
// (n × d, raw: sc standardises them as the shim reads them) by Deep SAD's loss (Ruff et
// al. 2020, Eq. (3); torch.Group.SetLabels): labels[i] is row i's answer, 1 normal, -1
// anomaly, 0 none, and eta weighs the answered rows' terms. Each encoder runs epochs
// epochs of Adam at lr, every row in minibatches of size rows drawn from r. The groups
// are left without data or labels.
//
// Every encoder's minibatches are drawn first, encoder after encoder, from r; the
// encoders then train on the fit's threads (torch.NumThreads), one a task. An encoder's
// training reads only its own plans, so the result does not depend on the thread count.
func FineTuneSAD(encs []*torch.Group, x []float32, n, d int, sc *scale.Scaler, labels []int8, eta, lr float64, epochs, size int, r *rand.Rand) error {
	if len(labels) != n {
		return fmt.Errorf("training: %d labels for %d rows", len(labels), n)
	}
	// plans[k][e] is encoder k's epoch e, about n row indices: epochs × len(encs) × n int32
	// in all (method.FineTune's n is the answered rows and at most 2,048 others: 2.5 MB).
	plans := make([][]torch.Plan, len(encs))
	pl := newPlanner(n, size, 1)
	for k := range encs {
		plans[k] = make([]torch.Plan, epochs)
		for e := range epochs {
			pl.draw(0, r, nil, false)
			plans[k][e] = clonePlan(pl.layout())
		}
	}
	return parallel.ForErr(len(encs), torch.NumThreads(), func(k int) error {
		g := encs[k]
		obj := torch.Objective{Soft: []uint8{0}, Nu: []float64{0}, UpdateR: []uint8{0}}
		if err := g.SetDataScaled(x, n, d, sc.Mean, sc.Scale); err != nil {
			return err
		}
		if err := g.SetLabels(labels, eta); err != nil {
			return err
		}
		if err := g.ResetAdam(torch.Encoder, []float64{lr}, []float64{0}); err != nil {
			return err
		}
		for e := range plans[k] {
			if _, err := g.TrainEpoch(&plans[k][e], obj, nil); err != nil {
				return err
			}
		}
		if err := g.SetLabels(nil, 0); err != nil {
			return err
		}
		return g.DropData()
	})
}

// clonePlan is a copy of p that owns its slices (a planner's layout is its own, valid
// until its next layout).
func clonePlan(p *torch.Plan) torch.Plan {
	return torch.Plan{Steps: p.Steps, Width: p.Width, Rows: slices.Clone(p.Rows), Counts: slices.Clone(p.Counts), Extra: slices.Clone(p.Extra), Train: slices.Clone(p.Train)}
}

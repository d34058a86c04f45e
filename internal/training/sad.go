package training

import (
	"fmt"
	"math/rand/v2"

	"github.com/udocc/udocc/internal/scale"
	"github.com/udocc/udocc/internal/torch"
)

// FineTuneSAD fine-tunes each trained encoder of encs, in place, on the n rows of x
// (n × d, raw: sc standardises them as the shim reads them) by Deep SAD's loss (Ruff et
// al. 2020, Eq. (3); torch.Group.SetLabels): labels[i] is row i's answer, 1 normal, -1
// anomaly, 0 none, and eta weighs the answered rows' terms. Each encoder runs epochs
// epochs of Adam at lr, every row in minibatches of size rows drawn from r. The groups
// are left without data or labels.
func FineTuneSAD(encs []*torch.Group, x []float32, n, d int, sc *scale.Scaler, labels []int8, eta, lr float64, epochs, size int, r *rand.Rand) error {
	if len(labels) != n {
		return fmt.Errorf("training: %d labels for %d rows", len(labels), n)
	}
	obj := torch.Objective{Soft: []uint8{0}, Nu: []float64{0}, UpdateR: []uint8{0}}
	pl := newPlanner(n, size, 1)
	for _, g := range encs {
		if err := g.SetDataScaled(x, n, d, sc.Mean, sc.Scale); err != nil {
			return err
		}
		if err := g.SetLabels(labels, eta); err != nil {
			return err
		}
		if err := g.ResetAdam(torch.Encoder, []float64{lr}, []float64{0}); err != nil {
			return err
		}
		for range epochs {
			pl.draw(0, r, nil, false)
			if _, err := g.TrainEpoch(pl.layout(), obj, nil); err != nil {
				return err
			}
		}
		if err := g.SetLabels(nil, 0); err != nil {
			return err
		}
		if err := g.DropData(); err != nil {
			return err
		}
	}
	return nil
}

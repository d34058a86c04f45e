package training

import (
	"fmt"

	"github.com/udocc/udocc/internal/stats"
)

// scoreRun is, for the m x d row-major rows x (as FitGroup was given its rows:
// standardised here by the fit's Config.Scaler, if it had one), every member's
// eval-mode distance to its center and its pretrained autoencoder's reconstruction
// errors, member after member: what the udocc package scores a fit's rows with.
func scoreRun(r *Run, x []float32, m, d int) (dist, rec [][]float64, err error) {
	if r.group == nil || r.pre == nil {
		return nil, nil, fmt.Errorf("the run is closed")
	}
	xs := x
	if r.scaler != nil {
		xs = make([]float32, len(x))
		r.scaler.Standardise(xs, x)
	}
	ds, err := r.group.DistancesOf(xs, m, d)
	if err != nil {
		return nil, nil, err
	}
	rs, err := r.pre.ReconstructionOf(xs, m, d)
	if err != nil {
		return nil, nil, err
	}
	for k, s := range r.seedOf {
		dist = append(dist, stats.Widen(nil, ds[k*m:(k+1)*m]))
		rec = append(rec, stats.Widen(nil, rs[s*m:(s+1)*m]))
	}
	return dist, rec, nil
}

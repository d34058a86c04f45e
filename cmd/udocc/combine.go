package main

import (
	"github.com/udocc/udocc/models"
	"github.com/udocc/udocc/threshold"
	"github.com/udocc/udocc/training"
)

// combine scores the rows with the ensemble method: the members' distances and
// autoencoder reconstruction errors combined by training.Ensemble, thresholded by
// --threshold's rule or, when given, by --contamination.
func (f *fitted) combine(o fitOptions) error {
	rs := f.run.Results
	dist := make([][]float64, len(rs))
	rec := make([][]float64, len(rs))
	for k, r := range rs {
		dist[k], rec[k] = r.Scores, r.Reconstruction
	}
	ens, scores, err := models.FitEnsemble(dist, rec, training.DistanceWeight)
	if err != nil {
		return err
	}
	thr, err := threshold.ByContamination(scores, o.threshold, o.contamination)
	if err != nil {
		return err
	}
	f.ens, f.scores, f.thr = ens, scores, thr
	f.labels = threshold.Labels(scores, thr)
	return nil
}

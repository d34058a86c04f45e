package main

import (
	"fmt"
	"slices"

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
	thr, err := ensembleThresholdOf(scores, o.threshold, o.contamination)
	if err != nil {
		return err
	}
	f.ens, f.scores, f.thr = ens, scores, thr
	f.labels = threshold.Labels(scores, thr)
	return nil
}

// ensembleThresholdOf is rule's threshold of scores, or, for a contamination c > 0,
// the threshold that flags the round(c·n) highest scores (at least one; fewer when
// rows tie with the last of them, since a row is flagged only above the threshold).
func ensembleThresholdOf(scores []float64, rule string, c float64) (float64, error) {
	if c > 0 {
		s := slices.Clone(scores)
		slices.Sort(s)
		k := max(1, int(c*float64(len(s))+0.5))
		if k >= len(s) {
			return 0, fmt.Errorf("--contamination %g flags all %d rows", c, len(s))
		}
		return s[len(s)-k-1], nil
	}
	r, err := threshold.ByName(rule)
	if err != nil {
		return 0, err
	}
	return r.Threshold(scores)
}

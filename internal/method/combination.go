package method

import (
	"fmt"

	"github.com/udocc/udocc/internal/models"
)

// The ensemble's combination of its members' scores (models.Ensemble, saved in
// model.json): fitted on the training rows here, and applied to new rows the same way.

// fitGaussian learns the robust scales of the networks' scores s and the Gaussian's
// distances gd over the training rows, sets the Gaussian's weight w, and mixes gd into
// s in place (mixGaussian).
func fitGaussian(e *models.Ensemble, s, gd []float64, w float64) error {
	if !(w > 0 && w <= 1) {
		return fmt.Errorf("method: Gaussian weight %g is not in (0, 1]", w)
	}
	if len(s) != len(gd) {
		return fmt.Errorf("method: %d Gaussian distances for %d scores", len(gd), len(s))
	}
	e.GaussianWeight, e.NetworksScale, e.GaussianScale = w, models.FitScale(s), models.FitScale(gd)
	mixGaussian(e, s, gd)
	return nil
}

// mixGaussian turns the networks' scores s into the model's in place, mixing in the
// Gaussian's distances gd (one a row); s is unchanged where the ensemble has no Gaussian.
func mixGaussian(e *models.Ensemble, s, gd []float64) {
	g := e.GaussianWeight
	if g == 0 {
		return
	}
	for i, v := range s {
		s[i] = (1-g)*e.NetworksScale.Z(v) + g*e.GaussianScale.Z(gd[i])
	}
}

// FitCombination learns the scales of an ensemble from the training rows' scores
// (dist[k] and rec[k] of member k, all of one length) and returns it with the combined
// training scores. rec may be nil when w = 1.
func FitCombination(dist, rec [][]float64, w float64) (*models.Ensemble, []float64, error) {
	e, s, _, err := fitCombination(dist, rec, w, false)
	return e, s, err
}

// fitCombinationTaking is FitCombination with distances and reconstruction errors of either
// precision (float32 ones give the numbers of their float64 widening), for a caller that
// has no use for the reconstruction errors afterwards: once their mean is formed it lets
// them go (every rec[k] = nil) and collects them before the distances are combined, so
// that a large table's K error vectors and the combination's n-sized ones do not stand
// at once. The combination and the scores are FitCombination's.
func fitCombinationTaking[D, R models.Real](dist [][]D, rec [][]R, w float64) (*models.Ensemble, []float64, error) {
	e, s, _, err := fitCombination(dist, rec, w, true)
	return e, s, err
}

// fitCombination is FitCombination, letting rec go when take is set, and also returns
// rm, the rows' mean scaled reconstruction errors (nil when w = 1). The reconstruction
// errors are combined first, so that with take only their mean stands beside the
// distances' combination.
func fitCombination[D, R models.Real](dist [][]D, rec [][]R, w float64, take bool) (e *models.Ensemble, scores, rm []float64, err error) {
	if !(w >= 0 && w <= 1) {
		return nil, nil, nil, fmt.Errorf("method: distance weight %g is not in [0, 1]", w)
	}
	if len(dist) == 0 {
		return nil, nil, nil, fmt.Errorf("method: an ensemble needs at least one member")
	}
	if w < 1 && len(rec) != len(dist) {
		return nil, nil, nil, fmt.Errorf("method: %d reconstruction scores for %d members", len(rec), len(dist))
	}
	e = &models.Ensemble{DistanceWeight: w}
	if w < 1 {
		for _, r := range rec {
			e.Recon = append(e.Recon, models.FitScaleOf(r))
		}
		rm = meanOf(rec, e.Recon)
		e.ReconMean = models.FitScale(rm)
		if take {
			clear(rec) // for the pacer: a forced collection here made no difference to the peak
		}
	}
	return e, fitDistances(e, dist, rm), rm, nil
}

// fitDistances fits e's distance scales on dist and returns the rows' combined scores,
// rm their mean scaled reconstruction errors (nil when w = 1). The scores are ScoreOf's,
// mixed from the means just computed rather than from a second pass over the members:
// two n-sized vectors fewer at the peak of a large table's fit.
func fitDistances[D models.Real](e *models.Ensemble, dist [][]D, rm []float64) []float64 {
	for _, d := range dist {
		e.Distance = append(e.Distance, models.FitScaleOf(d))
	}
	dm := meanOf(dist, e.Distance)
	e.DistanceMean = models.FitScale(dm)
	mix(e, dm, rm)
	return dm
}

// refitDistances is fitCombination's combination and scores where only the distances
// changed: the reconstruction errors' scales are e's, and rm their mean scaled errors on
// the rows (meanOf with e.Recon). On the rows e was fitted on, with rm kept from that
// fit, it gives fitCombination's results without the autoencoders' second pass.
func refitDistances[D models.Real](e *models.Ensemble, dist [][]D, rm []float64) (*models.Ensemble, []float64) {
	c := &models.Ensemble{DistanceWeight: e.DistanceWeight, Recon: e.Recon, ReconMean: e.ReconMean}
	return c, fitDistances(c, dist, rm)
}

// scoreCombined combines the members' scores of any rows, training or new, with e's
// scales; the scores may be of either precision (fitCombinationTaking).
func scoreCombined[D, R models.Real](e *models.Ensemble, dist [][]D, rec [][]R) ([]float64, error) {
	if len(dist) != len(e.Distance) {
		return nil, fmt.Errorf("method: %d distance scores for an ensemble of %d", len(dist), len(e.Distance))
	}
	out := meanOf(dist, e.Distance)
	if e.DistanceWeight == 1 {
		mix(e, out, nil)
		return out, nil
	}
	if len(rec) != len(e.Recon) {
		return nil, fmt.Errorf("method: %d reconstruction scores for an ensemble of %d", len(rec), len(e.Recon))
	}
	mix(e, out, meanOf(rec, e.Recon))
	return out, nil
}

// mix turns dm, the members' mean scaled distances, into the combined scores in place:
// w · z_D(dm) + (1 − w) · z_R(rm), with rm the mean scaled reconstruction errors (nil when
// w = 1).
func mix(e *models.Ensemble, dm, rm []float64) {
	w := e.DistanceWeight
	e.DistanceMean.ApplyTo(dm, dm)
	for i := range dm {
		dm[i] *= w
	}
	if w == 1 {
		return
	}
	for i := range dm {
		dm[i] += (1 - w) * e.ReconMean.Z(rm[i])
	}
}

// meanOf is the mean over members of each member's scaled scores.
func meanOf[R models.Real](ss [][]R, scales []models.Scale) []float64 {
	out := make([]float64, len(ss[0]))
	for k, s := range ss {
		for i, v := range s {
			out[i] += scales[k].Z(float64(v)) / float64(len(ss))
		}
	}
	return out
}

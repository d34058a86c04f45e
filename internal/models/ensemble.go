package models

import (
	"fmt"

	"github.com/udocc/udocc/internal/stats"
)

// Scale is a robust standardisation of one score vector, learnt on the training rows so
// that new rows are mapped the same way: (s − Median) / Spread.
type Scale struct {
	Median float64 `json:"median"`
	Spread float64 `json:"spread"` // the median absolute deviation, or a fallback when it is 0
}

// FitScale learns the median and the median absolute deviation (MAD) of s
// (stats.MedianDeviation). A MAD of 0 (more than half the rows share one score) falls back
// to the mean absolute deviation, then to 1, so Apply never divides by zero.
func FitScale(s []float64) Scale { return fitScale(s) }

// Real is the type of a member's scores: float64, or float32 as the shim computes them
// (their exact widening is what the float64 ones hold), which a large table's rescoring
// combines unwidened, at half the memory.
type Real = stats.Real

func fitScale[R Real](s []R) Scale {
	if len(s) == 0 {
		return Scale{Spread: 1}
	}
	// One copy of s, overwritten by stats.MedianDeviation: a second n-sized copy would add
	// 8 bytes a row to a fit's peak memory.
	med, spread := stats.MedianDeviation(stats.Widen(nil, s))
	if !(spread > 0) {
		spread = 1
	}
	return Scale{Median: med, Spread: spread}
}

// Apply maps s to robust z-scores.
func (sc Scale) Apply(s []float64) []float64 {
	out := make([]float64, len(s))
	sc.applyTo(out, s)
	return out
}

// applyTo is Apply into dst, which may be s: scores combined over a large table are
// scaled in place, not through an n-sized copy per step.
func (sc Scale) applyTo(dst, s []float64) {
	for i, v := range s {
		dst[i] = sc.z(v)
	}
}

func (sc Scale) z(v float64) float64 { return (v - sc.Median) / sc.Spread }

// Ensemble combines the scores of a seed ensemble into one anomaly score. Every member
// gives two scores per row: its encoder's distance ||φ(x)−c||² (Eq. (3)) and its
// pretraining autoencoder's reconstruction error. Each is put on a robust z scale
// learnt on the training rows (Scale), averaged over members, put on a robust z scale
// again, and the two are mixed:
//
//	score(x) = w · z_D(mean_k z_{D,k}(x)) + (1 − w) · z_R(mean_k z_{R,k}(x))
//
// with w = DistanceWeight. The robust scales make members and the two kinds of score
// comparable whatever their units; learnt once, they score new rows exactly as the
// training rows were scored.
type Ensemble struct {
	DistanceWeight float64 `json:"distance_weight"` // w in [0, 1]
	Distance       []Scale `json:"distance"`        // per member
	Recon          []Scale `json:"reconstruction"`  // per member; empty when w = 1
	DistanceMean   Scale   `json:"distance_mean"`
	ReconMean      Scale   `json:"reconstruction_mean"`
	// GaussianWeight g, for a wide table read through its principal components, mixes
	// the Ledoit–Wolf Gaussian's squared Mahalanobis distance G of the row's columns
	// (Projection.Gaussian) into the networks' score N above:
	//
	//	score(x) = (1 − g) · z_N(N(x)) + g · z_G(G(x))
	//
	// each on a robust z scale learnt on the training rows. 0 where there is none.
	GaussianWeight float64 `json:"gaussian_weight,omitempty"`
	NetworksScale  Scale   `json:"networks_scale,omitzero"`
	GaussianScale  Scale   `json:"gaussian_scale,omitzero"`
}

// FitGaussian learns the robust scales of the networks' scores s and the Gaussian's
// distances gd over the training rows, sets the Gaussian's weight w, and mixes gd into
// s in place (MixGaussian).
func (e *Ensemble) FitGaussian(s, gd []float64, w float64) error {
	if !(w > 0 && w <= 1) {
		return fmt.Errorf("models: Gaussian weight %g is not in (0, 1]", w)
	}
	if len(s) != len(gd) {
		return fmt.Errorf("models: %d Gaussian distances for %d scores", len(gd), len(s))
	}
	e.GaussianWeight, e.NetworksScale, e.GaussianScale = w, FitScale(s), FitScale(gd)
	e.MixGaussian(s, gd)
	return nil
}

// MixGaussian turns the networks' scores s into the model's in place, mixing in the
// Gaussian's distances gd (one a row); s is unchanged where the ensemble has no Gaussian.
func (e *Ensemble) MixGaussian(s, gd []float64) {
	g := e.GaussianWeight
	if g == 0 {
		return
	}
	for i, v := range s {
		s[i] = (1-g)*e.NetworksScale.z(v) + g*e.GaussianScale.z(gd[i])
	}
}

// FitEnsemble learns the scales of an ensemble from the training rows' scores
// (dist[k] and rec[k] of member k, all of one length) and returns it with the combined
// training scores. rec may be nil when w = 1.
func FitEnsemble(dist, rec [][]float64, w float64) (*Ensemble, []float64, error) {
	return fitEnsemble(dist, rec, w, false)
}

// FitEnsembleTaking is FitEnsemble with distances and reconstruction errors of either
// precision (float32 ones give the numbers of their float64 widening), for a caller that
// has no use for the reconstruction errors afterwards: once their mean is formed it lets
// them go (every rec[k] = nil) and collects them before the distances are combined, so
// that a large table's K error vectors and the combination's n-sized ones do not stand
// at once. The ensemble and the scores are FitEnsemble's.
func FitEnsembleTaking[D, R Real](dist [][]D, rec [][]R, w float64) (*Ensemble, []float64, error) {
	return fitEnsemble(dist, rec, w, true)
}

// fitEnsemble is FitEnsemble, letting rec go when take is set. The reconstruction
// errors are combined first, so that with take only their mean stands beside the
// distances' combination.
func fitEnsemble[D, R Real](dist [][]D, rec [][]R, w float64, take bool) (*Ensemble, []float64, error) {
	if !(w >= 0 && w <= 1) {
		return nil, nil, fmt.Errorf("models: distance weight %g is not in [0, 1]", w)
	}
	if len(dist) == 0 {
		return nil, nil, fmt.Errorf("models: an ensemble needs at least one member")
	}
	if w < 1 && len(rec) != len(dist) {
		return nil, nil, fmt.Errorf("models: %d reconstruction scores for %d members", len(rec), len(dist))
	}
	e := &Ensemble{DistanceWeight: w}
	var rm []float64
	if w < 1 {
		for _, r := range rec {
			e.Recon = append(e.Recon, fitScale(r))
		}
		rm = meanOf(rec, e.Recon)
		e.ReconMean = FitScale(rm)
		if take {
			clear(rec) // for the pacer: a forced collection here made no difference to the peak
		}
	}
	for _, d := range dist {
		e.Distance = append(e.Distance, fitScale(d))
	}
	dm := meanOf(dist, e.Distance)
	e.DistanceMean = FitScale(dm)
	// The training rows' scores are ScoreOf's, mixed from the means just computed rather
	// than from a second pass over the members: two n-sized vectors fewer at the peak of
	// a large table's fit.
	e.mix(dm, rm)
	return e, dm, nil
}

// Score combines member scores of any rows (training or new) with the learnt scales.
func (e *Ensemble) Score(dist, rec [][]float64) ([]float64, error) { return ScoreOf(e, dist, rec) }

// ScoreOf is e.Score with scores of either precision (FitEnsembleTaking).
func ScoreOf[D, R Real](e *Ensemble, dist [][]D, rec [][]R) ([]float64, error) {
	if len(dist) != len(e.Distance) {
		return nil, fmt.Errorf("models: %d distance scores for an ensemble of %d", len(dist), len(e.Distance))
	}
	out := meanOf(dist, e.Distance)
	if e.DistanceWeight == 1 {
		e.mix(out, nil)
		return out, nil
	}
	if len(rec) != len(e.Recon) {
		return nil, fmt.Errorf("models: %d reconstruction scores for an ensemble of %d", len(rec), len(e.Recon))
	}
	e.mix(out, meanOf(rec, e.Recon))
	return out, nil
}

// mix turns dm, the members' mean scaled distances, into the combined scores in place:
// w · z_D(dm) + (1 − w) · z_R(rm), with rm the mean scaled reconstruction errors (nil when
// w = 1).
func (e *Ensemble) mix(dm, rm []float64) {
	w := e.DistanceWeight
	e.DistanceMean.applyTo(dm, dm)
	for i := range dm {
		dm[i] *= w
	}
	if w == 1 {
		return
	}
	for i := range dm {
		dm[i] += (1 - w) * e.ReconMean.z(rm[i])
	}
}

// meanOf is the mean over members of each member's scaled scores.
func meanOf[R Real](ss [][]R, scales []Scale) []float64 {
	out := make([]float64, len(ss[0]))
	for k, s := range ss {
		for i, v := range s {
			out[i] += scales[k].z(float64(v)) / float64(len(ss))
		}
	}
	return out
}

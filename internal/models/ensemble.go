package models

import "github.com/udocc/udocc/internal/stats"

// Scale is a robust standardisation of one score vector, learnt on the training rows so
// that new rows are mapped the same way: (s − Median) / Spread.
type Scale struct {
	Median float64 `json:"median"`
	Spread float64 `json:"spread"` // the median absolute deviation, or a fallback when it is 0
}

// FitScale learns the median and the median absolute deviation (MAD) of s
// (stats.MedianDeviation). A MAD of 0 (more than half the rows share one score) falls back
// to the mean absolute deviation, then to 1, so Apply never divides by zero.
func FitScale(s []float64) Scale { return FitScaleOf(s) }

// Real is the type of a member's scores: float64, or float32 as the shim computes them
// (their exact widening is what the float64 ones hold), which a large table's rescoring
// combines unwidened, at half the memory.
type Real = stats.Real

// FitScaleOf is FitScale of scores of either precision.
func FitScaleOf[R Real](s []R) Scale {
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
	sc.ApplyTo(out, s)
	return out
}

// ApplyTo is Apply into dst, which may be s: scores combined over a large table are
// scaled in place, not through an n-sized copy per step.
func (sc Scale) ApplyTo(dst, s []float64) {
	for i, v := range s {
		dst[i] = sc.Z(v)
	}
}

// Z is v's robust z-score.
func (sc Scale) Z(v float64) float64 { return (v - sc.Median) / sc.Spread }

// Ensemble is the saved combination of a seed ensemble's scores into one anomaly score
// (package method fits and applies it). Every member
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

package threshold

import (
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/udocc/udocc/internal/stats"
)

// The rules in this file are location plus a multiple of a spread, so each
// is equivariant under a shift and a positive scaling of the scores:
// Threshold(a·x + b) = a·Threshold(x) + b for a > 0. When the spread is 0
// the threshold is the location and only scores above it are flagged.

// madScale makes the median absolute deviation a consistent estimator of the
// standard deviation of a normal distribution: 1/Φ⁻¹(3/4) ≈ 1.4826.
const madScale = 1.4826

// MAD flags scores above median + K·1.4826·MAD, where
// MAD = median(|x − median(x)|): the robust analogue of mean + K·σ
// (Hampel's identifier; PyThresh's MAD).
type MAD struct {
	// K is the number of scaled MADs above the median; 0 means 3.
	K float64
}

// Name returns "mad".
func (MAD) Name() string { return "mad" }

// Threshold returns median + K·1.4826·MAD.
func (r MAD) Threshold(scores []float64) (float64, error) {
	x, err := sorted(scores)
	if err != nil {
		return 0, err
	}
	k := r.K
	if k == 0 {
		k = 3
	}
	med, mad := stats.MAD(x)
	return med + k*madScale*mad, nil
}

// IQR flags scores above Q3 + K·(Q3 − Q1), Tukey's upper fence, with
// quartiles by linear interpolation (numpy's default; PyThresh's IQR).
type IQR struct {
	// K is the fence multiplier; 0 means 1.5.
	K float64
}

// Name returns "iqr".
func (IQR) Name() string { return "iqr" }

// Threshold returns Q3 + K·(Q3 − Q1).
func (r IQR) Threshold(scores []float64) (float64, error) {
	x, err := sorted(scores)
	if err != nil {
		return 0, err
	}
	k := r.K
	if k == 0 {
		k = 1.5
	}
	q1, q3 := stats.Quantile(x, 0.25), stats.Quantile(x, 0.75)
	return q3 + k*(q3-q1), nil
}

// ModZ flags scores whose modified z-score M = 0.6745·(x − median)/MAD
// exceeds Z (Iglewicz and Hoaglin 1993, "How to Detect and Handle
// Outliers", who recommend Z = 3.5). Solved for x, the threshold is
// median + Z·MAD/0.6745; 0.6745 = Φ⁻¹(3/4).
type ModZ struct {
	// Z is the cut on the modified z-score; 0 means 3.5.
	Z float64
}

// Name returns "modz".
func (ModZ) Name() string { return "modz" }

// Threshold returns median + Z·MAD/0.6745.
func (r ModZ) Threshold(scores []float64) (float64, error) {
	x, err := sorted(scores)
	if err != nil {
		return 0, err
	}
	z := r.Z
	if z == 0 {
		z = 3.5
	}
	med, mad := stats.MAD(x)
	return med + z*mad/0.6745, nil
}

// ZScore flags scores above mean + K·σ, σ the population standard
// deviation (ddof 0, as scipy.stats.zscore; PyThresh's ZSCORE).
type ZScore struct {
	// K is the number of standard deviations; 0 means 3.
	K float64
}

// Name returns "zscore".
func (ZScore) Name() string { return "zscore" }

// Threshold returns mean + K·σ.
func (r ZScore) Threshold(scores []float64) (float64, error) {
	x, err := sorted(scores)
	if err != nil {
		return 0, err
	}
	k := r.K
	if k == 0 {
		k = 3
	}
	m, s := meanStd(x, 0)
	return m + k*s, nil
}

// Chauvenet applies Chauvenet's criterion once to the upper tail: a score is
// rejected when the expected number of rows at least as far from the mean,
// n·P(|Z| > z) with z = (x − mean)/s, is below 1/2 (Taylor, "An
// Introduction to Error Analysis", §6.2). P(|Z| > z) = 1/(2n) gives
// z = Φ⁻¹(1 − 1/(4n)), so the threshold is mean + s·Φ⁻¹(1 − 1/(4n)), s the
// sample standard deviation (ddof 1). It is one pass, not iterated: the
// iterated criterion rejects ever more rows of a heavy-tailed score vector.
type Chauvenet struct{}

// Name returns "chauvenet".
func (Chauvenet) Name() string { return "chauvenet" }

// Threshold returns mean + s·Φ⁻¹(1 − 1/(4n)).
func (Chauvenet) Threshold(scores []float64) (float64, error) {
	x, err := sorted(scores)
	if err != nil {
		return 0, err
	}
	m, s := meanStd(x, 1)
	z := distuv.UnitNormal.Quantile(1 - 0.25/float64(len(x)))
	return m + s*z, nil
}

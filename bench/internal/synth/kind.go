package synth

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Kind names one of ADBench's four types of realistic synthetic anomalies
// (Han et al., NeurIPS 2022, Section 3.3).
type Kind string

// The four kinds of anomalies; the package comment gives their exact
// definitions.
const (
	// Local anomalies come from the normals' Gaussian mixture with every
	// covariance scaled by Alpha.
	Local Kind = "local"
	// Global anomalies are uniform over the normals' bounding box widened by
	// Widen of each feature's range on each side.
	Global Kind = "global"
	// Dependency anomalies draw every feature independently from a Gaussian
	// KDE of that feature's normal values, which keeps the marginals and
	// breaks the dependence between features.
	Dependency Kind = "dependency"
	// Clustered anomalies come from the normals' Gaussian mixture with every
	// component mean moved away from the normals' per-feature minimum by the
	// factor Beta.
	Clustered Kind = "clustered"
	// Shifted anomalies are normal rows with one to three of their features, chosen at
	// random among the non-constant ones, moved up or down by Shift standard deviations
	// of the normals: the features that make each anomaly are known
	// (Generator.TableCauses), so that explanations can be checked against them. It is
	// not one of ADBench's kinds and not in Kinds.
	Shifted Kind = "shifted"
)

// Kinds returns the four kinds in ADBench's order: local, global,
// dependency, clustered.
func Kinds() []Kind { return []Kind{Local, Global, Dependency, Clustered} }

// Valid reports whether k is one of the four kinds.
func (k Kind) Valid() bool {
	switch k {
	case Local, Global, Dependency, Clustered, Shifted:
		return true
	}
	return false
}

// needsMixture reports whether generating k uses the Gaussian mixture.
func (k Kind) needsMixture() bool { return k == Local || k == Clustered }

// Ratios are the anomaly ratios anomalies/(normals+anomalies) of the
// benchmark grid: 1, 2, 5, 10, 20 and 35 %.
var Ratios = []float64{0.01, 0.02, 0.05, 0.10, 0.20, 0.35}

// Sentinel errors; every error of this package wraps one of them.
var (
	// ErrKind reports a Kind other than the four of Kinds.
	ErrKind = errors.New("unknown anomaly kind")
	// ErrRatio reports an anomaly ratio outside (0, 1).
	ErrRatio = errors.New("anomaly ratio not in (0, 1)")
	// ErrInput reports normals that are not an n×d finite matrix with
	// n, d ≥ 1, or a data set without labels.
	ErrInput = errors.New("invalid normal rows")
	// ErrOptions reports invalid Options.
	ErrOptions = errors.New("invalid options")
	// ErrFit reports a Gaussian mixture whose covariance stays singular
	// after regularisation.
	ErrFit = errors.New("gaussian mixture fit failed")
)

// AnomalyCount returns the number of anomalies to add to normals normal
// rows so that anomalies/(normals+anomalies) is ratio:
// round(ratio·normals/(1−ratio)), at least 1. It panics if ratio is not in
// (0, 1) or normals < 1.
func AnomalyCount(normals int, ratio float64) int {
	if !(ratio > 0 && ratio < 1) || normals < 1 {
		panic(fmt.Sprintf("synth: AnomalyCount(%d, %v)", normals, ratio))
	}
	return max(1, int(math.Round(ratio*float64(normals)/(1-ratio))))
}

// Spec names one semi-synthetic table: the base data set, the kind of
// anomalies, their ratio and the seed of the generation.
type Spec struct {
	// Base is the name of the real data set whose normals are kept
	// ("cardio").
	Base string
	// Kind is the kind of injected anomalies.
	Kind Kind
	// Ratio is anomalies/(normals+anomalies) in (0, 1), e.g. 0.05.
	Ratio float64
	// Seed seeds the fit of the mixture, the sampling and the shuffle.
	Seed uint64
}

// Name returns "<base>-<kind>-<percent>", e.g. "cardio-local-5" for a ratio
// of 0.05 ("local-5" when Base is empty). The percentage is printed with as
// few digits as it needs ("2.5" for 0.025).
func (s Spec) Name() string {
	pct := strconv.FormatFloat(math.Round(s.Ratio*1e8)/1e6, 'f', -1, 64)
	if s.Base == "" {
		return string(s.Kind) + "-" + pct
	}
	return s.Base + "-" + string(s.Kind) + "-" + pct
}

// Validate reports an unknown kind or a ratio outside (0, 1).
func (s Spec) Validate() error {
	return validate(s.Kind, s.Ratio)
}

func validate(kind Kind, ratio float64) error {
	if !kind.Valid() {
		return fmt.Errorf("synth: %q: %w", kind, ErrKind)
	}
	if !(ratio > 0 && ratio < 1) {
		return fmt.Errorf("synth: ratio %v: %w", ratio, ErrRatio)
	}
	return nil
}

package threshold

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Sentinel errors, wrapped with details; branch with errors.Is.
var (
	// ErrEmpty reports an empty score vector.
	ErrEmpty = errors.New("no scores")
	// ErrNonFinite reports a NaN or infinite score.
	ErrNonFinite = errors.New("score is NaN or infinite")
	// ErrUnknownRule reports a name ByName does not know.
	ErrUnknownRule = errors.New("unknown thresholding rule")
)

// Rule is a label-free thresholding rule. Threshold returns t in score
// units such that a row is anomalous when its score > t. It returns an
// error for an empty input or a non-finite score and never modifies scores.
type Rule interface {
	Name() string
	Threshold(scores []float64) (float64, error)
}

// Labels returns scores[i] > thr for every row.
func Labels(scores []float64, thr float64) []bool {
	out := make([]bool, len(scores))
	for i, s := range scores {
		out[i] = s > thr
	}
	return out
}

// Ratio returns the fraction of rows with score > thr, in [0, 1]; 0 for no
// rows.
func Ratio(scores []float64, thr float64) float64 {
	if len(scores) == 0 {
		return 0
	}
	k := 0
	for _, s := range scores {
		if s > thr {
			k++
		}
	}
	return float64(k) / float64(len(scores))
}

// All returns every rule with its default settings, in a fixed order.
func All() []Rule {
	return []Rule{
		MAD{}, IQR{}, ModZ{}, ZScore{}, Chauvenet{}, GESD{},
		GMM{}, GMM{Log: true}, GMMBIC{},
		KMeans{}, Otsu{},
		Comb{},
	}
}

// ByName returns the rule of All whose Name is name.
func ByName(name string) (Rule, error) {
	for _, r := range All() {
		if r.Name() == name {
			return r, nil
		}
	}
	return nil, fmt.Errorf("threshold: %q: %w", name, ErrUnknownRule)
}

// sorted validates scores and returns an ascending copy.
func sorted(scores []float64) ([]float64, error) {
	if len(scores) == 0 {
		return nil, ErrEmpty
	}
	for i, s := range scores {
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return nil, fmt.Errorf("threshold: scores[%d] = %v: %w", i, s, ErrNonFinite)
		}
	}
	x := slices.Clone(scores)
	slices.Sort(x)
	return x, nil
}

// meanStd returns the mean and the standard deviation of x with ddof
// degrees of freedom removed from the divisor (0: population, 1: sample);
// the deviation is 0 when len(x) <= ddof.
func meanStd(x []float64, ddof int) (float64, float64) {
	var m float64
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	if len(x) <= ddof {
		return m, 0
	}
	var ss float64
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return m, math.Sqrt(ss / float64(len(x)-ddof))
}

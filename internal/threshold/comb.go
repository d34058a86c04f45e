package threshold

import (
	"fmt"
	"slices"
)

// Comb combines several rules by majority vote of their labels: a row is
// anomalous when more than half of the rules flag it. PyThresh's COMB
// averages the member rules' 0/1 labels and cuts the mean at 1/2; a strict
// majority is the same cut. Every member flags an upper set of scores
// (score > tⱼ), so a score is flagged by #{j : tⱼ < score} members, and the
// vote reduces to an order statistic of the members' thresholds: with the m
// thresholds ascending, the threshold is the (⌊m/2⌋ + 1)-th, the median for
// odd m. A vote is used rather than a mean of thresholds because one rule
// that fails badly on a data set (a threshold far out in the tail, or at
// the median) moves a mean arbitrarily but moves the vote by at most one
// rank.
type Comb struct {
	// Rules are the members; nil means DefaultCombRules().
	Rules []Rule
}

// DefaultCombRules returns Comb's default members: one rule from each
// family, an odd number so the vote is the median threshold.
func DefaultCombRules() []Rule {
	return []Rule{MAD{}, IQR{}, GESD{}, GMM{Log: true}, KMeans{}}
}

// Name returns "comb".
func (Comb) Name() string { return "comb" }

// Threshold returns the (⌊m/2⌋ + 1)-th smallest member threshold.
func (r Comb) Threshold(scores []float64) (float64, error) {
	rules := r.Rules
	if rules == nil {
		rules = DefaultCombRules()
	}
	if len(rules) == 0 {
		return 0, fmt.Errorf("threshold: comb: no member rules")
	}
	ts := make([]float64, len(rules))
	for j, m := range rules {
		t, err := m.Threshold(scores)
		if err != nil {
			return 0, fmt.Errorf("threshold: comb: %s: %w", m.Name(), err)
		}
		ts[j] = t
	}
	slices.Sort(ts)
	return ts[len(ts)/2], nil
}

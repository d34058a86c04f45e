package threshold

import (
	"fmt"
	"math"
)

// costly are the rules whose cost grows with rows times iterations (EM run to
// convergence, GESD's one test per candidate outlier).
var costly = map[string]bool{"gmm": true, "gmm-log": true, "gmm-bic": true, "gesd": true, "comb": true}

// Above more than CostlyAbove scores, ShareOf counts a costly rule on CostlyRows evenly
// spaced ones.
const CostlyAbove, CostlyRows = 10000, 5000

// ShareOf is the share of scores that rule flags. A rule whose cost grows with rows
// times iterations (gmm, gmm-log, gmm-bic, gesd, comb) counts, on more than CostlyAbove
// scores, on CostlyRows evenly spaced ones of them (in their order), which keeps it to a
// fraction of a second on any table; the others count on every score.
func ShareOf(rule Rule, scores []float64) (float64, error) {
	xs := scores
	if costly[rule.Name()] && len(xs) > CostlyAbove {
		xs = make([]float64, CostlyRows)
		for i := range xs {
			xs[i] = scores[int(int64(i)*int64(len(scores))/CostlyRows)]
		}
	}
	t, err := rule.Threshold(xs)
	if err != nil {
		return 0, err
	}
	return float64(Count(xs, t)) / float64(len(xs)), nil
}

// Combination is a count made of several rules: the geometric mean of the shares they
// flag, each at least one row's (GeoShare); a single rule is a Combination of one.
type Combination []Rule

// GeoShare is the geometric mean of shares of n rows, each taken as at least 1/n.
func GeoShare(shares []float64, n int) (float64, error) {
	if len(shares) == 0 || n < 1 {
		return 0, fmt.Errorf("threshold: a geometric mean of %d shares of %d rows", len(shares), n)
	}
	s := 0.0
	for _, v := range shares {
		if !(v >= 0 && v <= 1) {
			return 0, fmt.Errorf("threshold: share %v: want one in [0, 1]", v)
		}
		s += math.Log(max(v, 1/float64(n)))
	}
	return math.Exp(s / float64(len(shares))), nil
}

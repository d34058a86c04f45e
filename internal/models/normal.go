package models

import (
	"fmt"
	"math"
)

// Normal is, per feature and in the data's units, the median and the spread (FitScale's:
// the median absolute deviation, with its fallbacks) of the training rows that a model
// did not flag. It is the baseline row from which a row's score is attributed to its
// features, and the reference printed beside the row's values.
type Normal struct {
	Median []float64 `json:"median"`
	Spread []float64 `json:"spread"`
}

// FitNormal learns the per-feature median and spread of the m x d row-major rows x.
func FitNormal(x []float32, m, d int) *Normal {
	nr := &Normal{Median: make([]float64, d), Spread: make([]float64, d)}
	col := make([]float64, m)
	for j := 0; j < d; j++ {
		for i := range col {
			col[i] = float64(x[i*d+j])
		}
		sc := FitScale(col)
		nr.Median[j], nr.Spread[j] = sc.Median, sc.Spread
	}
	return nr
}

// validate checks a Normal read back for d features: d finite medians and d finite,
// positive spreads.
func (nr *Normal) validate(d int) error {
	if len(nr.Median) != d || len(nr.Spread) != d {
		return fmt.Errorf("normal: %d medians and %d spreads for %d inputs: %w", len(nr.Median), len(nr.Spread), d, ErrFormat)
	}
	for j := range nr.Median {
		if math.IsNaN(nr.Median[j]) || math.IsInf(nr.Median[j], 0) || !(nr.Spread[j] > 0) || math.IsInf(nr.Spread[j], 0) {
			return fmt.Errorf("normal: feature %d: median %v, spread %v: want finite numbers, spread > 0: %w", j+1, nr.Median[j], nr.Spread[j], ErrFormat)
		}
	}
	return nil
}

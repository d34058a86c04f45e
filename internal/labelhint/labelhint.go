// Package labelhint finds the feature columns of a table that look like a label left
// among the features, which `udocc fit` warns of: trained on, such a column tells the
// network the answer. It reads a data.Dataset and changes nothing.
package labelhint

import (
	"fmt"

	"github.com/udocc/udocc/data"
)

// labelMinority is the largest share of its rarer value a 0/1 column found by its
// values alone may have to be taken for a label: anomalies are the minority.
const labelMinority = 0.4

// LikelyLabel is a feature column that looks like a label left among the features, and
// why it does.
type LikelyLabel struct {
	Name string
	Why  string
}

// Of lists the feature columns that look like a label left among the
// features: named as labels usually are (y, label, target, class, outcome, outlier,
// anomaly, is_anomaly, …, in any case) and taking exactly two values; or, by their
// values alone, 0/1 with the rarer value on under 40 % of the rows, as the first or
// the last column, beside a column that is not 0/1 (so that a block of one-hot columns
// does not raise a warning per column). Trained on, such a column tells the network
// the answer.
func Of(ds *data.Dataset) []LikelyLabel {
	var out []LikelyLabel
	for j, name := range ds.Features {
		values, ones := twoValues(ds, j)
		switch {
		case ds.Named && data.IsLabelName(name) && values == 2:
			out = append(out, LikelyLabel{name, "named as a label, with two values"})
		case ones < 0 || ds.D < 3 || !(j == 0 || j == ds.D-1):
		case j == 0 && binary(ds, 1), j == ds.D-1 && binary(ds, ds.D-2):
		default:
			share := min(float64(ones), float64(ds.N-ones)) / float64(ds.N)
			if share > 0 && share < labelMinority {
				out = append(out, LikelyLabel{name, fmt.Sprintf("0/1 with %.0f %% of rows %d", 100*share, minority(ones, ds.N))})
			}
		}
	}
	return out
}

func minority(ones, n int) int {
	if ones <= n-ones {
		return 1
	}
	return 0
}

// twoValues counts column j's distinct values up to 3, and, where they are 0 and 1
// only, its ones (-1 otherwise).
func twoValues(ds *data.Dataset, j int) (values, ones int) {
	seen := map[float32]bool{}
	ones, binary := 0, true
	for i := 0; i < ds.N; i++ {
		v := ds.X[i*ds.D+j]
		if !seen[v] {
			if len(seen) == 2 {
				return 3, -1
			}
			seen[v] = true
		}
		switch v {
		case 1:
			ones++
		case 0:
		default:
			binary = false
		}
	}
	if !binary {
		ones = -1
	}
	return len(seen), ones
}

// binary reports whether column j holds 0 and 1 only.
func binary(ds *data.Dataset, j int) bool {
	_, ones := twoValues(ds, j)
	return ones >= 0
}

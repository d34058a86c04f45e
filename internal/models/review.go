package models

import (
	"fmt"
	"math"
)

// Review is the provenance of a threshold calibrated from a user's answers (udocc
// review, udocc cut --labels): how many answers, how many of them anomalies, the labels
// file's hash, the count they gave and the label-free count they started from.
type Review struct {
	// Answers are the rows answered, Anomalies those answered anomalous.
	Answers   int `json:"answers"`
	Anomalies int `json:"anomalies"`
	// LabelsSHA256 is the hex SHA-256 of the labels file the answers came from; absent
	// where they came from elsewhere (the library's callers).
	LabelsSHA256 string `json:"labels_sha256,omitempty"`
	// N is the rows reviewed; Count the posterior median of the anomalies among them and
	// Share = Count/N, the selected ratio, with its 80 % interval in RatioInterval.
	N     int     `json:"n"`
	Count float64 `json:"count"`
	Share float64 `json:"share"`
	// Cut is how many of the N rows the threshold flags, chosen for Target ("f1",
	// "precision=P" or "recall=R"), with the precision, recall and F1 estimated there.
	Cut       int     `json:"cut"`
	Target    string  `json:"target"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	// Prior is the label-free count the answers updated (share, low, high); absent where
	// it was the corpus prior.
	Prior []float64 `json:"prior,omitempty"`
}

// validate checks the review's numbers, naming the field that is wrong.
func (r *Review) validate() error {
	bad := func(field string, v any) error {
		return fmt.Errorf("review.%s %v: %w", field, v, ErrFormat)
	}
	in01 := func(v float64) bool { return v >= 0 && v <= 1 }
	switch {
	case r.Answers < 0:
		return bad("answers", r.Answers)
	case r.Anomalies < 0 || r.Anomalies > r.Answers:
		return bad("anomalies", r.Anomalies)
	case r.N < 0 || r.Answers > r.N && r.N > 0:
		return bad("n", r.N)
	case !(r.Count >= 0) || math.IsInf(r.Count, 0):
		return bad("count", r.Count)
	case !in01(r.Share):
		return bad("share", r.Share)
	case r.Cut < 0 || r.N > 0 && r.Cut > r.N:
		return bad("cut", r.Cut)
	case !in01(r.Precision) && !math.IsNaN(r.Precision):
		return bad("precision", r.Precision)
	case !in01(r.Recall) && !math.IsNaN(r.Recall):
		return bad("recall", r.Recall)
	case len(r.Prior) != 0 && len(r.Prior) != 3:
		return bad("prior", r.Prior)
	}
	for _, v := range r.Prior {
		if !in01(v) {
			return bad("prior", r.Prior)
		}
	}
	return nil
}

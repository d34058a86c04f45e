package data

import "strings"

// labelNames are the column names that usually hold a label rather than a feature.
var labelNames = []string{"y", "label", "labels", "target", "class", "outlier", "anomaly",
	"is_anomaly", "is_outlier", "anomaly_label", "ground_truth"}

// LikelyLabels lists the feature columns that look like a label left among the
// features: named as labels usually are (y, label, target, class, outlier, anomaly,
// is_anomaly, …, in any case) and taking exactly two values. Trained on, such a column
// tells the network the answer.
func (ds *Dataset) LikelyLabels() []string {
	var out []string
	for j, name := range ds.Features {
		if !ds.Named || !isLabelName(name) {
			continue
		}
		values := map[float32]bool{}
		for i := 0; i < ds.N && len(values) <= 2; i++ {
			values[ds.X[i*ds.D+j]] = true
		}
		if len(values) == 2 {
			out = append(out, name)
		}
	}
	return out
}

func isLabelName(name string) bool {
	for _, l := range labelNames {
		if strings.EqualFold(name, l) {
			return true
		}
	}
	return false
}

package data

import "strings"

// labelNames are the column names that usually hold a label rather than a feature.
var labelNames = []string{"y", "label", "labels", "target", "class", "outlier", "anomaly",
	"is_anomaly", "is_outlier", "anomaly_label", "ground_truth", "outcome", "fraud", "is_fraud",
	"attack", "malicious", "diagnosis", "churn"}

// IsLabelName says whether a column's name is one that usually holds a label rather
// than a feature (y, label, target, class, outcome, outlier, anomaly, …, in any case).
func IsLabelName(name string) bool {
	for _, l := range labelNames {
		if strings.EqualFold(name, l) {
			return true
		}
	}
	return false
}

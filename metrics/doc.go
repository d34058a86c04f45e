// Package metrics scores anomaly detectors against ground-truth labels
// (1 = anomaly, the positive class; 0 = normal), reproducing scikit-learn's
// definitions exactly so results compare with published Python numbers.
//
// ROCAUC and PRAUC rank real-valued anomaly scores (higher = more
// anomalous): ROCAUC is roc_auc_score (tied scores count one half), PRAUC is
// average_precision_score (the step-wise sum of precision times recall
// increments, not the trapezoid). Count tallies a 0/1 labelling into a
// Counts confusion table whose Precision, Recall and F1 methods match
// precision_score, recall_score and f1_score.
//
// Undefined cases are errors, never NaN: a single class in the labels
// (ErrOneClass), mismatched lengths, labels other than 0/1, non-finite
// scores. The package does not threshold scores or choose detectors.
package metrics

// Package metrics scores anomaly detectors against ground-truth labels: 1 is an
// anomaly, the positive class, and 0 is normal. It follows scikit-learn's definitions
// exactly, so results compare with published Python numbers.
//
// ROCAUC and PRAUC rank real-valued scores, higher being more anomalous. ROCAUC is
// roc_auc_score: tied scores count one half. PRAUC is average_precision_score: a
// step-wise sum, not the trapezoid. Count tallies a 0/1 labelling into Counts. Its
// Precision, Recall and F1 match precision_score, recall_score and f1_score.
//
// Undefined cases are errors, never NaN: one class in the labels (ErrOneClass),
// lengths that differ, labels other than 0/1, scores that are not finite. The package
// does not threshold scores or choose detectors.
package metrics

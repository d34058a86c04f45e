// Package review is the count of anomalies from a few labelled rows: which rows of a
// scored table to ask a user about (Next), and the count, its 80 % interval and the cut
// that follow from the answers (Calibrate).
//
// It sees ranks only: the n scored rows sorted by score, highest first, rank 1 the
// highest (Ranks makes them from scores). It is pure Go and does no I/O; the CLI and the
// root package map ranks to rows, read and write the labels file.
//
// The design (Next) stratifies the ranks on a geometric grid (the top 0.1 %, 0.3 %,
// 1 %, 3 %, 10 %, 30 % and the rest), asks one row in each stratum first, top first,
// and then rows in the strata where an answer most reduces the expected posterior
// variance of ln(count). The estimator (Calibrate) is a Bayesian grid posterior over a
// monotone logistic curve of P(anomaly | ln rank/n), with the label-free count as the
// prior on the share and a prior on the curve's shape learned on labelled tables
// (curve.json); the count is the known anomalies plus the unanswered rows' count under
// the curve.
//
// The types a caller starts from are Answer, Prior and Estimate; Method holds the
// settings a study compares (its zero value is what Next and Calibrate use).
package review

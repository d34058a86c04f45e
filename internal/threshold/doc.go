// Package threshold turns a vector of anomaly scores (higher = more
// anomalous) into a cut without labels: each Rule returns a threshold in
// score units, and a row is anomalous when its score is strictly greater
// than it. The rules follow PyThresh (Kulik and Deng, "PyThresh: A Python
// library for thresholding outlier detection scores") and its benchmark:
// robust statistics (MAD, IQR, modified z-score, Chauvenet, generalized
// ESD, z-score), one-dimensional Gaussian mixtures fitted by EM, the
// optimal two-cluster split (k-means, Otsu) and a majority vote of several
// rules (Comb).
//
// The package is for choosing how many rows of one score vector to flag. It
// does not produce scores, does not look at labels when thresholding, and
// does not learn a threshold to apply to other data sets. The Eval helpers
// (Evaluate, OracleF1, LogRatioError, WithinFactor) are for studies that
// compare rules against ground truth afterwards.
//
// A caller starts from Rule: pick one with ByName or iterate All, call
// Threshold, then Labels or Ratio. Inputs with a NaN or infinite score, or
// no scores, are errors (ErrNonFinite, ErrEmpty); constant scores and
// one or two rows are valid and flag nothing a rule cannot justify.
package threshold

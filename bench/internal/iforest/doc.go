// Package iforest is an Isolation Forest (Liu, Ting and Zhou, "Isolation
// Forest", ICDM 2008; "Isolation-Based Anomaly Detection", ACM TKDD 6(1),
// 2012), kept as a reference detector for the benchmark: a fast, untrained
// baseline whose scores the thresholding study can use beside Deep SVDD's.
//
// It follows the papers' defaults: 100 trees, each grown on a subsample of
// ψ = min(256, n) rows drawn without replacement, to the height limit
// ⌈log₂ ψ⌉; a row's score is s(x) = 2^(−E[h(x)]/c(ψ)), near 1 for rows
// isolated in few splits and at most ½ for rows of the bulk. Everything
// is deterministic given Options.Seed.
//
// It is not a udocc detector and is not tuned: no contamination parameter,
// no threshold, no extended (oblique) splits. Start from Fit, then
// Forest.Score.
package iforest

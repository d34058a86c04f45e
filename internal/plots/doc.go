// Package plots draws udocc's figures as PNG through gonum.org/v1/plot: line figures
// with marked thresholds (the Eq. (5) curve, δ̄ over epochs, losses), bands of mean ± std
// over seeds, and score histograms. Files are written atomically. It knows nothing of
// training; callers hand it numbers. Start from Figure.
package plots

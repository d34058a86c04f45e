// Package data loads tabular anomaly-detection benchmarks into memory and
// standardises them.
//
// A caller starts from Load, which picks a reader by LoadOptions.Format or the
// file extension (delimited text ".csv", ".tsv", ".txt", each optionally
// gzipped; Apache Parquet ".parquet"; MATLAB MAT v5 ".mat"; NumPy ".npy" and
// ".npz") and returns a Dataset: an n×d float32 matrix in row-major order with
// optional 0/1 labels (1 = anomaly) and ids. Float32 is the precision training uses:
// every reader converts each value as it reads it, streaming delimited text and NPY
// files rather than holding their bytes, so that a table is in memory once, at half
// float64's size (a finite value beyond float32's range is refused, errRange). For tables, a Selection chooses the
// feature columns and the id column, and labels may follow the 0/1, -1/1
// (scikit-learn) or true/false conventions or name their positive value;
// WriteAppended writes a table back with columns (scores) added. Every reader
// checks what it reads (finite values, no nulls, a rectangular matrix, at least
// one row and column, labels of two values) and its errors name the file and
// the place in it that is wrong; callers branch on
// the sentinel errors (ErrMATv73, errNonFinite, ErrLabel, …) with errors.Is.
//
// FitScaler fits a Scaler (per-column mean and population standard
// deviation, like scikit-learn's StandardScaler) whose Transform applies the
// same standardisation to new data; a Scaler is JSON-serialisable so a trained
// model can carry it.
//
// The ODDS registry (ODDSSets, LookupODDS) lists the ten ODDS data sets of the
// paper's Table I with their expected shapes and SHA-256 digests; Fetch
// downloads them with verification, resuming partial downloads, and
// FindDataDir locates a local copy.
//
// The package does no learning and no scoring (see metrics for AUCs), and it
// never imports torch: it is pure Go and tests without cgo.
package data

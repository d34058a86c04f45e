// Package data reads tables of numbers for anomaly detection: the table type, Dataset,
// and its formats.
//
// A caller starts from Load, which picks a reader by LoadOptions.Format or the
// file extension (delimited text ".csv", ".tsv", ".txt", each optionally
// gzipped; Apache Parquet ".parquet"; MATLAB MAT v5 ".mat"; NumPy ".npy" and
// ".npz") and returns a Dataset: an n×d float32 matrix in row-major order with
// optional 0/1 labels (1 = anomaly) and ids; ReadCSV reads delimited text from an
// io.Reader. LoadOptions' zero value is the default: it reads no label column from a
// text table unless one is named or numbered. Float32 is the precision training uses:
// every reader converts each value as it reads it, streaming delimited text and NPY
// files rather than holding their bytes, so that a table is in memory once, at half
// float64's size (a finite value beyond float32's range is refused). For tables, a
// Selection chooses the feature columns and the id column, and labels may follow the
// 0/1, -1/1 (scikit-learn) or true/false conventions or name their positive value.
// Every reader
// checks what it reads (finite values, no nulls, a rectangular matrix, at least
// one row and column, labels of two values) and its errors name the file and
// the place in it that is wrong; callers branch on the sentinel errors (ErrFormat,
// ErrMissingValue, ErrLabel, …) with errors.Is.
//
// The package does no learning, no standardisation and no scoring (see metrics for
// AUCs), and it never imports torch: it is pure Go and tests without cgo.
package data

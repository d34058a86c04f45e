// Package data reads tables of numbers for anomaly detection: the table type, Dataset,
// and its formats.
//
// Start from Load. It picks a reader by LoadOptions.Format or the file's extension:
// delimited text (".csv", ".tsv", ".txt", each optionally gzipped), Apache Parquet,
// MATLAB MAT v5, NumPy ".npy" and ".npz". It returns a Dataset: an n×d float32 matrix
// in row-major order, with optional 0/1 labels (1 = anomaly) and ids. ReadCSV reads
// delimited text from an io.Reader.
//
// The zero LoadOptions is the default. It reads no label column from a text table
// unless one is named or numbered. A Selection chooses a table's feature columns and
// its id column. Labels may be 0/1, -1/1 (scikit-learn's) or true/false, or name their
// positive value.
//
// Every value becomes a float32 as it is read, the precision training uses. Delimited
// text and NPY files are streamed, so a table is in memory once, at half float64's
// size. A finite value beyond float32's range is refused.
//
// Every reader checks what it reads: finite values, no nulls, a rectangular matrix,
// at least one row and column, labels of two values. Its errors name the file and the
// place in it. Branch on the sentinel errors (ErrFormat, ErrMissingValue, ErrLabel, …)
// with errors.Is. A refusal that a setting would avoid is a *RemedyError naming it.
//
// The package does no learning, standardisation or scoring (see metrics for AUCs). It
// never imports torch: it is pure Go and tests without cgo.
package data

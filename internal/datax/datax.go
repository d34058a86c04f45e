// Package datax holds what package data does for the udocc command beyond the
// library's API: writing a table back with score columns added, recognising a table
// udocc wrote, and telling tables from matrices. Package data implements the function
// variables and sets them when it is initialised; the command calls them here, so that
// the library's data package shows a reader the table type and its formats only.
//
// It imports nothing of udocc's, so that data can import it.
package datax

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Appended is a column that WriteAppended adds to a table.
type Appended struct {
	Name string
	// Values holds one value a row; NaN is a missing value (empty in CSV, null in
	// Parquet), such as a label where the method gives none.
	Values []float64
	// Integer writes the values as whole numbers (INT64 in Parquet).
	Integer bool
}

// ScoreColumns are the columns, side by side and in this order, that every table udocc
// writes holds: scores.csv and WriteAppended's output (as Appended columns).
var ScoreColumns = []string{"score", "rank", "label"}

// Set by package data when it is initialised.
var (
	// WriteAppended writes the table at src, read as data.Load reads it with opts (a
	// data.LoadOptions) but with every column, to dst (CSV or Parquet by its extension)
	// with cols added after its columns, atomically. A Parquet source keeps its column
	// types in a Parquet dst; a text source written as Parquet has DOUBLE columns where
	// its first data row holds numbers and STRING columns elsewhere, empty cells null; a
	// MAT, NPY or NPZ source is its matrix, columns x1…xD.
	WriteAppended func(src string, opts any, dst string, cols []Appended) error
	// TableFormat is the format WriteAppended writes to path, by its extension: "csv" or
	// "parquet".
	TableFormat func(path string) (string, error)
	// HasScoreColumns reports whether the table at path has ScoreColumns side by side
	// where udocc writes them, last (--append-to) or after row and an optional id column
	// (scores.csv), in its column names: the first line of a CSV file (of at most 1 MiB), the
	// schema of a Parquet file (by its extension .parquet). That is how udocc recognises
	// a file it wrote before, which it may write over; a file it cannot read as either is
	// not one (false, nil). Only an error opening path is returned.
	HasScoreColumns func(path string) (bool, error)
	// IsTable reports whether a file of this format (or, for "", of path's extension)
	// is a table with named columns and a label column (CSV, Parquet), rather than a
	// matrix with labels in a variable (MAT, NPY, NPZ).
	IsTable func(path, format string) bool
)

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

// ShowName is a column name as a terminal may show it: as it is where every character
// prints, else quoted with escapes (strconv.Quote), so that a name holding a newline or
// an escape sequence can neither forge a report line nor drive the terminal.
func ShowName(name string) string {
	for _, r := range name {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return strconv.Quote(name)
		}
	}
	return name
}

// ShowNames is ShowName of each name.
func ShowNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = ShowName(n)
	}
	return out
}

package data

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
)

// Sentinel errors. Every error returned by this package wraps one of these
// (or an os / io error) with the file and the place that is wrong, so callers
// branch with errors.Is.
var (
	// ErrFormat reports a file that is malformed for its format: a bad
	// header, a truncated element, an unsupported structure.
	ErrFormat = errors.New("malformed file")
	// ErrUnknownFormat reports a file extension Load has no reader for.
	ErrUnknownFormat = errors.New("unknown file format (want .csv, .tsv, .txt, each optionally .gz, .parquet, .mat, .npy or .npz)")
	// ErrMATv73 reports a MATLAB v7.3 MAT-file, which is HDF5 inside and not
	// read by this package.
	ErrMATv73 = errors.New("MATLAB v7.3 (HDF5) MAT-file is not supported; " +
		"re-save it in MATLAB with save(file, 'X', 'y', '-v7') or export X and y to CSV or NPZ")
	// errMissingVariable reports that the requested variable (MAT, NPZ) or
	// label column (CSV) is not in the file.
	errMissingVariable = errors.New("variable not found")
	// errNotNumeric reports a variable or cell that holds no number.
	errNotNumeric = errors.New("not a number")
	// errEmptyCell reports an empty CSV cell.
	errEmptyCell = errors.New("empty cell")
	// errNonFinite reports a NaN or ±Inf value.
	errNonFinite = errors.New("value is NaN or infinite")
	// ErrMissingValue reports a cell that marks a missing value (empty, NA, NaN, null,
	// …, as pandas' read_csv reads them) where LoadOptions.Missing is MissingError.
	ErrMissingValue = errors.New("missing value")
	// errRagged reports a row with a different number of columns than the
	// header or the first row.
	errRagged = errors.New("ragged row")
	// errEmpty reports a data set with zero rows or zero columns.
	errEmpty = errors.New("no rows or no columns")
	// ErrLabel reports labels that follow none of the conventions (0/1, -1/1,
	// true/false, or two values of which one is named positive).
	ErrLabel = errors.New("bad label")
	// errLengthMismatch reports labels whose count differs from the rows of X.
	errLengthMismatch = errors.New("label count differs from row count")
	// errTooLarge reports a declared size that exceeds the bytes present.
	errTooLarge = errors.New("declared size exceeds the data present")
	// errRange reports a finite value too large for float32 (beyond ±3.4e38), the
	// precision a table is held in.
	errRange = errors.New("value is beyond float32's range (±3.4e38)")
	// ErrOptions reports contradictory or invalid LoadOptions.
	ErrOptions = errors.New("invalid load options")
)

// Dataset is an n×d data matrix with optional anomaly labels.
type Dataset struct {
	// Name is the file name without directory and extension ("pima").
	Name string
	// Path is the file the data set was read from ("" if built in memory).
	Path string
	// N is the number of rows (points), D the number of columns (features).
	N, D int
	// X holds the N×D values in row-major order: X[i*D+j] is row i, column j. They are
	// float32, the precision training uses.
	X []float32
	// Y holds N labels, 1 = anomaly and 0 = normal, or is nil when the file
	// has no labels.
	Y []int
	// Features holds D column names: the CSV header, or "x1"…"xD".
	Features []string
	// Named reports that Features were read from the file, so columns can be matched by
	// name. It is false for the made-up "x1"…"xD".
	Named bool
	// IDs holds the N cells of the id column (Selection.ID) as text, or is nil. IDName
	// is that column's name.
	IDs    []string
	IDName string
	// TextDropped names the columns left out under Selection.DropText. A column is
	// numeric when every cell that is not missing is a number.
	TextDropped []string
	// Missing counts, per feature, the cells read as missing under MissingKeep. Those
	// cells are NaN in X until a model imputes them. It is nil when none was missing.
	Missing []int
	// EmptyColumns names the columns left out because every cell of theirs is missing.
	EmptyColumns []string
	// EmptyRows are the 0-based data rows left out under MissingKeep because every
	// feature of theirs is missing. RowsDropped counts the rows MissingDropRows left
	// out. RowIndex is each kept row's 0-based data row in the file, where any row was
	// left out; nil when every row was kept.
	EmptyRows   []int
	RowsDropped int
	RowIndex    []int
	// Selection is the Selection the data set was read with, with the id column found
	// (an unnamed first column, or one of 0…n−1: Notes says so).
	Selection Selection
	// Encoding is how the text columns became the last features, fitted or given; nil
	// when there were none. Unseen counts, per column of Encoding, the cells whose value
	// training did not see.
	Encoding *Encoding
	Unseen   []int
	// Notes are what the reader decided on its own that a user should hear of, such as
	// an id column found. Each may name a setting that decides otherwise.
	Notes []Remedy
	// LabelName is a table's label column, "" where it has no header. Positive is the
	// LoadOptions.Positive it was read with.
	LabelName string
	Positive  string
	partCut   bool // loadNPYPart or loadCSVPart read only LoadOptions.Part's rows
	// wide is X at full precision, for a matrix (MAT, NPY, NPZ) read with
	// LoadOptions.wide: its id column's numbers become text exactly, and WriteAppended
	// copies its values exactly. nil otherwise.
	wide []float64
	// wideInts are wide's values exactly where the matrix holds 64-bit integers.
	wideInts *exactInts
}

// Row returns row i of X (a slice of X, not a copy).
func (ds *Dataset) Row(i int) []float32 { return ds.X[i*ds.D : (i+1)*ds.D] }

// Anomalies returns the number of rows labelled 1 (0 when Y is nil).
func (ds *Dataset) Anomalies() int {
	k := 0
	for _, y := range ds.Y {
		k += y
	}
	return k
}

// Validate checks the invariants every loader guarantees. N, D ≥ 1 and len(X) = N·D.
// Every value is finite but the NaN of a missing cell. len(Features) = D. Y is nil, or
// of length N with values in {0, 1}.
func (ds *Dataset) Validate() error {
	where := ds.Path
	if where == "" {
		where = ds.Name
	}
	switch {
	case ds.N <= 0 || ds.D <= 0:
		return fmt.Errorf("data: %s: %d rows, %d columns: %w", where, ds.N, ds.D, errEmpty)
	case len(ds.X) != ds.N*ds.D:
		return fmt.Errorf("data: %s: %d values for %d×%d: %w", where, len(ds.X), ds.N, ds.D, ErrFormat)
	case len(ds.Features) != ds.D:
		return fmt.Errorf("data: %s: %d feature names for %d columns: %w", where, len(ds.Features), ds.D, ErrFormat)
	case ds.Y != nil && len(ds.Y) != ds.N:
		return fmt.Errorf("data: %s: %d labels for %d rows: %w", where, len(ds.Y), ds.N, errLengthMismatch)
	case ds.IDs != nil && len(ds.IDs) != ds.N:
		return fmt.Errorf("data: %s: %d ids for %d rows: %w", where, len(ds.IDs), ds.N, errLengthMismatch)
	}
	if ds.Missing != nil && len(ds.Missing) != ds.D {
		return fmt.Errorf("data: %s: %d missing counts for %d columns: %w", where, len(ds.Missing), ds.D, ErrFormat)
	}
	for k, v := range ds.X {
		if isNonFinite(v) && !(v != v && ds.Missing != nil && ds.Missing[k%ds.D] > 0) {
			return fmt.Errorf("data: %s: row %d, column %d: %v: %w", where, k/ds.D+1, k%ds.D+1, v, errNonFinite)
		}
	}
	for i, y := range ds.Y {
		if y != 0 && y != 1 {
			return fmt.Errorf("data: %s: label of row %d is %d: %w", where, i+1, y, ErrLabel)
		}
	}
	return nil
}

// LoadOptions selects what Load reads from a file. The zero value is the default, each
// zero field as documented. No label column is read from a CSV file unless one is named
// (LabelColumn) or numbered (LabelNumber).
type LoadOptions struct {
	// XVar names the data matrix in a MAT or NPZ file; "" means "X".
	XVar string
	// YVar names the label vector in a MAT or NPZ file. "" means "y", which may be
	// absent (Y is then nil). A YVar set explicitly must be present. "-" reads no
	// labels.
	YVar string
	// LabelColumn names the CSV label column by its header; "" means none.
	LabelColumn string
	// LabelNumber is the 1-based number of the CSV label column; 0 means none. At most
	// one of LabelColumn and LabelNumber may be set.
	LabelNumber int
	// Delimiter separates CSV cells: ',', ';', '\t', or ' ' for runs of spaces and tabs
	// (as np.savetxt writes). 0 detects it from the first line.
	Delimiter rune
	// Decimal is the decimal separator of a delimited text's numbers: '.', or ',' as
	// European spreadsheets write "1,5". 0 detects it (DetectDecimal).
	Decimal rune
	// Header says whether a CSV file's first row is a header. The zero value,
	// HeaderAuto, takes it for one when not all of its cells are numbers.
	Header Header
	// Format names the reader ("csv", "csv.gz", "parquet", …: Formats). "" picks it by
	// the file's extension. A path of "-" (stdin) needs it.
	Format string
	// Selection says which columns of a table are features and which one is the id.
	// MAT, NPY and NPZ files take it over their columns "x1"…"xD".
	Selection Selection
	// Positive is the label value that marks an anomaly, for labels other than 0/1,
	// -1/1 and true/false. "" reads those conventions.
	Positive string
	// Part, when Part.Of > 1, keeps one block of rows: a data-parallel rank's share
	// (docs/distributed.md). The zero value reads every row.
	Part Part
	// Threads is how many goroutines parse a delimited text's blocks of lines. 0 means
	// runtime.GOMAXPROCS(0). The Dataset, and a bad file's error, are the same at any
	// count. A text with a double quote, or read from a pipe, is parsed on one.
	Threads int
	// Missing says what a delimited text's missing cells become (empty, NA, NaN,
	// null, …: pandas' na_values). The zero value, MissingError, refuses them.
	Missing Missing
	// LabelOptional lets the label column LabelColumn names be absent; the file then
	// loads without labels. New rows need not have a model's label column.
	LabelOptional bool
	// Encode turns a delimited text's text columns into features instead of refusing
	// them: it fits an Encoding on this table. OneHotMax is the most values a category
	// is one-hot encoded with (0: DefaultOneHotMax). Encoding, when set, is applied
	// instead: a model's, for the rows it scores. Neither applies to a Part, nor under
	// Selection.DropText.
	Encode    bool
	OneHotMax int
	Encoding  *Encoding
	// full makes a matrix reader keep its values at full precision too (Dataset.wide),
	// for WriteAppended.
	full bool
	// keepEmpty keeps the rows with no numeric value, for the text columns' encoding to
	// fill in (loadText), which leaves out those still empty after.
	keepEmpty bool
}

// wide reports whether a matrix reader keeps its values at full precision beside X: for
// WriteAppended, and for an id column, whose numbers become text.
func (o LoadOptions) wide() bool { return o.full || o.Selection.ID != "" || o.Selection.IDIndex != nil }

// Missing is what a reader does with a missing cell.
type Missing string

// The Missing policies.
const (
	MissingError    Missing = ""          // a missing cell is an error naming it
	MissingKeep     Missing = "keep"      // a missing cell is NaN in X, counted in Dataset.Missing
	MissingDropRows Missing = "drop-rows" // a row with a missing cell is left out, counted
)

// missingValues are the cells that mark a missing value, as pandas' read_csv reads them
// by default (its na_values), compared after trimming spaces.
var missingValues = []string{"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan",
	"1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"}

// IsMissingCell reports whether a text cell marks a missing value, as pandas' read_csv
// reads them by default: empty, NA, NaN, null, N/A and the like (compared trimmed).
func IsMissingCell(cell string) bool { return isMissingCell(cell) }

// isMissingCell reports whether a cell, trimmed, is one of missingValues.
func isMissingCell(cell string) bool {
	s := strings.TrimSpace(cell)
	if len(s) > 8 {
		return false
	}
	return slices.Contains(missingValues, s)
}

// Part is block Index of Of equal blocks of a file's n rows: rows
// [Index*n/Of, (Index+1)*n/Of). A plain NPY file in C order is read from that block's
// bytes alone. So is an uncompressed delimited text without double quotes, with its
// header and first data row. Every other file is read whole and then cut.
type Part struct {
	Index, Of int
}

// Header says whether a CSV file starts with a header row.
type Header string

// The Header modes.
const (
	HeaderAuto Header = ""    // a header only when the first row is not all numbers
	HeaderYes  Header = "yes" // the first row is a header
	HeaderNo   Header = "no"  // every row is data; columns are named x1…xD
)

// Validate reports contradictory or out-of-range options.
func (o LoadOptions) Validate() error {
	switch {
	case o.LabelColumn != "" && o.LabelNumber != 0:
		return fmt.Errorf("data: both LabelColumn %q and LabelNumber %d set: %w", o.LabelColumn, o.LabelNumber, ErrOptions)
	case o.LabelNumber < 0:
		return fmt.Errorf("data: LabelNumber %d (want 0 for none or a 1-based column): %w", o.LabelNumber, ErrOptions)
	case o.Delimiter != 0 && o.Delimiter != ',' && o.Delimiter != ';' && o.Delimiter != '\t' && o.Delimiter != whitespace:
		return fmt.Errorf("data: delimiter %q (want ',', ';', tab or ' ' for whitespace): %w", o.Delimiter, ErrOptions)
	case o.Decimal != 0 && o.Decimal != '.' && o.Decimal != ',':
		return fmt.Errorf("data: decimal separator %q (want '.' or ','): %w", o.Decimal, ErrOptions)
	case o.Decimal == ',' && o.Delimiter == ',':
		return fmt.Errorf("data: decimal comma in a comma-separated text: %w", ErrOptions)
	case o.Header != HeaderAuto && o.Header != HeaderYes && o.Header != HeaderNo:
		return fmt.Errorf("data: header %q (want yes, no or auto): %w", o.Header, ErrOptions)
	case o.Format != "" && !slices.Contains(Formats, o.Format):
		return fmt.Errorf("data: format %q (want one of %s): %w", o.Format, strings.Join(Formats, ", "), ErrOptions)
	case o.Missing != MissingError && o.Missing != MissingKeep && o.Missing != MissingDropRows:
		return fmt.Errorf("data: missing %q (want %q, %q or %q): %w", o.Missing, MissingError, MissingKeep, MissingDropRows, ErrOptions)
	case o.OneHotMax < 0:
		return fmt.Errorf("data: one-hot cap %d (want 0 for the default, or more): %w", o.OneHotMax, ErrOptions)
	case o.Encoding != nil && o.Encode:
		return fmt.Errorf("data: both Encode and an Encoding: %w", ErrOptions)
	case o.Threads < 0:
		return fmt.Errorf("data: %d threads (want 0 for every core, or more): %w", o.Threads, ErrOptions)
	case o.Part.Of < 0 || o.Part.Of > 0 && (o.Part.Index < 0 || o.Part.Index >= o.Part.Of):
		return fmt.Errorf("data: part %d of %d: %w", o.Part.Index, o.Part.Of, ErrOptions)
	}
	return o.Selection.Validate()
}

// threads is the goroutines Threads says.
func (o LoadOptions) threads() int {
	if o.Threads == 0 {
		return runtime.GOMAXPROCS(0)
	}
	return o.Threads
}

func (o LoadOptions) xVar() string {
	if o.XVar == "" {
		return "X"
	}
	return o.XVar
}

// yVar returns the label variable name and whether it must be present;
// name "" means no labels are read.
func (o LoadOptions) yVar() (name string, required bool) {
	switch o.YVar {
	case "":
		return "y", false
	case "-":
		return "", false
	}
	return o.YVar, true
}

// Load reads a data set. It chooses the reader by opts.Format, else by the file's
// extension (any case): ".mat" (MAT v5), ".csv", ".tsv" or ".txt" (delimited text,
// each also gzipped as ".csv.gz"…), ".parquet", ".npy" (X only) or ".npz". The result
// has passed Dataset.Validate.
//
// Errors start with "data: <path>:" and give the place. For CSV it is "line N, column
// M", counted from 1 as an editor shows them: the header is line 1, and blank lines and
// the label column count. For Parquet it is the row and the column's name. For MAT
// files it is the variable and its element's byte offset, for NPY and NPZ the array and
// the byte or element offset. For values it is X's 1-based row and column.
func Load(path string, opts LoadOptions) (*Dataset, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	format, err := formatOf(path, opts.Format)
	if err != nil {
		return nil, err
	}
	var ds *Dataset
	switch {
	case format == "npy" && opts.Part.Of > 1:
		ds, err = loadNPYPart(path, opts)
	case format == "npy":
		ds, err = loadNPY(path, opts)
	case (format == "csv" || format == "tsv" || format == "txt") && opts.Part.Of > 1 && path != "-":
		ds, err = loadCSVPart(path, format, opts)
	case slices.Contains([]string{"csv", "tsv", "txt", "csv.gz", "tsv.gz", "txt.gz"}, format) && path != "-":
		ds, err = loadText(path, strings.HasSuffix(format, ".gz"), &opts)
	case format == "parquet":
		ds, err = loadParquet(path, opts)
	default:
		ds, err = loadBytes(path, format, opts)
	}
	if err == nil && opts.Part.Of > 1 {
		ds, err = cutPart(ds, opts.Part)
	}
	if err != nil {
		return nil, fmt.Errorf("data: %s: %w", path, err)
	}
	ds.Path = path
	ds.Name = nameOf(path)
	ds.Selection = opts.Selection
	if ds.LabelName != "" {
		ds.Positive = opts.Positive
	}
	if err := ds.Validate(); err != nil {
		return nil, err
	}
	return ds, nil
}

// loadBytes reads the whole file and decodes it; delimited text is streamed instead
// (loadCSV).
func loadBytes(path, format string, opts LoadOptions) (*Dataset, error) {
	text, gz := strings.CutSuffix(format, ".gz")
	if text == "csv" || text == "tsv" || text == "txt" {
		return loadCSV(path, gz, opts)
	}
	b, err := readWhole(path, format)
	if err != nil {
		return nil, err
	}
	var ds *Dataset
	switch text {
	case "mat":
		ds, err = decodeMAT(b, opts)
	case "npy":
		ds, err = decodeNPY(bytes.NewReader(b), int64(len(b)), opts)
	case "npz":
		ds, err = decodeNPZ(b, opts)
	}
	if err != nil {
		return nil, err
	}
	return selectMatrix(ds, opts.Selection)
}

// newDataset assembles a Dataset from a row-major n×d matrix, optional
// float labels and optional feature names (nil gives "x1"…"xd"), checking
// the values and the labels. A NaN is a missing value where the policy takes
// them (settleMissing), an error otherwise, as ±Inf always is.
func newDataset(n, d int, x []float32, y []float64, features []string, missing Missing) (*Dataset, error) {
	if n <= 0 || d <= 0 {
		return nil, fmt.Errorf("%d rows, %d columns: %w", n, d, errEmpty)
	}
	nan := false
	for k, v := range x {
		if v != v && missing != MissingError {
			nan = true
			continue
		}
		if isNonFinite(v) {
			return nil, fmt.Errorf("row %d, column %d: %v: %w", k/d+1, k%d+1, v, errNonFinite)
		}
	}
	ds := &Dataset{N: n, D: d, X: x, Features: features}
	if ds.Features == nil {
		ds.Features = defaultFeatures(d)
	}
	if y != nil {
		if len(y) != n {
			return nil, fmt.Errorf("%d labels for %d rows: %w", len(y), n, errLengthMismatch)
		}
		labels, err := toLabels(y)
		if err != nil {
			return nil, err
		}
		ds.Y = labels
	}
	if nan {
		if err := ds.settleMissing(missing, false, false); err != nil {
			return nil, err
		}
	}
	return ds, nil
}

// toLabels converts float labels that are exactly 0 or 1.
func toLabels(y []float64) ([]int, error) {
	out := make([]int, len(y))
	for i, v := range y {
		switch v {
		case 0:
		case 1:
			out[i] = 1
		default:
			return nil, fmt.Errorf("label of row %d is %v: %w", i+1, v, ErrLabel)
		}
	}
	return out, nil
}

func defaultFeatures(d int) []string {
	f := make([]string, d)
	for j := range f {
		f[j] = fmt.Sprintf("x%d", j+1)
	}
	return f
}

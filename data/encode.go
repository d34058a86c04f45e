package data

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/udocc/udocc/internal/decimal"
)

// An Encoding turns a delimited text's columns of text into numeric features, as a fit
// chose them (FitEncoding) and a model keeps them, so that the rows it scores are
// encoded the same way. Each column becomes one or more features, after the table's
// numeric ones:
//   - a category of at most LoadOptions.OneHotMax distinct values is one-hot: one 0/1
//     feature per value seen in training, named "column = value"; a missing cell, or a
//     value not seen in training, is 0 in every one of them;
//   - a category of more values is frequency-encoded: one feature, "column (frequency)",
//     the share of training rows that hold the row's value (0 for a value not seen in
//     training; a missing cell is missing, and imputed);
//   - a date or time, every cell of which reads in one of dateLayouts, is one feature,
//     "column (days)": days since 1970-01-01 00:00 UTC (a missing cell is missing).
//
// Scikit-learn's OneHotEncoder(handle_unknown="ignore") and the frequency (count)
// encoding of Micci-Barreca's "A preprocessing scheme for high-cardinality categorical
// attributes" (SIGKDD Explorations 3(1), 2001) are the references.
type Encoding struct {
	Columns []ColumnCode `json:"columns"`
}

// The kinds of ColumnCode.
const (
	OneHot    = "one-hot"
	Frequency = "frequency"
	Date      = "date"
)

// ColumnCode is how one text column becomes features.
type ColumnCode struct {
	// Name is the column's header.
	Name string `json:"name"`
	// Kind is OneHot, Frequency or Date.
	Kind string `json:"kind"`
	// Categories are the training values: OneHot's in the order of its features,
	// Frequency's with Shares.
	Categories []string `json:"categories,omitempty"`
	// Shares are, for Frequency, the share of training rows that hold each category.
	Shares []float64 `json:"shares,omitempty"`
	// Layout is, for Date, the time layout (package time) every cell reads in.
	Layout string `json:"layout,omitempty"`
}

// maxCategory is the longest value, in bytes, a text column's category may have: a
// longer cell is no category, and would make a feature's name of its size.
const maxCategory = 256

// DefaultOneHotMax is the most distinct values a text column is one-hot encoded with
// where LoadOptions.OneHotMax is 0; a column of more is frequency-encoded.
const DefaultOneHotMax = 10

// Features are the names of the features c gives, in order.
func (c ColumnCode) Features() []string {
	switch c.Kind {
	case OneHot:
		out := make([]string, len(c.Categories))
		for k, v := range c.Categories {
			out[k] = c.Name + " = " + v
		}
		return out
	case Frequency:
		return []string{c.Name + " (frequency)"}
	}
	return []string{c.Name + " (days)"}
}

// Describe says in words how c encodes its column, for a report.
func (c ColumnCode) Describe() string {
	switch c.Kind {
	case OneHot:
		return fmt.Sprintf("%s: a category of %d values, one-hot (%s)", ShowName(c.Name), len(c.Categories), strings.Join(quoteLimit(c.Categories, 6), ", "))
	case Frequency:
		return fmt.Sprintf("%s: a category of %d values, encoded by each value's share of the training rows", ShowName(c.Name), len(c.Categories))
	}
	return fmt.Sprintf("%s: a date (%s), as days since 1970-01-01", ShowName(c.Name), c.Layout)
}

func quoteLimit(xs []string, most int) []string {
	out := make([]string, 0, min(len(xs), most)+1)
	for k, x := range xs {
		if k == most {
			out = append(out, fmt.Sprintf("and %d more", len(xs)-most))
			break
		}
		out = append(out, quoteValue(x))
	}
	return out
}

// Names are the names of the features e gives, in order.
func (e *Encoding) Names() []string {
	var out []string
	for _, c := range e.Columns {
		out = append(out, c.Features()...)
	}
	return out
}

// Width is the number of features e gives.
func (e *Encoding) Width() int {
	if e == nil {
		return 0
	}
	w := 0
	for _, c := range e.Columns {
		w += len(c.Features())
	}
	return w
}

// Origin maps a feature name that e gives to its column and, for a one-hot feature,
// its value; ok is false for a feature e does not give.
func (e *Encoding) Origin(feature string) (column, value string, ok bool) {
	if e == nil {
		return "", "", false
	}
	for _, c := range e.Columns {
		for k, f := range c.Features() {
			if f == feature {
				if c.Kind == OneHot {
					return c.Name, c.Categories[k], true
				}
				return c.Name, "", true
			}
		}
	}
	return "", "", false
}

// Validate reports an encoding that cannot have been fitted: an unknown kind, a
// one-hot column without categories, shares that are not in [0, 1], a bad layout.
func (e *Encoding) Validate() error {
	seen := map[string]bool{}
	for _, c := range e.Columns {
		if seen[c.Name] {
			return fmt.Errorf("encoding: column %q twice", c.Name)
		}
		seen[c.Name] = true
		switch c.Kind {
		case OneHot:
			if len(c.Categories) == 0 {
				return fmt.Errorf("encoding: column %q: one-hot without categories", c.Name)
			}
		case Frequency:
			if len(c.Shares) != len(c.Categories) {
				return fmt.Errorf("encoding: column %q: %d shares for %d categories", c.Name, len(c.Shares), len(c.Categories))
			}
			for _, s := range c.Shares {
				if !(s >= 0 && s <= 1) {
					return fmt.Errorf("encoding: column %q: share %v is not in [0, 1]", c.Name, s)
				}
			}
		case Date:
			if !slices.Contains(dateLayouts, c.Layout) {
				return fmt.Errorf("encoding: column %q: date layout %q is not one udocc reads", c.Name, c.Layout)
			}
		default:
			return fmt.Errorf("encoding: column %q: kind %q (want %s, %s or %s)", c.Name, c.Kind, OneHot, Frequency, Date)
		}
	}
	return nil
}

// dateLayouts are the date and time layouts a text column is read as a date in, tried
// in order: ISO 8601 and its common spellings, then day.month.year.
var dateLayouts = []string{
	"2006-01-02",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04:05",
	"2006-01-02 15:04",
	"2006-01-02T15:04",
	time.RFC3339Nano,
	"2006-01-02 15:04:05.999999999",
	"2006/01/02",
	"02.01.2006",
}

// textColumn is one text column's cells, one a data row of the file, with each row's
// line (1-based) for errors.
type textColumn struct {
	name  string
	index int // 0-based, in the header
	cells []string
}

// fitEncoding chooses each column's code from its cells (of the rows the table keeps):
// a date where every cell that is not missing reads in one layout, else a category,
// one-hot up to oneHotMax values. A column most of whose cells are numbers is refused,
// naming its first cell that is not: a typo in a numeric column, not a category.
//
// A category whose every value is distinct, of more than oneHotMax values, is an
// identifier, not a feature: it is left out and named in ids.
func fitEncoding(cols []textColumn, rows []int, lines []int, oneHotMax int) (e *Encoding, ids []string, err error) {
	if oneHotMax == 0 {
		oneHotMax = DefaultOneHotMax
	}
	e = &Encoding{}
	for _, col := range cols {
		var present []string
		numbers, firstText := 0, -1
		for _, i := range rows {
			s := strings.TrimSpace(col.cells[i])
			if isMissingCell(s) {
				continue
			}
			present = append(present, s)
			if _, err := decimal.Parse(s); err == nil {
				numbers++
			} else if firstText < 0 {
				firstText = i
			}
		}
		if len(present) == 0 {
			continue // every cell missing: left out, as an empty numeric column is
		}
		if IsLabelName(col.name) {
			// A label read as a feature would leak the answer into training.
			return nil, nil, remedyError(errNotNumeric, fmt.Sprintf("column %d (%s) holds text and is named as a label is: if it is the label, say so with ", col.index+1, quoteValue(col.name)),
				setting("LabelColumn", col.name), "; else leave it out with ", setting("Selection.Drop", col.name))
		}
		for _, i := range rows {
			if s := strings.TrimSpace(col.cells[i]); len(s) > maxCategory {
				return nil, nil, remedyError(errNotNumeric, fmt.Sprintf("line %d, column %d (%s): %s: a category's value is at most %d bytes; leave the column out with ",
					lines[i], col.index+1, quoteValue(col.name), quoteValue(s), maxCategory), setting("Selection.Drop", col.name))
			}
		}
		if 2*numbers > len(present) {
			return nil, nil, &RemedyError{Err: errNotNumeric, Remedy: remedy(fmt.Sprintf("line %d, column %d (%s): %s: %v (the column's other cells are numbers: correct the cell, or leave the column out with ",
				lines[firstText], col.index+1, quoteValue(col.name), quoteValue(strings.TrimSpace(col.cells[firstText])), errNotNumeric), setting("Selection.Drop", col.name), ")")}
		}
		if layout, ok := dateLayout(present); ok {
			e.Columns = append(e.Columns, ColumnCode{Name: col.name, Kind: Date, Layout: layout})
			continue
		}
		count := map[string]int{}
		for _, s := range present {
			count[s]++
		}
		cats := make([]string, 0, len(count))
		for v := range count {
			cats = append(cats, v)
		}
		// The most frequent first, ties by value: the order is the file's content's.
		slices.SortFunc(cats, func(a, b string) int {
			return cmp.Or(cmp.Compare(count[b], count[a]), strings.Compare(a, b))
		})
		if len(cats) > oneHotMax && len(cats) == len(present) {
			ids = append(ids, col.name)
			continue
		}
		if len(cats) <= oneHotMax {
			e.Columns = append(e.Columns, ColumnCode{Name: col.name, Kind: OneHot, Categories: cats})
			continue
		}
		shares := make([]float64, len(cats))
		for k, v := range cats {
			shares[k] = float64(count[v]) / float64(len(rows))
		}
		e.Columns = append(e.Columns, ColumnCode{Name: col.name, Kind: Frequency, Categories: cats, Shares: shares})
	}
	return e, ids, nil
}

// dateLayout is the first of dateLayouts every cell reads in.
func dateLayout(cells []string) (string, bool) {
	for _, layout := range dateLayouts {
		ok := true
		for _, s := range cells {
			if _, err := time.Parse(layout, s); err != nil {
				ok = false
				break
			}
		}
		if ok {
			return layout, true
		}
	}
	return "", false
}

// days is t as days since 1970-01-01 00:00 UTC.
func days(t time.Time) float64 { return float64(t.Unix())/86400 + float64(t.Nanosecond())/86400e9 }

// apply encodes the cells of cols (one per ColumnCode of e, in order) for the kept rows
// into an N×Width matrix, and counts per column the values not seen in training. A date
// that does not read in the column's layout is refused, naming its line and column.
func (e *Encoding) apply(cols []textColumn, rows []int, lines []int) ([]float32, []int, error) {
	w := e.Width()
	x := make([]float32, len(rows)*w)
	unseen := make([]int, len(e.Columns))
	off := 0
	for c, code := range e.Columns {
		col := cols[c]
		enc := code.Encoder()
		width := enc.Width()
		for r, i := range rows {
			s := col.cells[i]
			u, err := enc.Encode(s, x[r*w+off:r*w+off+width])
			if err != nil {
				return nil, nil, fmt.Errorf("line %d, column %d (%s): %w", lines[i], col.index+1, quoteValue(col.name), err)
			}
			if u {
				unseen[c]++
			}
		}
		off += width
	}
	if !slices.ContainsFunc(unseen, func(n int) bool { return n > 0 }) {
		unseen = nil
	}
	return x, unseen, nil
}

// Encoder encodes one text column's cells into its features (ColumnCode.Features), a
// cell at a time: for a reader of rows one by one, as a server is.
type Encoder struct {
	code  ColumnCode
	index map[string]int
}

// Encoder is the encoder of c's cells.
func (c ColumnCode) Encoder() *Encoder {
	e := &Encoder{code: c, index: make(map[string]int, len(c.Categories))}
	for k, v := range c.Categories {
		e.index[v] = k
	}
	return e
}

// Name is the column's name; Width the features it writes.
func (e *Encoder) Name() string { return e.code.Name }
func (e *Encoder) Width() int   { return len(e.code.Features()) }

// Encode writes cell's features into dst (Width values). One-hot writes 0 and 1, all 0
// for a missing or unseen value. Frequency writes the value's share: NaN for a missing
// cell, 0 for an unseen value. A date writes its days, NaN for a missing cell. unseen
// reports a value training did not hold. err is a cell that is no date in the column's
// layout.
func (e *Encoder) Encode(cell string, dst []float32) (unseen bool, err error) {
	s := strings.TrimSpace(cell)
	missing := isMissingCell(s)
	nan := float32(math.NaN())
	clear(dst)
	switch e.code.Kind {
	case OneHot:
		if k, ok := e.index[s]; ok {
			dst[k] = 1
		} else if !missing {
			unseen = true
		}
	case Frequency:
		switch k, ok := e.index[s]; {
		case ok:
			dst[0] = float32(e.code.Shares[k])
		case missing:
			dst[0] = nan
		default:
			unseen = true // a value never seen is as rare as can be
		}
	case Date:
		if missing {
			dst[0] = nan
			break
		}
		t, perr := time.Parse(e.code.Layout, s)
		if perr != nil {
			return false, fmt.Errorf("%s is not a date in the layout %s the model read this column in: %w", quoteValue(s), e.code.Layout, errNotNumeric)
		}
		dst[0] = float32(days(t))
	}
	return unseen, nil
}

// readTextColumns reads the cells of the named columns of a delimited text (gzipped when
// gz), one per data row in the file's order, with each row's line: a second pass over
// the file, after the table's numbers are read.
func readTextColumns(path string, gz bool, delim rune, named bool, names []string) ([]textColumn, []int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var src io.Reader = f
	if gz {
		if src, err = newGzipMembers(bufio.NewReaderSize(f, csvBlock)); err != nil {
			return nil, nil, err
		}
	}
	br := newTextReader(src)
	if delim, err = sniffDelimiter(br, delim); err != nil {
		return nil, nil, err
	}
	r := newRecordReader(br, delim, true)
	header, err := r.Read()
	if err != nil {
		return nil, nil, csvParseError(err)
	}
	cols := make([]textColumn, len(names))
	for c, name := range names {
		j := slices.IndexFunc(header, func(h string) bool { return strings.TrimSpace(h) == name })
		if j < 0 {
			return nil, nil, fmt.Errorf("line 1: no column named %s, which the model encodes (%s): %w", quoteValue(name), "a category or a date", errMissingVariable)
		}
		cols[c] = textColumn{name: name, index: j}
	}
	var lines []int
	first := true
	for {
		var rec []string
		if first && !named {
			rec, first = header, false
		} else if rec, err = r.Read(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, nil, csvParseError(err)
		}
		line, _ := r.FieldPos(0)
		if !named && len(lines) == 0 {
			line = 1
		}
		lines = append(lines, line)
		for c := range cols {
			if cols[c].index >= len(rec) {
				return nil, nil, fmt.Errorf("line %d: %d cells, the first row has %d: %w", line, len(rec), len(header), errRagged)
			}
			cols[c].cells = append(cols[c].cells, strings.Clone(rec[cols[c].index]))
		}
	}
	return cols, lines, nil
}

// encodeText is the second half of reading a delimited text whose text columns are
// encoded: it reads the columns' cells (readTextColumns), fits an encoding of
// ds.TextDropped (fit) or takes opts.Encoding, and appends its features to ds. The rows
// are those ds kept (RowIndex).
func encodeText(ds *Dataset, path string, gz bool, opts LoadOptions, fit bool) error {
	var names []string
	if fit {
		names = ds.TextDropped
	} else {
		for _, c := range opts.Encoding.Columns {
			names = append(names, c.Name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	cols, lines, err := readTextColumns(path, gz, opts.Delimiter, ds.Named, names)
	if err != nil {
		return err
	}
	total := ds.N + len(ds.EmptyRows) + ds.RowsDropped
	if len(lines) != total {
		return fmt.Errorf("the text columns have %d rows, the numeric ones %d: %w", len(lines), total, ErrFormat)
	}
	rows := ds.RowIndex
	if rows == nil {
		rows = make([]int, ds.N)
		for i := range rows {
			rows[i] = i
		}
	}
	e := opts.Encoding
	if fit {
		var ids []string
		if e, ids, err = fitEncoding(cols, rows, lines, opts.OneHotMax); err != nil {
			return err
		}
		var kept []textColumn
		ds.TextDropped = nil
		for _, col := range cols {
			switch {
			case slices.ContainsFunc(e.Columns, func(c ColumnCode) bool { return c.Name == col.name }):
				kept = append(kept, col)
			case slices.Contains(ids, col.name):
				ds.TextDropped = append(ds.TextDropped, col.name)
				ds.Notes = append(ds.Notes, remedy(fmt.Sprintf("column %s holds a different text in every row, an identifier: left out (", quoteValue(col.name)), setting("Selection.ID", col.name), " carries it into the scores)"))
			default:
				ds.EmptyColumns = append(ds.EmptyColumns, col.name)
			}
		}
		cols = kept
	}
	if len(e.Columns) == 0 {
		return nil
	}
	x, unseen, err := e.apply(cols, rows, lines)
	if err != nil {
		return err
	}
	if opts.Missing == MissingError {
		w := e.Width()
		for k, v := range x {
			if v != v {
				r := k / w
				return &RemedyError{Err: ErrMissingValue, Remedy: remedy(fmt.Sprintf("line %d, column %s: a missing value: %v (", lines[rows[r]], quoteValue(e.featureColumn(k%w)), ErrMissingValue),
					setting("Missing", string(MissingKeep)), " fills it with the column's training median)")}
			}
		}
	}
	ds.appendColumns(e, x)
	ds.Encoding, ds.Unseen = e, unseen
	if opts.Missing == MissingDropRows && ds.Missing != nil {
		before := rows
		if err := ds.settleMissing(MissingDropRows, false, false); err != nil {
			return err
		}
		for k, i := range ds.RowIndex { // settleMissing numbers the rows it kept from 0
			ds.RowIndex[k] = before[i]
		}
	}
	return nil
}

// featureColumn is the column the k-th feature of e comes from.
func (e *Encoding) featureColumn(k int) string {
	for _, c := range e.Columns {
		w := len(c.Features())
		if k < w {
			return c.Name
		}
		k -= w
	}
	return ""
}

// appendColumns adds e's features, the N×Width matrix x, after ds's, counting their
// missing values (NaN) in Missing.
func (ds *Dataset) appendColumns(e *Encoding, x []float32) {
	w := e.Width()
	d := ds.D + w
	out := make([]float32, ds.N*d)
	for i := range ds.N {
		copy(out[i*d:], ds.X[i*ds.D:(i+1)*ds.D])
		copy(out[i*d+ds.D:(i+1)*d], x[i*w:(i+1)*w])
	}
	missing := make([]int, d)
	copy(missing, ds.Missing)
	any := ds.Missing != nil
	for k, v := range x {
		if v != v {
			missing[ds.D+k%w]++
			any = true
		}
	}
	if any {
		ds.Missing = missing
	}
	for _, c := range e.Columns {
		ds.Features = append(ds.Features, c.Features()...)
	}
	ds.X, ds.D = out, d
}

// idName is the name of an id column whose header is h: "index" for an empty header,
// as pandas calls a table's unnamed index.
func idName(h string) string {
	if h == "" {
		return "index"
	}
	return h
}

package data

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"github.com/udocc/udocc/internal/decimal"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/udocc/udocc/internal/atomicfile"
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
func ScoreColumns() []string { return []string{"score", "rank", "label"} }

// TableFormat is the format WriteAppended writes to path, by its extension: "csv" or
// "parquet".
func TableFormat(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".csv":
		return "csv", nil
	case ".parquet":
		return "parquet", nil
	default:
		return "", fmt.Errorf("data: %s: extension %q: want .csv or .parquet: %w", path, ext, ErrUnknownFormat)
	}
}

// WriteAppended writes the table at src to dst with cols added after its columns, in
// one atomic step. src is read as Load reads it with opts, but with every column. dst
// is CSV or Parquet by its extension. A Parquet source keeps its column types in a
// Parquet dst. A text source written as Parquet has DOUBLE columns where its first data
// row holds numbers, STRING columns elsewhere, and empty cells null. A MAT, NPY or NPZ
// source is its matrix, columns x1…xD.
func WriteAppended(src string, opts LoadOptions, dst string, cols []Appended) error {
	out, err := TableFormat(dst)
	if err != nil {
		return err
	}
	format, err := formatOf(src, opts.Format)
	if err != nil {
		return err
	}
	var t *table
	switch format {
	case "parquet":
		t, err = openParquetTable(src)
	case "mat", "npy", "npz":
		t, err = openMatrixTable(src, opts)
	default:
		t, err = openTextTable(src, format, opts)
	}
	if err != nil {
		return fmt.Errorf("data: %s: %w", src, err)
	}
	defer t.close()
	for _, c := range cols {
		if slices.Contains(t.names, c.Name) {
			return fmt.Errorf("data: %s: already has a column %q; cannot add one: %w", src, c.Name, ErrOptions)
		}
	}
	err = atomicfile.Write(dst, func(w io.Writer) error {
		if out == "csv" {
			return t.writeCSV(w, cols)
		}
		return t.writeParquet(w, cols)
	})
	if err != nil {
		return fmt.Errorf("data: %s: %w", dst, err)
	}
	return nil
}

// table is a source table read row by row: as text cells (text and matrix sources),
// or as Parquet rows.
type table struct {
	names   []string
	numeric []bool                   // per column, for a Parquet dst from text
	next    func() ([]string, error) // the next row's cells, "" for a null; io.EOF at the end
	pf      *parquet.File            // a Parquet source
	close   func()
}

func openTextTable(path, format string, opts LoadOptions) (*table, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(format, ".gz") {
		if b, err = gunzip(b); err != nil {
			return nil, err
		}
	}
	b = bytes.TrimPrefix(b, []byte("\uFEFF"))
	delim := opts.Delimiter
	if delim == 0 {
		if delim, err = detectDelimiter(b); err != nil {
			return nil, err
		}
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.Comma, r.FieldsPerRecord = delim, -1
	r.TrimLeadingSpace = delim == whitespace // a run of spaces is one delimiter
	first, err := r.Read()
	if err != nil {
		return nil, csvParseError(err)
	}
	t := &table{names: first, close: func() {}}
	var pending [][]string
	if !(opts.Header == HeaderYes || opts.Header == HeaderAuto && !allNumbers(first, false)) {
		t.names, pending = defaultFeatures(len(first)), [][]string{first}
	} else if rec, err := r.Read(); err == nil {
		pending = [][]string{rec}
	}
	t.numeric = make([]bool, len(t.names))
	for j := range t.numeric {
		t.numeric[j] = len(pending) > 0 && j < len(pending[0]) && looksNumeric(pending[0][j], false)
	}
	t.next = func() ([]string, error) {
		if len(pending) > 0 {
			rec := pending[0]
			pending = pending[1:]
			return rec, nil
		}
		rec, err := r.Read()
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, csvParseError(err)
		}
		return rec, err
	}
	return t, nil
}

func openMatrixTable(path string, opts LoadOptions) (*table, error) {
	opts.Selection, opts.full = Selection{}, true
	ds, err := Load(path, opts)
	if err != nil {
		return nil, err
	}
	t := &table{names: ds.Features, numeric: make([]bool, ds.D), close: func() {}}
	for j := range t.numeric {
		t.numeric[j] = true
	}
	i := 0
	t.next = func() ([]string, error) {
		if i == ds.N {
			return nil, io.EOF
		}
		rec := make([]string, ds.D)
		for j := range rec {
			rec[j] = ds.wideText(i*ds.D + j)
		}
		i++
		return rec, nil
	}
	return t, nil
}

func openParquetTable(path string) (*table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil {
		var pf *parquet.File
		if pf, err = openParquet(f, st.Size()); err == nil {
			t := &table{pf: pf, close: func() { f.Close() }}
			for _, c := range pf.Root().Columns() {
				if !flat(c) {
					f.Close()
					return nil, fmt.Errorf("column %q is %s: %w", c.Name(), typeName(c), ErrFormat)
				}
				t.names = append(t.names, c.Name())
			}
			return t, nil
		}
	}
	f.Close()
	return nil, err
}

// eachRow calls do with each row's cells as text; a Parquet source's are converted.
func (t *table) eachRow(do func(i int, cells []string) error) error {
	if t.pf == nil {
		for i := 0; ; i++ {
			rec, err := t.next()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			if len(rec) != len(t.names) {
				return fmt.Errorf("row %d: %d cells for %d columns: %w", i+1, len(rec), len(t.names), errRagged)
			}
			if err := do(i, rec); err != nil {
				return err
			}
		}
	}
	cols := t.pf.Root().Columns()
	cells := make([]string, len(cols))
	i := 0
	return t.eachParquetRow(func(row parquet.Row) error {
		for j := range cells {
			cells[j] = ""
		}
		for _, v := range row {
			if c := v.Column(); c < len(cols) && !v.IsNull() {
				cells[c] = toText(cols[c], v)
			}
		}
		i++
		return do(i-1, cells)
	})
}

func (t *table) eachParquetRow(do func(parquet.Row) error) error {
	buf := make([]parquet.Row, 256)
	for _, rg := range t.pf.RowGroups() {
		rows := rg.Rows()
		for {
			n, err := rows.ReadRows(buf)
			for _, row := range buf[:n] {
				if err := do(row); err != nil {
					rows.Close()
					return err
				}
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				rows.Close()
				return fmt.Errorf("parquet: %v: %w", err, ErrFormat)
			}
		}
		rows.Close()
	}
	return nil
}

// checkRows reports a source whose row count differs from the appended columns'.
func checkRows(rows int, cols []Appended) error {
	for _, c := range cols {
		if len(c.Values) != rows {
			return fmt.Errorf("column %q has %d values for %d rows: %w", c.Name, len(c.Values), rows, errLengthMismatch)
		}
	}
	return nil
}

// appendedText is row i of column c as CSV text.
func appendedText(c Appended, i int) string {
	v := c.Values[i]
	switch {
	case math.IsNaN(v):
		return ""
	case c.Integer:
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func (t *table) writeCSV(w io.Writer, cols []Appended) error {
	cw := csv.NewWriter(w)
	header := slices.Clone(t.names)
	for _, c := range cols {
		header = append(header, c.Name)
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	rows := 0
	err := t.eachRow(func(i int, cells []string) error {
		if i >= len(cols[0].Values) {
			return checkRows(i+1, cols)
		}
		rec := append(slices.Clone(cells), make([]string, len(cols))...)
		for k, c := range cols {
			rec[len(cells)+k] = appendedText(c, i)
		}
		rows++
		return cw.Write(rec)
	})
	if err != nil {
		return err
	}
	if err := checkRows(rows, cols); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// orderedGroup is a Parquet group whose fields keep the order given (parquet.Group, a
// map, sorts them by name).
type orderedGroup struct {
	parquet.Group
	fields []parquet.Field
}

func (g orderedGroup) Fields() []parquet.Field { return g.fields }

// namedField names a node inside an orderedGroup.
type namedField struct {
	parquet.Node
	name string
}

func (f namedField) Name() string                      { return f.name }
func (f namedField) Value(reflect.Value) reflect.Value { return reflect.Value{} }

func appendedFields(cols []Appended) []parquet.Field {
	var out []parquet.Field
	for _, c := range cols {
		node := parquet.Optional(parquet.Leaf(parquet.DoubleType))
		if c.Integer {
			node = parquet.Optional(parquet.Int(64))
		}
		out = append(out, namedField{node, c.Name})
	}
	return out
}

// appendedValue is row i of column c as a value of leaf column j.
func appendedValue(c Appended, i, j int) parquet.Value {
	v := c.Values[i]
	switch {
	case math.IsNaN(v):
		return parquet.NullValue().Level(0, 0, j)
	case c.Integer:
		return parquet.Int64Value(int64(v)).Level(0, 1, j)
	}
	return parquet.DoubleValue(v).Level(0, 1, j)
}

func (t *table) writeParquet(w io.Writer, cols []Appended) error {
	var fields []parquet.Field
	if t.pf != nil {
		fields = t.pf.Schema().Fields()
	} else {
		for j, name := range t.names {
			node := parquet.Optional(parquet.String())
			if t.numeric[j] {
				node = parquet.Optional(parquet.Leaf(parquet.DoubleType))
			}
			fields = append(fields, namedField{node, name})
		}
	}
	fields = append(fields, appendedFields(cols)...)
	schema := parquet.NewSchema("udocc", orderedGroup{fields: fields})
	pw := parquet.NewWriter(w, schema, parquet.Compression(&parquet.Snappy))
	width := len(t.names)
	rows := 0
	add := func(row parquet.Row) error {
		if rows >= len(cols[0].Values) {
			return checkRows(rows+1, cols)
		}
		for k, c := range cols {
			row = append(row, appendedValue(c, rows, width+k))
		}
		rows++
		_, err := pw.WriteRows([]parquet.Row{row})
		return err
	}
	var err error
	if t.pf != nil {
		err = t.eachParquetRow(func(row parquet.Row) error { return add(slices.Clone(row)) })
	} else {
		err = t.eachRow(func(_ int, cells []string) error {
			row := make(parquet.Row, 0, width+len(cols))
			for j, s := range cells {
				s = strings.TrimSpace(s)
				switch {
				case s == "":
					row = append(row, parquet.NullValue().Level(0, 0, j))
				case t.numeric[j]:
					v, err := decimal.Parse(s)
					if err != nil {
						return fmt.Errorf("row %d, column %s: %s: %w", rows+1, quoteValue(t.names[j]), quoteValue(s), errNotNumeric)
					}
					row = append(row, parquet.DoubleValue(v).Level(0, 1, j))
				default:
					row = append(row, parquet.ByteArrayValue([]byte(s)).Level(0, 1, j))
				}
			}
			return add(row)
		})
	}
	if err != nil {
		return err
	}
	if err := checkRows(rows, cols); err != nil {
		return err
	}
	return pw.Close()
}

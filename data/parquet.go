package data

import (
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/udocc/udocc/internal/memory"
	"io"
	"math"
	"os"
	"slices"

	"github.com/parquet-go/parquet-go"
)

func loadParquet(path string, opts LoadOptions) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return decodeParquet(f, st.Size(), opts, loadLimits)
}

// decodeParquet reads a Parquet file of flat columns, within the limits.
// Features are the numeric columns: BOOLEAN (0/1), INT32 and INT64 (signed, unsigned or
// DECIMAL), FLOAT, DOUBLE, and FIXED_LEN_BYTE_ARRAY or BYTE_ARRAY holding a DECIMAL or
// FLOAT16. Dates, times, timestamps, INT96, strings and nested columns are not numeric.
// Row groups are read one column chunk at a time, page by page, straight into X, so
// that the table is never held twice. A null is an error naming its row and column,
// as a NaN is.
func decodeParquet(r io.ReaderAt, size int64, opts LoadOptions, lim parquetLimits) (ds *Dataset, err error) {
	defer func() {
		// parquet-go panics on some corrupt files (a bad dictionary index, a short
		// page): such a file is malformed, not a bug in the caller.
		if p := recover(); p != nil {
			ds, err = nil, fmt.Errorf("parquet: %v: %w", p, ErrFormat)
		}
	}()
	pf, err := openParquet(r, size)
	if err != nil {
		return nil, err
	}
	t, err := newParquetTable(pf, opts)
	if err != nil {
		return nil, err
	}
	n, err := t.allocate(lim)
	if err != nil {
		return nil, err
	}
	var base int64
	for g, rg := range pf.RowGroups() {
		if err := t.checkGroup(r, size, g, rg, lim); err != nil {
			return nil, err
		}
		if err := t.readGroup(rg, base); err != nil {
			return nil, err
		}
		base += rg.NumRows()
	}
	return t.dataset(n)
}

// parquetTable is a Parquet file's columns resolved to a table's roles, and the table
// read from them row group by row group.
type parquetTable struct {
	pf    *parquet.File
	cols  []*parquet.Column
	names []string
	ro    roles
	label int // the label column opts named, -1 for none
	// missing is the policy for a null feature: NaN, settled once read, or an error.
	missing Missing
	d       int64 // features
	x       []float32
	ids     []string
	lr      labelReader
}

// newParquetTable resolves the columns of pf under opts: names unique, the label and the
// id columns flat, the features numeric.
func newParquetTable(pf *parquet.File, opts LoadOptions) (*parquetTable, error) {
	cols := pf.Root().Columns()
	t := &parquetTable{pf: pf, cols: cols, names: make([]string, len(cols)), lr: labelReader{positive: opts.Positive}, missing: opts.Missing}
	numeric := make([]bool, len(cols))
	for j, c := range cols {
		t.names[j] = c.Name()
		_, numeric[j] = toFloat(c)
	}
	for j, n := range t.names {
		for k := range j {
			if t.names[k] == n {
				return nil, fmt.Errorf("column %s is both column %d and %d: %w", quoteValue(n), k+1, j+1, ErrFormat)
			}
		}
	}
	var err error
	if t.label, err = csvLabelColumn(t.names, opts); err != nil {
		return nil, err
	}
	t.ro, err = resolveColumns(t.names, numeric, t.label, opts.Selection, func(j int) string {
		return "Parquet type " + typeName(cols[j])
	})
	if err != nil {
		return nil, err
	}
	for _, j := range []int{t.ro.id, t.ro.label} {
		if j >= 0 && !flat(cols[j]) {
			return nil, fmt.Errorf("column %s is %s, not one value a row: %w", quoteValue(t.names[j]), typeName(cols[j]), errNotNumeric)
		}
	}
	t.d = int64(len(t.ro.features))
	return t, nil
}

// allocate counts the rows that the row groups declare, refuses more than lim.values
// values, no rows, or a table that does not fit in memory, and allocates the table once;
// it returns the count.
func (t *parquetTable) allocate(lim parquetLimits) (int64, error) {
	var n int64
	for _, rg := range t.pf.RowGroups() {
		if k := rg.NumRows(); k < 0 || n+k > lim.values/t.d {
			return 0, fmt.Errorf("%d rows × %d features declared, more than %d values: %w", n+k, t.d, lim.values, errTooLarge)
		}
		n += rg.NumRows()
	}
	if n == 0 {
		return 0, fmt.Errorf("no rows: %w", errEmpty)
	}
	if err := memory.Check(fmt.Sprintf("a table of %d rows x %d columns", n, t.d), tableBytes(n, t.d)); err != nil {
		return 0, err
	}
	t.x = make([]float32, n*t.d)
	if t.ro.id >= 0 {
		t.ids = make([]string, 0, n)
	}
	return n, nil
}

// checkGroup checks the pages of the column chunks that row group g (0-based) of r
// holds for the table's columns, within the limits, before any is read.
func (t *parquetTable) checkGroup(r io.ReaderAt, size int64, g int, rg parquet.RowGroup, lim parquetLimits) error {
	chunks := rg.ColumnChunks()
	for _, j := range append(slices.Clone(t.ro.features), t.ro.label, t.ro.id) {
		if j < 0 {
			continue
		}
		meta := t.pf.Metadata().RowGroups[g].Columns
		if k := t.cols[j].Index(); k >= len(meta) || len(chunks) != len(meta) {
			return fmt.Errorf("row group %d has %d column chunks: %w", g+1, len(meta), ErrFormat)
		}
		if err := checkPages(r, size, &meta[t.cols[j].Index()].MetaData, rg.NumRows(), lim); err != nil {
			return fmt.Errorf("column %s, row group %d: %w", quoteValue(t.names[j]), g+1, err)
		}
	}
	return nil
}

// readGroup reads a row group's features into x from row base on, then its labels and
// ids.
func (t *parquetTable) readGroup(rg parquet.RowGroup, base int64) error {
	chunks := rg.ColumnChunks()
	rows := rg.NumRows()
	for i, j := range t.ro.features {
		conv, _ := toFloat(t.cols[j])
		err := readChunk(chunks[t.cols[j].Index()], rows, func(row int64, v parquet.Value) error {
			if v.IsNull() && t.missing != MissingError {
				t.x[(base+row)*t.d+int64(i)] = float32(math.NaN())
				return nil
			}
			if v.IsNull() {
				return errNull
			}
			f, err := toFloat32(conv(v))
			if err != nil {
				return err
			}
			t.x[(base+row)*t.d+int64(i)] = f
			return nil
		})
		if err != nil {
			return parquetError(base, t.names[j], err)
		}
	}
	if j := t.ro.label; j >= 0 {
		err := readChunk(chunks[t.cols[j].Index()], rows, func(_ int64, v parquet.Value) error {
			if v.IsNull() {
				return errNull
			}
			return t.lr.add(toText(t.cols[j], v))
		})
		if err != nil {
			return parquetError(base, t.names[j], err)
		}
	}
	if j := t.ro.id; j >= 0 {
		err := readChunk(chunks[t.cols[j].Index()], rows, func(_ int64, v parquet.Value) error {
			s := ""
			if !v.IsNull() {
				s = toText(t.cols[j], v)
			}
			t.ids = append(t.ids, s)
			return nil
		})
		if err != nil {
			return parquetError(base, t.names[j], err)
		}
	}
	return nil
}

// dataset is the table of n rows read.
func (t *parquetTable) dataset(n int64) (*Dataset, error) {
	features := make([]string, t.d)
	for i, j := range t.ro.features {
		features[i] = t.names[j]
	}
	ds := &Dataset{N: int(n), D: int(t.d), X: t.x, Features: features, Named: true, IDs: t.ids}
	if t.label >= 0 {
		ds.LabelName = t.names[t.label]
		var err error
		if ds.Y, err = t.lr.labels(); err != nil {
			return nil, fmt.Errorf("column %s: %w", quoteValue(t.names[t.label]), err)
		}
	}
	if t.ro.id >= 0 {
		ds.IDName = t.names[t.ro.id]
	}
	for _, j := range t.ro.text {
		ds.TextDropped = append(ds.TextDropped, t.names[j])
	}
	if t.missing != MissingError {
		if err := ds.settleMissing(t.missing, false, false); err != nil {
			return nil, err
		}
	}
	return ds, nil
}

// openParquet opens a Parquet file after checking its frame: "PAR1" at both ends and
// a footer that fits in the file, whose length parquet-go would otherwise allocate
// before reading (4 GiB from 8 corrupt bytes).
func openParquet(r io.ReaderAt, size int64) (*parquet.File, error) {
	var head, tail [4]byte
	var foot [8]byte
	if size < 12 {
		return nil, fmt.Errorf("parquet: %d bytes, too short for a Parquet file: %w", size, ErrFormat)
	}
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return nil, fmt.Errorf("parquet: %v: %w", err, ErrFormat)
	}
	if _, err := r.ReadAt(foot[:], size-8); err != nil {
		return nil, fmt.Errorf("parquet: %v: %w", err, ErrFormat)
	}
	copy(tail[:], foot[4:])
	if string(head[:]) != "PAR1" || string(tail[:]) != "PAR1" {
		return nil, fmt.Errorf("parquet: no PAR1 magic at the start and the end (an encrypted or a different file): %w", ErrFormat)
	}
	n := int64(binary.LittleEndian.Uint32(foot[:4]))
	if n > size-12 {
		return nil, fmt.Errorf("parquet: a footer of %d bytes in a file of %d: %w", n, size, ErrFormat)
	}
	if err := checkFooter(r, size, n); err != nil {
		return nil, err
	}
	pf, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, fmt.Errorf("parquet: %v: %w", err, ErrFormat)
	}
	return pf, nil
}

// errNull reports a null (missing) value in a feature or label column.
var errNull = errors.New("null (missing) value")

// rowError is an error at a row of a column chunk, 0-based within its row group.
type rowError struct {
	row int64
	err error
}

func (e *rowError) Error() string { return e.err.Error() }
func (e *rowError) Unwrap() error { return e.err }

// parquetError places err in the file: the 1-based row of the table and the column.
func parquetError(base int64, name string, err error) error {
	var re *rowError
	if errors.As(err, &re) {
		return fmt.Errorf("row %d, column %s: %w", base+re.row+1, quoteValue(name), re.err)
	}
	return fmt.Errorf("column %s, row group from row %d: %w", quoteValue(name), base+1, err)
}

// readChunk calls do for each of the rows values of a column chunk, in order, reading
// it page by page.
func readChunk(chunk parquet.ColumnChunk, rows int64, do func(row int64, v parquet.Value) error) error {
	pages := chunk.Pages()
	defer pages.Close()
	buf := make([]parquet.Value, 1024)
	var row int64
	for {
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%v: %w", err, ErrFormat)
		}
		err = readPage(p, rows, &row, buf, do)
		parquet.Release(p)
		if err != nil {
			return err
		}
	}
	if row != rows {
		return fmt.Errorf("%d values for %d rows: %w", row, rows, ErrFormat)
	}
	return nil
}

func readPage(p parquet.Page, rows int64, row *int64, buf []parquet.Value, do func(int64, parquet.Value) error) error {
	vr := p.Values()
	for {
		k, err := vr.ReadValues(buf)
		for _, v := range buf[:k] {
			if *row >= rows {
				return fmt.Errorf("more values than the %d rows: %w", rows, ErrFormat)
			}
			if err := do(*row, v); err != nil {
				return &rowError{*row, err}
			}
			*row++
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%v: %w", err, ErrFormat)
		}
		if k == 0 {
			return fmt.Errorf("a page that yields no values: %w", ErrFormat)
		}
	}
}

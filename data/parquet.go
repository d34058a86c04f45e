package data

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"slices"
	"strconv"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
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
	cols := pf.Root().Columns()
	names := make([]string, len(cols))
	numeric := make([]bool, len(cols))
	for j, c := range cols {
		names[j] = c.Name()
		_, numeric[j] = toFloat(c)
	}
	for j, n := range names {
		for k := range j {
			if names[k] == n {
				return nil, fmt.Errorf("column %s is both column %d and %d: %w", quoteValue(n), k+1, j+1, ErrFormat)
			}
		}
	}
	label, err := csvLabelColumn(names, opts)
	if err != nil {
		return nil, err
	}
	ro, err := resolveColumns(names, numeric, label, opts.Selection, func(j int) string {
		return "Parquet type " + typeName(cols[j])
	})
	if err != nil {
		return nil, err
	}
	for _, j := range []int{ro.id, ro.label} {
		if j >= 0 && !flat(cols[j]) {
			return nil, fmt.Errorf("column %s is %s, not one value a row: %w", quoteValue(names[j]), typeName(cols[j]), ErrNotNumeric)
		}
	}
	d := int64(len(ro.features))
	var n int64
	for _, rg := range pf.RowGroups() {
		if k := rg.NumRows(); k < 0 || n+k > lim.values/d {
			return nil, fmt.Errorf("%d rows × %d features declared, more than %d values: %w", n+k, d, lim.values, ErrTooLarge)
		}
		n += rg.NumRows()
	}
	if n == 0 {
		return nil, fmt.Errorf("no rows: %w", ErrEmpty)
	}
	if err := CheckMemory(fmt.Sprintf("a table of %d rows x %d columns", n, d), tableBytes(n, d)); err != nil {
		return nil, err
	}
	x := make([]float32, n*d)
	var ids []string
	if ro.id >= 0 {
		ids = make([]string, 0, n)
	}
	lr := labelReader{positive: opts.Positive}
	var base int64
	for g, rg := range pf.RowGroups() {
		chunks := rg.ColumnChunks()
		rows := rg.NumRows()
		for _, j := range append(slices.Clone(ro.features), ro.label, ro.id) {
			if j < 0 {
				continue
			}
			meta := pf.Metadata().RowGroups[g].Columns
			if k := cols[j].Index(); k >= len(meta) || len(chunks) != len(meta) {
				return nil, fmt.Errorf("row group %d has %d column chunks: %w", g+1, len(meta), ErrFormat)
			}
			if err := checkPages(r, size, &meta[cols[j].Index()].MetaData, rows, lim); err != nil {
				return nil, fmt.Errorf("column %s, row group %d: %w", quoteValue(names[j]), g+1, err)
			}
		}
		for i, j := range ro.features {
			conv, _ := toFloat(cols[j])
			err := readChunk(chunks[cols[j].Index()], rows, func(row int64, v parquet.Value) error {
				if v.IsNull() {
					return ErrNull
				}
				f, err := toFloat32(conv(v))
				if err != nil {
					return err
				}
				x[(base+row)*d+int64(i)] = f
				return nil
			})
			if err != nil {
				return nil, parquetError(base, names[j], err)
			}
		}
		if ro.label >= 0 {
			err := readChunk(chunks[cols[ro.label].Index()], rows, func(_ int64, v parquet.Value) error {
				if v.IsNull() {
					return ErrNull
				}
				return lr.add(toText(cols[ro.label], v))
			})
			if err != nil {
				return nil, parquetError(base, names[ro.label], err)
			}
		}
		if ro.id >= 0 {
			err := readChunk(chunks[cols[ro.id].Index()], rows, func(_ int64, v parquet.Value) error {
				s := ""
				if !v.IsNull() {
					s = toText(cols[ro.id], v)
				}
				ids = append(ids, s)
				return nil
			})
			if err != nil {
				return nil, parquetError(base, names[ro.id], err)
			}
		}
		base += rows
	}
	features := make([]string, d)
	for i, j := range ro.features {
		features[i] = names[j]
	}
	ds = &Dataset{N: int(n), D: int(d), X: x, Features: features, Named: true, IDs: ids}
	if label >= 0 {
		if ds.Y, err = lr.labels(); err != nil {
			return nil, fmt.Errorf("column %s: %w", quoteValue(names[label]), err)
		}
	}
	if ro.id >= 0 {
		ds.IDName = names[ro.id]
	}
	for _, j := range ro.text {
		ds.TextDropped = append(ds.TextDropped, names[j])
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

// ErrNull reports a null (missing) value in a feature or label column.
var ErrNull = errors.New("null (missing) value")

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

// flat reports whether a column holds at most one value a row (a leaf, not repeated).
func flat(c *parquet.Column) bool { return c.Leaf() && !c.Repeated() }

// typeName is a column's type as a message names it: its physical type, and its
// logical type where it has one.
func typeName(c *parquet.Column) string {
	if !flat(c) {
		return "a nested or repeated column"
	}
	s := c.Type().Kind().String()
	if lt := c.Type().LogicalType(); lt != nil && lt.Value != nil {
		s += " (" + lt.String() + ")"
	}
	return s
}

// toFloat returns the conversion of a numeric column's values to float64, and false
// for a column that holds no numbers.
func toFloat(c *parquet.Column) (func(parquet.Value) float64, bool) {
	if !flat(c) {
		return nil, false
	}
	var lv format.LogicalTypeValue
	if lt := c.Type().LogicalType(); lt != nil {
		lv = lt.Value
	}
	switch t := lv.(type) {
	case nil:
	case *format.IntType:
		if !t.IsSigned {
			switch c.Type().Kind() {
			case parquet.Int32:
				return func(v parquet.Value) float64 { return float64(v.Uint32()) }, true
			case parquet.Int64:
				return func(v parquet.Value) float64 { return float64(v.Uint64()) }, true
			}
		}
	case *format.DecimalType:
		return decimalFloat(c.Type().Kind(), t.Scale)
	case *format.Float16Type:
		if c.Type().Kind() == parquet.FixedLenByteArray && c.Type().Length() == 2 {
			return func(v parquet.Value) float64 { return float16(v.ByteArray()) }, true
		}
		return nil, false
	default:
		return nil, false // strings, dates, times, timestamps, UUIDs, JSON, …
	}
	switch c.Type().Kind() {
	case parquet.Boolean:
		return func(v parquet.Value) float64 {
			if v.Boolean() {
				return 1
			}
			return 0
		}, true
	case parquet.Int32:
		return func(v parquet.Value) float64 { return float64(v.Int32()) }, true
	case parquet.Int64:
		return func(v parquet.Value) float64 { return float64(v.Int64()) }, true
	case parquet.Float:
		return func(v parquet.Value) float64 { return float64(v.Float()) }, true
	case parquet.Double:
		return func(v parquet.Value) float64 { return v.Double() }, true
	}
	return nil, false // INT96 (a legacy timestamp), byte arrays without a numeric type
}

// decimalFloat converts DECIMAL values (unscaled integer × 10^-scale) to the float64
// nearest to them, as strconv.ParseFloat reads the same number written out, so that a
// Parquet decimal and its CSV text give the same bits.
func decimalFloat(kind parquet.Kind, scale int32) (func(parquet.Value) float64, bool) {
	if scale < 0 || scale > 38 {
		return nil, false
	}
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
	var unscaled func(parquet.Value) *big.Int
	switch kind {
	case parquet.Int32:
		unscaled = func(v parquet.Value) *big.Int { return big.NewInt(int64(v.Int32())) }
	case parquet.Int64:
		unscaled = func(v parquet.Value) *big.Int { return big.NewInt(v.Int64()) }
	case parquet.FixedLenByteArray, parquet.ByteArray:
		unscaled = func(v parquet.Value) *big.Int { return twosComplement(v.ByteArray()) }
	default:
		return nil, false
	}
	return func(v parquet.Value) float64 {
		f, _ := new(big.Rat).SetFrac(unscaled(v), den).Float64()
		return f
	}, true
}

// decimalText writes a DECIMAL value as its exact decimal text.
func decimalText(kind parquet.Kind, scale int32, v parquet.Value) string {
	var u *big.Int
	switch kind {
	case parquet.Int32:
		u = big.NewInt(int64(v.Int32()))
	case parquet.Int64:
		u = big.NewInt(v.Int64())
	default:
		u = twosComplement(v.ByteArray())
	}
	if scale <= 0 || scale > 38 {
		return u.String()
	}
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
	return new(big.Rat).SetFrac(u, den).FloatString(int(scale))
}

// twosComplement reads a big-endian two's-complement integer, as DECIMAL stores it in
// byte arrays.
func twosComplement(b []byte) *big.Int {
	u := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		u.Sub(u, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return u
}

// float16 decodes an IEEE 754 half-precision number stored little-endian, as the
// FLOAT16 logical type lays it out.
func float16(b []byte) float64 {
	if len(b) != 2 {
		return math.NaN()
	}
	h := uint16(b[0]) | uint16(b[1])<<8
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp, frac := int(h>>10&0x1f), float64(h&0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	}
	return sign * math.Ldexp(1024+frac, exp-25)
}

// toText writes a value of any flat column as text, for ids and labels: strings as
// they are, numbers as strconv writes them, DECIMAL exactly, booleans as true/false.
func toText(c *parquet.Column, v parquet.Value) string {
	if lt := c.Type().LogicalType(); lt != nil {
		switch t := lt.Value.(type) {
		case *format.DecimalType:
			return decimalText(c.Type().Kind(), t.Scale, v)
		case *format.IntType:
			if !t.IsSigned {
				return strconv.FormatUint(v.Uint64()&uintMask(c.Type().Kind()), 10)
			}
		}
	}
	switch c.Type().Kind() {
	case parquet.Boolean:
		return strconv.FormatBool(v.Boolean())
	case parquet.Int32:
		return strconv.FormatInt(int64(v.Int32()), 10)
	case parquet.Int64:
		return strconv.FormatInt(v.Int64(), 10)
	case parquet.Float:
		return strconv.FormatFloat(float64(v.Float()), 'g', -1, 32)
	case parquet.Double:
		return strconv.FormatFloat(v.Double(), 'g', -1, 64)
	case parquet.ByteArray, parquet.FixedLenByteArray:
		return string(v.ByteArray())
	}
	return v.String()
}

func uintMask(k parquet.Kind) uint64 {
	if k == parquet.Int32 {
		return math.MaxUint32
	}
	return math.MaxUint64
}

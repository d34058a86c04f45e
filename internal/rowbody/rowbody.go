package rowbody

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/decimal"
)

// The kinds of bad input; every *Error wraps one of them.
var (
	// ErrSyntax reports a body that is not the JSON or CSV it says it is.
	ErrSyntax = errors.New("malformed body")
	// ErrColumns reports a row or header whose columns are not the model's: a count or a
	// name that differs, a name twice, names where the model has none.
	ErrColumns = errors.New("columns do not match the model's")
	// ErrValue reports a cell that is not a finite float32 number (text, ±Inf, beyond
	// ±3.4e38), or a row whose every cell is missing. A missing cell (empty, NA, NaN,
	// null, as pandas reads them; JSON's null) reads as NaN, which the model imputes.
	ErrValue = errors.New("not a finite number")
	// ErrEmpty reports a body without rows.
	ErrEmpty = errors.New("no rows")
)

// Error is bad input at a place in the body.
type Error struct {
	Row    int    // 1-based data row; 0 for the body as a whole or the CSV header
	Column string // the column's name as the model or the body has it; "" where none applies
	Index  int    // the model's input, 1-based; 0 where none applies
	Msg    string
	Kind   error // ErrSyntax, ErrColumns, ErrValue or ErrEmpty
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Row > 0 {
		fmt.Fprintf(&b, "row %d: ", e.Row)
	}
	switch {
	case e.Column != "":
		fmt.Fprintf(&b, "%.80q: ", e.Column)
	case e.Index > 0:
		fmt.Fprintf(&b, "column %d: ", e.Index)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns the kind.
func (e *Error) Unwrap() error { return e.Kind }

// Columns are what a model takes: D inputs, named Names in order (nil: matched by
// position). Ignore names columns a CSV header or a JSON object may carry beside them
// that are not inputs (the model's id column, the columns its fit dropped).
//
// Encoding, where the model has one, turns text columns into its last inputs (package
// data): a row may carry such a column by its own name, a text cell that is encoded as
// the model was fitted, in place of the inputs it gives.
//
// ID, where HasID is set, is the model's id column (one of Ignore, or "" for pandas'
// unnamed index): its cells are carried through as each row's id (Reader.IDs).
type Columns struct {
	D        int
	Names    []string
	Ignore   []string
	Encoding *data.Encoding
	ID       string
	HasID    bool
}

// textColumn is one of Encoding's columns: its encoder, and its first input.
type textColumn struct {
	enc *data.Encoder
	off int
}

// texts are Encoding's columns by name, each with its first input; nil without one.
func (c Columns) texts() map[string]textColumn {
	if c.Encoding == nil || c.Names == nil {
		return nil
	}
	out := map[string]textColumn{}
	off := len(c.Names) - c.Encoding.Width()
	for _, code := range c.Encoding.Columns {
		enc := code.Encoder()
		out[code.Name] = textColumn{enc, off}
		off += enc.Width()
	}
	return out
}

// encode writes the cell of text column t into row, as an *Error at row r where it is
// no date in the model's layout.
func (t textColumn) encode(cell string, row []float32, r int) error {
	if _, err := t.enc.Encode(cell, row[t.off:t.off+t.enc.Width()]); err != nil {
		return &Error{Row: r, Column: t.enc.Name(), Msg: err.Error(), Kind: ErrValue}
	}
	return nil
}

// index maps each name of c to its input position, and each ignored name to -1.
func (c Columns) index() map[string]int {
	idx := make(map[string]int, len(c.Names)+len(c.Ignore))
	for _, n := range c.Ignore {
		idx[n] = -1
	}
	for j, n := range c.Names {
		idx[n] = j
	}
	return idx
}

// column is the name of input j, "" where the model names none.
func (c Columns) column(j int) string {
	if j < len(c.Names) {
		return c.Names[j]
	}
	return ""
}

// Reader gives a body's rows a chunk at a time.
type Reader interface {
	// Next fills x, room for len(x)/D rows of D values, with the next rows of the body
	// and returns how many it filled; 0 and io.EOF after the last. A body without rows
	// is an *Error of ErrEmpty at the first call.
	Next(x []float32) (int, error)
	// IDs are the id column's cells of the rows the last Next gave ("" where a row has
	// none); nil where the body carries no id column.
	IDs() []string
}

// parseValue is a cell's number as package data reads it: strconv.ParseFloat, then
// float32; NaN, ±Inf and values beyond float32's range are refused.
func parseValue(s string) (float32, string) {
	v, err := decimal.Parse(s)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, fmt.Sprintf("%.40q is beyond float32's range (±3.4e38)", s)
		}
		return 0, fmt.Sprintf("%.40q is not a number", s)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Sprintf("%q is not a finite number", s)
	}
	f := float32(v)
	if math.IsInf(float64(f), 0) {
		return 0, fmt.Sprintf("%.40q is beyond float32's range (±3.4e38)", s)
	}
	return f, ""
}

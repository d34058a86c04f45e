package rowbody

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/udocc/udocc/data"
)

// csvReader reads a CSV body whose first line is a header.
type csvReader struct {
	cr  *csv.Reader
	g   *csvGuard
	c   Columns
	pos []int // the record's cell of input j (-2: a text column's, encoded); nil before the header
	// text are the text columns the header names, each with its cell in the record.
	text []csvText
	id   int      // the record's cell of the id column; -1 for none
	ids  []string // the ids of the rows the last Next gave
	row  int
	err  error
}

type csvText struct {
	textColumn
	cell int
}

// NewCSV reads the CSV body r, whose first line names its columns. Where the model
// names its columns (c.Names), the header must hold each of them once, in any order,
// and may hold the names of c.Ignore beside them; where it does not, the header must
// have c.D cells, matched by position. The header may have no more cells than that,
// a row no more than the header, and a cell at most 4,096 bytes (or twice the longest
// name): a body past these bounds is refused at the first byte beyond them.
func NewCSV(r io.Reader, c Columns) Reader {
	fields, cell := c.D, maxCell
	if c.Names != nil {
		fields = len(c.Names) + len(c.Ignore)
	}
	for _, names := range [][]string{c.Names, c.Ignore} {
		for _, s := range names {
			cell = max(cell, 2*len(s)+2)
		}
	}
	return newCSV(r, c, fields, cell)
}

// newCSV is NewCSV with a header of at most fields cells and cells of at most cell bytes.
func newCSV(r io.Reader, c Columns, fields, cell int) *csvReader {
	g := newCSVGuard(r, fields, cell)
	cr := csv.NewReader(bufio.NewReaderSize(g, 64<<10))
	cr.ReuseRecord = true
	return &csvReader{cr: cr, g: g, c: c, id: -1}
}

func (r *csvReader) IDs() []string {
	if r.id < 0 {
		return nil
	}
	return r.ids
}

func (r *csvReader) Next(x []float32) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.next(x)
	if err != nil && err != io.EOF {
		r.err = err
	}
	return n, err
}

func (r *csvReader) next(x []float32) (int, error) {
	d := r.c.D
	if d < 1 || len(x) < d {
		panic("rowbody: a buffer smaller than one row")
	}
	if r.pos == nil {
		if err := r.header(); err != nil {
			return 0, err
		}
	}
	r.ids = r.ids[:0]
	n := 0
	for (n+1)*d <= len(x) {
		rec, err := r.cr.Read()
		if err == io.EOF {
			if r.row == 0 {
				return 0, &Error{Msg: "a header but no rows", Kind: ErrEmpty}
			}
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		}
		r.row++
		if err != nil {
			return n, r.readError(err)
		}
		row := x[n*d : (n+1)*d]
		missing := 0
		for _, t := range r.text {
			if err := t.encode(rec[t.cell], row, r.row); err != nil {
				return n, err
			}
			for _, v := range row[t.off : t.off+t.enc.Width()] {
				if v != v {
					missing++
				}
			}
		}
		for j, p := range r.pos {
			if p < 0 {
				continue // a text column's input, encoded above
			}
			s := strings.TrimSpace(rec[p])
			if data.IsMissingCell(s) { // imputed as the model was fitted
				row[j] = float32(math.NaN())
				missing++
				continue
			}
			v, msg := parseValue(s)
			if msg != "" {
				return n, &Error{Row: r.row, Column: r.c.column(j), Index: j + 1, Msg: msg, Kind: ErrValue}
			}
			row[j] = v
		}
		if missing == d {
			return n, &Error{Row: r.row, Msg: "every cell is missing: nothing to score", Kind: ErrValue}
		}
		if r.id >= 0 {
			r.ids = append(r.ids, strings.TrimSpace(rec[r.id]))
		}
		n++
	}
	return n, nil
}

// header reads the first line and matches its names to the model's columns.
func (r *csvReader) header() error {
	rec, err := r.cr.Read()
	if err == io.EOF {
		return &Error{Msg: "empty body: want a header line and rows", Kind: ErrEmpty}
	}
	if err != nil {
		return r.readError(err)
	}
	names := make([]string, len(rec))
	for i, s := range rec {
		names[i] = strings.TrimSpace(s)
	}
	names[0] = strings.TrimPrefix(names[0], "\ufeff")
	r.cr.FieldsPerRecord = len(names)
	r.g.fields = len(names)
	if r.c.Names == nil {
		if len(names) != r.c.D {
			return &Error{Msg: fmt.Sprintf("the header has %d columns; the model was trained on %d unnamed columns, matched by position", len(names), r.c.D), Kind: ErrColumns}
		}
		r.pos = make([]int, r.c.D)
		for j := range r.pos {
			r.pos[j] = j
		}
		return nil
	}
	idx, texts := r.c.index(), r.c.texts()
	r.pos = make([]int, r.c.D)
	for j := range r.pos {
		r.pos[j] = -1
	}
	var unknown []string
	for i, s := range names {
		if r.c.HasID && s == r.c.ID && r.id < 0 {
			r.id = i
		}
		p, ok := idx[s]
		t, text := texts[s]
		switch {
		case text && !ok:
			for j := t.off; j < t.off+t.enc.Width(); j++ {
				if r.pos[j] >= 0 {
					return &Error{Column: s, Msg: "named with its encoded inputs in the header", Kind: ErrColumns}
				}
				r.pos[j] = -2
			}
			r.text = append(r.text, csvText{t, i})
		case !ok:
			unknown = append(unknown, s)
		case p < 0:
		case r.pos[p] >= 0 || r.pos[p] == -2:
			return &Error{Column: s, Msg: "named twice in the header", Kind: ErrColumns}
		default:
			r.pos[p] = i
		}
	}
	var missing []string
	for j, p := range r.pos {
		if p == -1 {
			missing = append(missing, r.c.Names[j])
		}
	}
	switch {
	case len(unknown) > 0:
		return &Error{Msg: fmt.Sprintf("the header names column(s) the model does not have: %s", quoteList(unknown, 5)), Kind: ErrColumns}
	case len(missing) > 0:
		return &Error{Msg: fmt.Sprintf("the header lacks column(s) %s", quoteList(missing, 5)), Kind: ErrColumns}
	}
	return nil
}

// readError is the error of a failed read: a CSV error at r.row, or the body's own.
func (r *csvReader) readError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		kind := ErrSyntax
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			kind = ErrColumns
		}
		return &Error{Row: r.row, Msg: fmt.Sprintf("line %d: %v", pe.Line, pe.Err), Kind: kind}
	}
	var le *errLimit
	if errors.As(err, &le) {
		msg := le.Error()
		if r.pos == nil && le.kind == ErrColumns {
			msg = fmt.Sprintf("the header has more than %d columns, the model's %d and the %d it ignores", le.fields, r.c.D, len(r.c.Ignore))
		}
		return &Error{Row: r.row, Msg: msg, Kind: le.kind}
	}
	return fmt.Errorf("reading the body: %w", err)
}

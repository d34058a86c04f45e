package rowbody

import (
	"fmt"
	"io"
)

// maxCell bounds a CSV cell's bytes (as maxString bounds a JSON string): a number, an
// id, or a column name of the header.
const maxCell = maxString

// errLimit is a CSV record beyond csvGuard's bounds.
type errLimit struct {
	line   int // 1-based line of the body where the record starts
	fields int // the bound on cells
	msg    string
	kind   error
}

func (e *errLimit) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// csvGuard passes a CSV body through while it counts each record's cells and each
// cell's bytes, outside and inside quotes as encoding/csv reads them, and stops the
// body at the first byte past a bound. encoding/csv builds a whole record before its
// caller sees it, at some 30 bytes a cell: bounded here, a record costs at most
// fields × maxCell bytes, whatever the body holds.
type csvGuard struct {
	r      io.Reader
	fields int // the most cells a record may have
	cell   int // the most bytes a cell may have
	err    error

	line      int  // the record's first line, 1-based
	lines     int  // lines read
	n         int  // cells of the record so far
	size      int  // bytes of the cell so far
	quoted    bool // the cell began with a quote
	inQuote   bool // within the quotes
	quoteSeen bool // a quote just read within the quotes: the end, or the first of ""
}

func newCSVGuard(r io.Reader, fields, cell int) *csvGuard {
	return &csvGuard{r: r, fields: fields, cell: cell, line: 1, lines: 1, n: 1}
}

func (g *csvGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	for i, b := range p[:n] {
		if msg, kind := g.step(b); msg != "" {
			g.err = &errLimit{line: g.line, fields: g.fields, msg: msg, kind: kind}
			return i, g.err
		}
	}
	return n, err
}

// step takes byte b of the body; a message and a kind where b passes a bound.
func (g *csvGuard) step(b byte) (string, error) {
	if b == '\n' {
		g.lines++
	}
	if g.inQuote {
		switch {
		case b == '"' && g.quoteSeen: // "" within quotes: one quote
			g.quoteSeen = false
		case b == '"':
			g.quoteSeen = true
			return g.grow()
		case g.quoteSeen: // the closing quote was the one before b
			g.inQuote, g.quoteSeen = false, false
			return g.plain(b)
		}
		return g.grow()
	}
	return g.plain(b)
}

// plain takes b outside quotes.
func (g *csvGuard) plain(b byte) (string, error) {
	switch b {
	case '\n':
		g.n, g.size, g.quoted, g.line = 1, 0, false, g.lines
		return "", nil
	case ',':
		g.n++
		g.size, g.quoted = 0, false
		if g.n > g.fields {
			return fmt.Sprintf("more than %d cells in a record", g.fields), ErrColumns
		}
		return "", nil
	case '"':
		if g.size == 0 && !g.quoted {
			g.quoted, g.inQuote = true, true
		}
	}
	return g.grow()
}

// grow counts one more byte of the cell.
func (g *csvGuard) grow() (string, error) {
	g.size++
	if g.size > g.cell {
		return fmt.Sprintf("a cell longer than %d bytes", g.cell), ErrValue
	}
	return "", nil
}

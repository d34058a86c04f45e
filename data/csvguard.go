package data

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// errLongRow reports a line of delimited text longer than a row may be (maxLine bytes
// or maxCells cells): such a line is refused as soon as the limit is passed, so that
// memory follows the rows a file really holds, not a line it never ends.
var errLongRow = errors.New("row too long")

// whitespace is the LoadOptions.Delimiter of whitespace-separated text (NumPy's
// np.savetxt default): cells are separated by runs of spaces and tabs, and spaces and
// tabs at a line's start and end are not cells.
const whitespace = ' '

// textGuard passes delimited text through from r, counting its records and their
// cells, and stops it with errLongRow when a record grows past maxLine bytes or
// maxCells cells, so that whoever reads from it never gathers more than that (and a
// buffer) for one record. A record ends at a newline outside double quotes; a blank one
// ("\n" or "\r\n" alone; for whitespace, spaces and tabs alone) is no record, as
// encoding/csv and plainReader skip it.
type textGuard struct {
	r     io.Reader
	delim byte

	line    int   // the 1-based line of the current position
	recLine int   // the line the current record started on
	width   int64 // bytes of the current record so far
	lead    byte  // its first byte
	cells   int   // its cells so far: delimiters outside quotes + 1, or tokens for whitespace
	inCell  bool  // whitespace: the last byte was inside a token
	inQuote bool

	quoted  bool // a double quote was seen
	records int  // records ended so far
	first   int  // the first record's cells
	rect    bool // every record so far has first's cells
	err     error
}

// newTextGuard guards r, text delimited by delim (whitespace for runs of spaces).
func newTextGuard(r io.Reader, delim rune) *textGuard {
	g := &textGuard{r: r, delim: byte(delim), line: 1, recLine: 1, rect: true}
	g.reset()
	return g
}

func (g *textGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	g.scan(p[:n])
	if errors.Is(err, io.EOF) && g.err == nil {
		g.end()
	}
	if g.err != nil {
		return n, g.err
	}
	return n, err
}

// scan follows b, the text's next bytes; in whitespace-separated text it turns a tab
// outside quotes into a space.
func (g *textGuard) scan(b []byte) {
	if g.delim != whitespace && !g.inQuote && bytes.IndexByte(b, '"') < 0 {
		g.scanPlain(b)
		return
	}
	for i, c := range b {
		if g.width == 0 {
			g.lead = c
		}
		switch {
		case c == '"':
			g.quoted = true
			g.inQuote = !g.inQuote
		case c == '\n':
			g.line++
			if !g.inQuote {
				g.endRecord()
				continue
			}
		case g.inQuote:
		case g.delim == whitespace:
			space := c == ' ' || c == '\t' || c == '\r'
			if !space && !g.inCell {
				g.cells++
			}
			g.inCell = !space
			if c == '\t' {
				b[i] = ' ' // for encoding/csv, whose delimiter is one character
			}
		case c == g.delim:
			g.cells++
		}
		g.width++
		if g.check() {
			return
		}
	}
}

// scanPlain is scan for bytes without a double quote, outside quotes, a line at a time.
func (g *textGuard) scanPlain(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		seg := b
		if i >= 0 {
			seg = b[:i]
		}
		if g.width == 0 && len(seg) > 0 {
			g.lead = seg[0]
		}
		g.width += int64(len(seg))
		g.cells += bytes.Count(seg, []byte{g.delim})
		if g.check() || i < 0 {
			return
		}
		g.line++
		g.endRecord()
		b = b[i+1:]
	}
}

// check sets err when the current record is past a limit, and reports it.
func (g *textGuard) check() bool {
	switch {
	case g.width > maxLine:
		g.err = fmt.Errorf("line %d: more than %d MiB before its end (a row may hold at most %d MiB and %d cells): %w", g.recLine, maxLine>>20, maxLine>>20, maxCells, errLongRow)
	case g.cells > maxCells:
		g.err = fmt.Errorf("line %d: more than %d cells (a row may hold at most %d cells and %d MiB): %w", g.recLine, maxCells, maxCells, maxLine>>20, errLongRow)
	}
	return g.err != nil
}

// endRecord ends the current line, a record unless it is blank.
func (g *textGuard) endRecord() {
	blank := g.width == 0 || g.width == 1 && g.lead == '\r'
	if g.delim == whitespace {
		blank = g.cells == 0
	}
	if !blank {
		g.records++
		if g.records == 1 {
			g.first = g.cells
		} else if g.cells != g.first {
			g.rect = false
		}
	}
	g.reset()
}

// reset starts a record at the current line.
func (g *textGuard) reset() {
	g.width, g.lead, g.inCell, g.recLine = 0, 0, false, g.line
	g.cells = 1
	if g.delim == whitespace {
		g.cells = 0
	}
}

// end ends the text: a last line without a newline is a record.
func (g *textGuard) end() {
	if g.width > 0 {
		g.endRecord()
	}
}

// csvShape is what a first pass over a text tells the second: its records, whether
// every record has the same number of cells (then the table's size is known before it
// is parsed, and allocated once), and whether it holds a double quote (if not, it is
// read by plainReader).
type csvShape struct {
	records int
	rect    bool
	quoted  bool
}

// scanShape reads a text through a textGuard, as readCSV will, and returns its shape;
// its errors are the guard's (a row past the limits) and r's.
func scanShape(r io.Reader, opts LoadOptions) (csvShape, error) {
	br := newTextReader(r)
	if err := checkEncoding(br); err != nil {
		return csvShape{}, err
	}
	delim, err := sniffDelimiter(br, opts.Delimiter)
	if err != nil {
		return csvShape{}, err
	}
	g := newTextGuard(br, delim)
	buf := make([]byte, csvBlock)
	for {
		_, err := g.Read(buf)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return csvShape{}, err
		}
	}
	return csvShape{records: g.records, rect: g.rect, quoted: g.quoted}, nil
}

package data

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"github.com/udocc/udocc/internal/decimal"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
)

// decodeCSV reads a CSV file whose first row is a header when opts.Header says so;
// under HeaderAuto, when not all of its cells are numbers (np.savetxt writes none, and
// a header of numbers is rare enough to ask for --header yes).
//
// A column is numeric when every cell of it is a number or missing (missingValues; one
// that is NaN or ±Inf is reported as such): a column whose first cells are missing is
// not taken for text. The others are text, refused as features unless opts.Selection
// leaves them out (DropText). The label and the id column may hold anything.
//
// Positions in errors follow what a user sees in an editor: "line N" is
// the 1-based line of the file (a header is line 1, blank lines count),
// "column M" the 1-based cell in that line, label column included.
// Cells may carry surrounding spaces; a cell that strconv.ParseFloat rejects, or ±Inf,
// is an error, and so is a missing cell under MissingError (opts.Missing).
func decodeCSV(b []byte, opts LoadOptions) (*Dataset, error) {
	shape, err := scanShape(bytes.NewReader(b), opts)
	if err != nil {
		return nil, err
	}
	return readCSV(bytes.NewReader(b), &shape, opts)
}

// csvBlock is the bytes a text file is scanned and read by at a time.
const csvBlock = 1 << 20

// loadCSV is decodeCSV over a file, gzipped when gz, streamed (readText); a pipe or a
// device, which cannot be read twice, is read once.
func loadCSV(path string, gz bool, opts LoadOptions) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	twice := err == nil && st.Mode().IsRegular()
	return readText(func() (io.Reader, error) {
		if _, err := f.Seek(0, io.SeekStart); err != nil && twice {
			return nil, err
		}
		if !gz {
			return f, nil
		}
		return newGzipMembers(bufio.NewReaderSize(f, csvBlock))
	}, twice, opts)
}

// readText reads a text that open gives from its start, streamed: when twice, a first
// pass finds its shape (scanShape) and the second parses it into a table allocated
// once, on opts.Threads goroutines (readRest); else it is parsed in one pass, its table
// grown as its rows come. Its bytes are never held whole.
func readText(open func() (io.Reader, error), twice bool, opts LoadOptions) (*Dataset, error) {
	r, err := open()
	if err != nil {
		return nil, err
	}
	if !twice {
		return readCSV(r, nil, opts)
	}
	shape, err := scanShape(r, opts)
	if err != nil {
		return nil, err
	}
	if r, err = open(); err != nil {
		return nil, err
	}
	return readCSV(r, &shape, opts)
}

// gzipMembers inflates every member of a gzip stream in turn, as gzip -d does. Bytes
// after the last member that do not start another are refused as such (compress/gzip
// calls them an unexpected EOF or an invalid header), and its errors are marked as a
// malformed file.
type gzipMembers struct {
	br   *bufio.Reader
	zr   *gzip.Reader
	done bool
	err  error // sticky, once met
}

func newGzipMembers(br *bufio.Reader) (*gzipMembers, error) {
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, gzipError(err)
	}
	zr.Multistream(false)
	return &gzipMembers{br: br, zr: zr}, nil
}

func (g *gzipMembers) Read(p []byte) (int, error) {
	for !g.done && g.err == nil {
		n, err := g.zr.Read(p)
		switch {
		case err == io.EOF: // the end of a member: the end of the file, or another member
			if _, perr := g.br.Peek(1); perr == io.EOF {
				g.done = true
			} else if rerr := g.zr.Reset(g.br); rerr != nil {
				g.err = fmt.Errorf("gzip: bytes after the end of the gzip data that are no gzip member: %w", ErrFormat)
			} else {
				g.zr.Multistream(false)
			}
		case err != nil:
			g.err = gzipError(err)
		}
		if n > 0 {
			return n, nil
		}
	}
	if g.err != nil {
		return 0, g.err
	}
	return 0, io.EOF
}

// gzipError is the error of compress/gzip err, said for a file that should be gzip.
func gzipError(err error) error {
	switch {
	case errors.Is(err, gzip.ErrHeader):
		return fmt.Errorf("gzip: not gzip data (no gzip header), though the name ends in .gz: %w", ErrFormat)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("gzip: the compressed data ends early (a truncated file): %w", ErrFormat)
	}
	return fmt.Errorf("gzip: %s: %w", strings.TrimPrefix(err.Error(), "gzip: "), ErrFormat)
}

// newTextReader buffers a text, past a UTF-8 byte-order mark (which spreadsheet
// exports write).
func newTextReader(r io.Reader) *bufio.Reader {
	br := bufio.NewReaderSize(r, csvBlock)
	if bom, _ := br.Peek(3); string(bom) == "\uFEFF" {
		br.Discard(3)
	}
	return br
}

// checkEncoding refuses a text, by its first block, that is UTF-16 (a byte-order mark,
// or a NUL in every other byte) or has carriage returns but no line feeds (CR-only line
// endings, as classic Mac OS wrote them): read as UTF-8 lines, either gives a baffling
// error later.
func checkEncoding(br *bufio.Reader) error {
	head, _ := br.Peek(csvBlock)
	if len(head) >= 2 && (head[0] == 0xff && head[1] == 0xfe || head[0] == 0xfe && head[1] == 0xff) || looksUTF16(head) {
		return fmt.Errorf("the file looks UTF-16, not UTF-8 text: save it as UTF-8 (e.g. iconv -f UTF-16 -t UTF-8): %w", ErrFormat)
	}
	if len(head) > 0 && bytes.IndexByte(head, '\n') < 0 && bytes.IndexByte(head, '\r') >= 0 {
		return fmt.Errorf("no line feeds, only carriage returns (CR-only line endings, as classic Mac OS wrote): convert them (e.g. tr '\\r' '\\n'): %w", ErrFormat)
	}
	return nil
}

// looksUTF16 reports whether, of the first 256 bytes of head (at least 8), every other
// one is NUL and the others are not: UTF-16 of ASCII text, in either byte order.
func looksUTF16(head []byte) bool {
	head = head[:min(len(head), 256)]
	if len(head) < 8 {
		return false
	}
	var zeros [2]int
	for i, b := range head {
		if b == 0 {
			zeros[i%2]++
		}
	}
	half := len(head) / 2
	many, few := half*9/10, half/10
	return zeros[0] >= many && zeros[1] <= few || zeros[1] >= many && zeros[0] <= few
}

// sniffDelimiter is delim, or when it is 0 the delimiter detectDelimiter finds on the
// text's first line (unless that is longer than a block).
func sniffDelimiter(br *bufio.Reader, delim rune) (rune, error) {
	if delim != 0 {
		return delim, nil
	}
	head, _ := br.Peek(csvBlock)
	return detectDelimiter(head)
}

// readCSV is decodeCSV reading from src, whose shape a first pass found, or nil when
// there was none.
func readCSV(src io.Reader, shape *csvShape, opts LoadOptions) (*Dataset, error) {
	br := newTextReader(src)
	if err := checkEncoding(br); err != nil {
		return nil, err
	}
	delim, err := sniffDelimiter(br, opts.Delimiter)
	if err != nil {
		return nil, err
	}
	detected := false
	if opts.Decimal == 0 {
		head, _ := br.Peek(csvBlock)
		opts.Decimal = DetectDecimal(head, delim)
		detected = opts.Decimal == ','
	}
	guard := newTextGuard(br, delim)
	r := newRecordReader(bufio.NewReaderSize(guard, csvBlock), delim, shape == nil || shape.quoted)
	h, err := readCSVHeader(r, opts)
	if err != nil {
		return nil, err
	}
	first, line1, ro, err := readFirstRow(r, h, opts)
	if err != nil {
		return nil, err
	}
	t := &csvRows{r: r, header: h.names, ro: ro, label: h.label, lr: labelReader{positive: opts.Positive},
		// A data-parallel block sees some rows only, so a later cell of text in a numeric
		// column is an error there, as every rank must keep the same columns.
		comma:   opts.Decimal == ',',
		missing: opts.Missing, keepEmpty: opts.keepEmpty, dropText: opts.Selection.DropText && opts.Part.Of <= 1, part: opts.Part.Of > 1, textSeen: make([]atomic.Bool, len(ro.features)),
		textCell: make([]string, len(ro.features))}
	if shape != nil && shape.rect {
		if err := t.reserve(shape.records, h.named); err != nil {
			return nil, err
		}
	}
	if err := t.add(first, line1); err != nil {
		return nil, err
	}
	if err := t.readRest(r, shape != nil && shape.rect, opts.threads()); err != nil {
		return nil, err
	}
	ds, err := t.dataset(h.named)
	if err == nil && detected {
		ds.Notes = append(ds.Notes, remedy("the numbers have decimal commas (1,5 is 1.5), as most of the first lines' cells do: ", setting("Decimal", "."), " reads them otherwise"))
	}
	return ds, err
}

// csvHeader is a CSV table's first line, read as its header or as its first data row.
type csvHeader struct {
	first []string // the first line's cells, trimmed
	names []string // the columns' names: first, or defaultFeatures when the line is data
	named bool     // the first line is a header
	label int      // the label column, -1 for none
}

// readCSVHeader reads the first line of r and tells whether it is a header (opts.Header;
// under HeaderAuto, when not all its cells are numbers), finds the label column, and
// refuses a header that names a column twice or names no feature.
func readCSVHeader(r recordReader, opts LoadOptions) (csvHeader, error) {
	first, err := r.Read()
	if errors.Is(err, io.EOF) {
		return csvHeader{}, fmt.Errorf("no header line: %w", errEmpty)
	}
	if err != nil {
		return csvHeader{}, csvParseError(err)
	}
	first = slices.Clone(first)
	for j := range first {
		first[j] = strings.TrimSpace(first[j])
	}
	h := csvHeader{first: first, names: first}
	h.named = opts.Header == HeaderYes || opts.Header == HeaderAuto && !allNumbers(first, opts.Decimal == ',')
	if !h.named {
		h.names = defaultFeatures(len(first))
	}
	if h.label, err = csvLabelColumn(h.names, opts); err != nil {
		if opts.LabelOptional && errors.Is(err, errMissingVariable) && opts.LabelColumn != "" {
			h.label = -1 // a remembered label that this table does not have
			err = nil
		} else if !h.named && opts.LabelColumn != "" {
			err = &RemedyError{Remedy: remedy(err.Error(), " (line 1 is data, not a header: give the label's 0-based index, or ", setting("Header", string(HeaderYes)), ")"), Err: err}
		}
		if err != nil {
			return csvHeader{}, err
		}
	}
	if h.named {
		seen := map[string]int{}
		for j, name := range h.names {
			if k, ok := seen[name]; ok && j != h.label && k != h.label {
				return csvHeader{}, fmt.Errorf("line 1: column %s is both column %d and %d: %w", quoteValue(name), k+1, j+1, ErrFormat)
			}
			seen[name] = j
		}
	}
	if len(h.names) == 1 && h.label == 0 {
		return csvHeader{}, fmt.Errorf("line 1: no feature columns: %w", errEmpty)
	}
	return h, nil
}

// readFirstRow returns the first data row (the line after a header, else the header's
// line itself), copied, with its line, and the columns' roles under opts.Selection: the
// first data row tells numeric columns from text.
func readFirstRow(r recordReader, h csvHeader, opts LoadOptions) ([]string, int, roles, error) {
	rec, line1 := h.first, 1
	if h.named {
		var err error
		if rec, err = r.Read(); errors.Is(err, io.EOF) {
			return nil, 0, roles{}, fmt.Errorf("no data rows after the header: %w", errEmpty)
		} else if err != nil {
			return nil, 0, roles{}, csvParseError(err)
		}
		line1, _ = r.FieldPos(0)
	}
	if len(rec) != len(h.names) {
		return nil, 0, roles{}, fmt.Errorf("line %d: %d cells, the first row has %d: %w", line1, len(rec), len(h.names), errRagged)
	}
	numeric := make([]bool, len(rec))
	for j, c := range rec {
		numeric[j] = looksNumeric(c, opts.Decimal == ',')
	}
	first := make([]string, len(rec)) // the reader's cells are valid until its next Read
	for j, c := range rec {
		first[j] = strings.Clone(c)
	}
	ro, err := resolveColumns(h.names, numeric, h.label, opts.Selection, func(j int) string {
		return fmt.Sprintf("line %d, column %d: %s", line1, j+1, quoteValue(strings.TrimSpace(first[j])))
	})
	if err != nil {
		return nil, 0, roles{}, err
	}
	return first, line1, ro, nil
}

// looksNumeric reports whether a cell reads as a number, as a missing value
// (missingValues), or as something parseCell reports as a bad number rather than
// text: NaN, ±Inf, out of range.
func looksNumeric(cell string, comma bool) bool {
	s := strings.TrimSpace(cell)
	_, err := decimal.Parse(pointed(s, comma))
	return err == nil || errors.Is(err, strconv.ErrRange) || isMissingCell(s)
}

// allNumbers reports whether every cell of a row parses as a number, NaN and ±Inf
// included (such a row is data, and its bad cells are reported as such).
func allNumbers(cells []string, comma bool) bool {
	for _, c := range cells {
		if _, err := decimal.Parse(pointed(strings.TrimSpace(c), comma)); err != nil && !errors.Is(err, strconv.ErrRange) {
			return false
		}
	}
	return true
}

// parseCell parses one numeric cell into the float32 a table holds, its decimal
// separator a comma where comma is set.
func parseCell(cell string, comma bool) (float32, error) {
	s := strings.TrimSpace(cell)
	if s == "" {
		return 0, errEmptyCell
	}
	v, err := decimal.Parse(pointed(s, comma))
	if err != nil && isMissingCell(s) {
		return 0, fmt.Errorf("%s: %w", quoteValue(s), ErrMissingValue)
	}
	if err != nil {
		// ParseFloat returns ±Inf with a range error for "1e999".
		return 0, fmt.Errorf("%s: %w", quoteValue(s), errNotNumeric)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s: %w", quoteValue(s), errNonFinite)
	}
	f, err := toFloat32(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", quoteValue(s), errRange)
	}
	return f, nil
}

// csvLabelColumn resolves the label column to a 0-based index, -1 for none.
func csvLabelColumn(header []string, opts LoadOptions) (int, error) {
	if opts.LabelColumn == "" {
		if opts.LabelNumber > len(header) {
			return 0, fmt.Errorf("label column %d (1-based), but the header has %d columns: %w", opts.LabelNumber, len(header), errMissingVariable)
		}
		return opts.LabelNumber - 1, nil
	}
	found := -1
	for j, h := range header {
		if h != opts.LabelColumn {
			continue
		}
		if found >= 0 {
			return 0, fmt.Errorf("line 1: label column %s is both column %d and %d: %w", quoteValue(h), found+1, j+1, ErrOptions)
		}
		found = j
	}
	if found < 0 {
		return 0, fmt.Errorf("line 1: no column named %q: %w", opts.LabelColumn, errMissingVariable)
	}
	return found, nil
}

// detectDelimiter picks ',', ';' or tab, whichever occurs most often outside
// double quotes on the header line. A line with none of them is whitespace-separated
// (NumPy's np.savetxt default) when it holds two or more cells separated by spaces and
// every one is a number, and else a single column. A tie between two of them is an
// error: the caller must say.
func detectDelimiter(b []byte) (rune, error) {
	counts := map[rune]int{}
	quoted := false
	// Bytes, not runes: the characters looked for are ASCII, which no other UTF-8
	// character's bytes contain, and string(b) would copy the whole file.
	end := len(b)
	for i, c := range b {
		if c == '\n' && !quoted {
			end = i
			break
		}
		switch c {
		case '"':
			quoted = !quoted
		case ',', ';', '\t':
			if !quoted {
				counts[rune(c)]++
			}
		}
	}
	best, tie := ',', false
	for _, c := range []rune{';', '\t'} {
		switch {
		case counts[c] > counts[best]:
			best, tie = c, false
		case counts[c] == counts[best] && counts[c] > 0:
			tie = true
		}
	}
	if tie {
		return 0, remedyError(ErrFormat, fmt.Sprintf("line 1: cannot tell the delimiter (%d commas, %d semicolons, %d tabs); set it with ", counts[','], counts[';'], counts['\t']), setting("Delimiter"))
	}
	if counts[best] == 0 {
		if cells := strings.Fields(string(b[:end])); len(cells) >= 2 && allNumbers(cells, false) {
			return whitespace, nil
		}
	}
	return best, nil
}

// csvParseError turns an encoding/csv syntax error into this package's
// form; its "column" is a character position, so it is named so.
func csvParseError(err error) error {
	if errors.Is(err, errLongRow) || errors.Is(err, ErrFormat) {
		return err // the guard's, or the gzip stream's
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("line %d, character %d: %v: %w", pe.Line, pe.Column, pe.Err, ErrFormat)
	}
	return fmt.Errorf("%v: %w", err, ErrFormat)
}

// ReadCSV reads a table of delimited text (CSV, TSV, whitespace-separated) from r in one
// streamed pass. It takes Load's options and makes its checks. opts.Format, if set,
// must be "csv", "tsv" or "txt"; gzip is the caller's to undo. Errors start with "data:
// csv stream:". The bytes are never held whole: the table grows as its rows come. Its
// Name is "stream" and its Path "", for the caller to set.
func ReadCSV(r io.Reader, opts LoadOptions) (*Dataset, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if opts.Format != "" && opts.Format != "csv" && opts.Format != "tsv" && opts.Format != "txt" {
		return nil, fmt.Errorf("data: csv stream: format %q: want csv, tsv or txt: %w", opts.Format, ErrOptions)
	}
	ds, err := readCSV(r, nil, opts)
	if err == nil && opts.Part.Of > 1 {
		ds, err = cutPart(ds, opts.Part)
	}
	if err != nil {
		return nil, fmt.Errorf("data: csv stream: %w", err)
	}
	ds.Name = "stream"
	ds.Selection = opts.Selection
	if ds.LabelName != "" {
		ds.Positive = opts.Positive
	}
	if err := ds.Validate(); err != nil {
		return nil, err
	}
	return ds, nil
}

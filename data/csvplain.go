package data

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"unicode/utf8"
	"unsafe"
)

// recordReader is what decodeCSV reads records from: encoding/csv's Reader, or
// plainReader for files without quotes.
type recordReader interface {
	Read() ([]string, error)
	FieldPos(field int) (line, column int)
}

// plainReader reads CSV that holds no double quote, so that every record is one line
// and every delimiter separates cells: what encoding/csv would read from it, at a
// fraction of the cost. Like encoding/csv it
// drops a carriage return before a newline (and at the end of the file) and skips empty
// lines. It reads a line at a time from a buffered stream, so that a file is never held
// whole. The first record's cells (the header, which the Dataset keeps) are copied; the
// cells of the others are strings over the stream's buffer, valid until the next Read:
// decodeCSV parses them and clones what it keeps (ids, label values, the first data
// row). No allocation per line, and no garbage to collect.
type plainReader struct {
	r       *bufio.Reader
	comma   byte
	line    int // the line of the record last read, 1-based
	records int // records read
	fields  []string
	starts  []int
	long    []byte // a line longer than r's buffer, gathered
}

// newRecordReader picks plainReader when the text has no double quote (quoted false)
// and the delimiter is one byte, else encoding/csv's Reader. Whitespace-separated text
// is read by plainReader, or by encoding/csv with a space as its delimiter when quoted.
func newRecordReader(r *bufio.Reader, comma rune, quoted bool) recordReader {
	if quoted || comma >= utf8.RuneSelf || comma == '"' || comma == '\r' || comma == '\n' {
		c := csv.NewReader(r)
		c.Comma = comma
		c.FieldsPerRecord = -1 // ragged rows are reported by decodeCSV, with their line
		c.ReuseRecord = true
		c.TrimLeadingSpace = comma == whitespace // a run of spaces is one delimiter
		return c
	}
	return &plainReader{r: r, comma: byte(comma)}
}

// next returns the next line, without its newline, valid until the next call.
func (r *plainReader) next() ([]byte, error) {
	l, err := r.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		r.long = append(r.long[:0], l...)
		for errors.Is(err, bufio.ErrBufferFull) {
			l, err = r.r.ReadSlice('\n')
			r.long = append(r.long, l...)
		}
		l = r.long
	}
	if errors.Is(err, io.EOF) && len(l) > 0 {
		err = nil // a last line without a newline
	}
	return bytes.TrimSuffix(l, []byte{'\n'}), err
}

func (r *plainReader) Read() ([]string, error) {
	for {
		l, err := r.next()
		if err != nil {
			return nil, err
		}
		r.line++
		l, ok := plainRecord(l, r.comma)
		if !ok {
			continue
		}
		var s string
		if r.records == 0 {
			s = string(l)
		} else {
			s = unsafe.String(&l[0], len(l)) // valid until the next Read (see the type)
		}
		r.records++
		r.fields, r.starts = appendFields(r.fields[:0], r.starts[:0], l, s, r.comma)
		return r.fields, nil
	}
}

// plainRecord is line l (without its newline) as a record of text without double
// quotes: a carriage return at its end dropped, and in whitespace-separated text the
// spaces and tabs at its end; ok is false for a blank line, which is no record.
func plainRecord(l []byte, comma byte) (rec []byte, ok bool) {
	if n := len(l); n > 0 && l[n-1] == '\r' {
		l = l[:n-1]
	}
	if comma == whitespace {
		l = bytes.TrimRight(l, " \t")
	}
	return l, len(l) > 0
}

// appendFields appends the cells of record l (whose text is s) to fields, and their
// 0-based byte offsets to starts.
func appendFields(fields []string, starts []int, l []byte, s string, comma byte) ([]string, []int) {
	if comma == whitespace {
		return splitWhitespace(fields, starts, l, s)
	}
	start := 0
	for {
		i := bytes.IndexByte(l[start:], comma)
		if i < 0 {
			break
		}
		fields = append(fields, s[start:start+i])
		starts = append(starts, start)
		start += i + 1
	}
	return append(fields, s[start:]), append(starts, start)
}

// splitWhitespace cuts line l (whose text is s) at runs of spaces and tabs; it starts
// and ends with a cell.
func splitWhitespace(fields []string, starts []int, l []byte, s string) ([]string, []int) {
	for i := 0; i < len(l); {
		for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
			i++
		}
		start := i
		for i < len(l) && l[i] != ' ' && l[i] != '\t' {
			i++
		}
		fields = append(fields, s[start:i])
		starts = append(starts, start)
	}
	return fields, starts
}

// FieldPos is the line and the 1-based byte column where cell field of the record last
// read starts, as encoding/csv gives it.
func (r *plainReader) FieldPos(field int) (line, column int) {
	return r.line, r.starts[field] + 1
}

package data

import (
	"bytes"
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
// fraction of the cost (a 10^6 x 20 table was 8.9 s to load). Like encoding/csv it
// drops a carriage return before a newline (and at the end of the file) and skips empty
// lines. The first record's cells (the header, which the Dataset keeps) are copied; the
// cells of the others are strings over b itself, which decodeCSV parses and does not
// keep (it clones the ids): no allocation per line, and no garbage to collect.
type plainReader struct {
	b       []byte
	comma   byte
	line    int // the line of the record last read, 1-based
	records int // records read
	fields  []string
	starts  []int
}

// newRecordReader picks plainReader when b has no double quote and the delimiter is one
// byte, else encoding/csv's Reader.
func newRecordReader(b []byte, comma rune, fallback func() recordReader) recordReader {
	if comma >= utf8.RuneSelf || comma == '"' || comma == '\r' || comma == '\n' || bytes.IndexByte(b, '"') >= 0 {
		return fallback()
	}
	return &plainReader{b: b, comma: byte(comma)}
}

func (r *plainReader) Read() ([]string, error) {
	for len(r.b) > 0 {
		r.line++
		var l []byte
		if i := bytes.IndexByte(r.b, '\n'); i >= 0 {
			l, r.b = r.b[:i], r.b[i+1:]
		} else {
			l, r.b = r.b, nil
		}
		if n := len(l); n > 0 && l[n-1] == '\r' {
			l = l[:n-1]
		}
		if len(l) == 0 {
			continue
		}
		var s string
		if r.records == 0 {
			s = string(l)
		} else {
			s = unsafe.String(&l[0], len(l)) // b is never written: the strings stay valid
		}
		r.records++
		r.fields, r.starts = r.fields[:0], r.starts[:0]
		start := 0
		for {
			i := bytes.IndexByte(l[start:], r.comma)
			if i < 0 {
				break
			}
			r.fields = append(r.fields, s[start:start+i])
			r.starts = append(r.starts, start)
			start += i + 1
		}
		r.fields = append(r.fields, s[start:])
		r.starts = append(r.starts, start)
		return r.fields, nil
	}
	return nil, io.EOF
}

// FieldPos is the line and the 1-based byte column where cell field of the record last
// read starts, as encoding/csv gives it.
func (r *plainReader) FieldPos(field int) (line, column int) {
	return r.line, r.starts[field] + 1
}

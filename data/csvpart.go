package data

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// loadCSVPart reads block opts.Part of the data rows of an uncompressed CSV, TSV or TXT
// file without parsing the other rows. One pass over the bytes counts the records (the
// lines that are not blank, as encoding/csv skips "\n" and "\r\n" alone) and sees whether
// the file holds a double quote; a second pass, which stops at the block's end, finds the
// byte offsets of the file's first data row and of the block. decodeCSV then reads
//
//	the file up to the end of its first data row (header, delimiter, numeric columns and
//	its errors exactly as for the whole file), one "\n" for each line between that row
//	and the block (blank lines, which keep every "line N" of an error the whole file's),
//	the block's bytes,
//
// and the first data row is dropped again when it is not the block's.
//
// The whole file is read and then cut (loadBytes, then cutPart) when a double quote
// occurs anywhere (a quoted field may hold a newline, so a line need not be a record;
// finding the records would mean parsing every row), when there is no data row, and
// when the block's labels alone could be mapped otherwise than the whole column's: all
// 1 with the first data row's (an anomaly under 0/1, a normal row under -1/1), or a
// label error (with opts.Positive, a block without the positive value). So is a path
// that is not a regular file (a pipe: stdin). Checks that need every row, such
// as a third label value outside the block, are not made on the block: rank 0 reads
// the whole file.
func loadCSVPart(path, format string, opts LoadOptions) (*Dataset, error) {
	whole := func() (*Dataset, error) { return loadBytes(path, format, opts) }
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return whole() // a pipe (stdin) or a device: read once, without seeking
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	from := int64(0) // after a UTF-8 byte-order mark, which decodeCSV drops
	bom := make([]byte, 3)
	if _, err := f.ReadAt(bom, 0); err == nil && string(bom) == "\uFEFF" {
		from = 3
	}
	var records int
	var first record
	quoted, err := scanRecords(f, from, size, func(r record) bool {
		if records == 0 {
			first = r
		}
		records++
		return true
	})
	if err != nil {
		return nil, err
	}
	if quoted || records == 0 || first.end-first.start > maxLine {
		return whole() // the whole-file path refuses a first line past a row's limit
	}
	head := make([]byte, first.end-from)
	if _, err := f.ReadAt(head, from); err != nil {
		return nil, err
	}
	named, err := csvHasHeader(head, first.start-from, opts)
	if err != nil {
		return whole() // the whole-file path reports the delimiter's error
	}
	h := 0 // records before the first data row
	if named {
		h = 1
	}
	n, p := records-h, opts.Part
	if n < 1 {
		return whole()
	}
	lo, hi := p.Index*n/p.Of, (p.Index+1)*n/p.Of
	if hi-lo < 1 {
		return nil, fmt.Errorf("part %d of %d of %d rows has no rows: %w", p.Index, p.Of, n, errEmpty)
	}
	data1, blockLo, blockHi, err := blockRecords(f, from, size, h, lo, hi)
	if err != nil {
		return nil, err
	}
	drop := 0 // the first data row, read for the header and the columns' kinds only
	if lo > 0 {
		drop = 1
	}
	b, err := partBytes(f, data1, blockLo, blockHi, lo == 0)
	if err != nil {
		return nil, err
	}
	ds, err := decodeCSV(b, opts)
	if errors.Is(err, ErrLabel) {
		return whole()
	}
	if err != nil {
		return nil, err
	}
	if ds.Named != named || ds.N != hi-lo+drop || ambiguousLabels(ds.Y, opts) {
		return whole() // Named and N disagreeing with the scan is never seen in the tests
	}
	ds.N -= drop
	ds.X = ds.X[drop*ds.D:]
	if ds.Y != nil {
		ds.Y = ds.Y[drop:]
	}
	if ds.IDs != nil {
		ds.IDs = ds.IDs[drop:]
	}
	ds.partCut = true
	return ds, nil
}

// blockRecords finds, in a second pass over f's bytes [from, size) that stops at the
// block's end, records h (the first data row), lo+h and hi-1+h (the block's first and
// last).
func blockRecords(f *os.File, from, size int64, h, lo, hi int) (data1, blockLo, blockHi record, err error) {
	k := 0
	if _, err := scanRecords(f, from, size, func(r record) bool {
		if k == h {
			data1 = r
		}
		if k == lo+h {
			blockLo = r
		}
		if k == hi-1+h {
			blockHi = r
		}
		k++
		return k < hi+h
	}); err != nil {
		return data1, blockLo, blockHi, err
	}
	if blockHi.end == 0 {
		return data1, blockLo, blockHi, io.ErrUnexpectedEOF // the file shrank between the passes
	}
	return data1, blockLo, blockHi, nil
}

// partBytes is the text decodeCSV reads for a block: f up to the block's end when the
// block starts at the first data row (atFirst); else f up to the end of the first data
// row, a "\n" for each line between it and the block, and the block's bytes.
func partBytes(f *os.File, data1, blockLo, blockHi record, atFirst bool) ([]byte, error) {
	if atFirst {
		b := make([]byte, blockHi.end)
		return b, readSection(f, b, 0)
	}
	pad, block := int64(blockLo.line-data1.line-1), blockHi.end-blockLo.start
	b := make([]byte, data1.end+pad+block)
	for i := data1.end; i < data1.end+pad; i++ {
		b[i] = '\n'
	}
	if err := readSection(f, b[:data1.end], 0); err != nil {
		return nil, err
	}
	return b, readSection(f, b[data1.end+pad:], blockLo.start)
}

// record is one record's bytes [start, end) of a file, its newline included, and the
// 1-based line it is on.
type record struct {
	start, end int64
	line       int
}

// scanBuffer is how much of a file scanRecords reads at a time.
const scanBuffer = 1 << 20

// scanRecords calls rec for every line of r[from:size) that is not blank (a blank line,
// "\n" or "\r\n" alone, or "\r" at the end, is one encoding/csv skips), until rec returns
// false. It reports whether the bytes it read hold a double quote, and then stops.
func scanRecords(r io.ReaderAt, from, size int64, rec func(record) bool) (quoted bool, err error) {
	buf := make([]byte, scanBuffer)
	start, line := from, 1
	var width int64 // bytes of the current line before its '\n', so far
	var lead byte   // its first byte
	blank := func() bool { return width == 0 || width == 1 && lead == '\r' }
	for pos := from; pos < size; {
		m, err := r.ReadAt(buf[:min(int64(len(buf)), size-pos)], pos)
		if err != nil && !(errors.Is(err, io.EOF) && m > 0) {
			return false, err
		}
		b := buf[:m]
		if bytes.IndexByte(b, '"') >= 0 {
			return true, nil
		}
		for len(b) > 0 {
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				i = len(b)
			}
			if width == 0 && i > 0 {
				lead = b[0]
			}
			width += int64(i)
			pos += int64(i)
			if i == len(b) {
				break
			}
			pos++ // the '\n'
			if !blank() && !rec(record{start, pos, line}) {
				return false, nil
			}
			start, width, line = pos, 0, line+1
			b = b[i+1:]
		}
	}
	if start < size && !blank() {
		rec(record{start, size, line})
	}
	return false, nil
}

// csvHasHeader says whether the first record of a file is a header, as decodeCSV decides:
// head is the file from its start (a byte-order mark left out) to the end of that
// record, which starts at offset at; the file holds no double quote.
func csvHasHeader(head []byte, at int64, opts LoadOptions) (bool, error) {
	delim := opts.Delimiter
	if delim == 0 {
		var err error
		if delim, err = detectDelimiter(head); err != nil {
			return false, err
		}
	}
	s := strings.TrimSuffix(string(head[at:]), "\n")
	s = strings.TrimSuffix(s, "\r")
	cells := strings.Split(s, string(delim))
	if delim == whitespace {
		cells = strings.Fields(s)
	}
	for j := range cells {
		cells[j] = strings.TrimSpace(cells[j])
	}
	return opts.Header == HeaderYes || opts.Header == HeaderAuto && !allNumbers(cells, opts.Decimal == ','), nil
}

// ambiguousLabels reports labels whose values could mean otherwise in the whole column:
// all 1 without opts.Positive is a block of "1"s (or "true"s), an anomaly under 0/1 but
// normal under -1/1, which only the other rows tell.
func ambiguousLabels(y []int, opts LoadOptions) bool {
	if y == nil || opts.Positive != "" {
		return false
	}
	for _, v := range y {
		if v != 1 {
			return false
		}
	}
	return true
}

// readSection fills b from r at offset off; a file that shrank since it was scanned
// reads short, which is an error.
func readSection(r io.ReaderAt, b []byte, off int64) error {
	if _, err := r.ReadAt(b, off); err != nil {
		return fmt.Errorf("reading bytes %d to %d: %w", off, off+int64(len(b)), err)
	}
	return nil
}

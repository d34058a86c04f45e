package data

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// loadText reads a delimited text file as loadCSV does, and besides: takes an unnamed
// first column, or one that holds 0…n−1, for the id (pandas' index, which to_csv
// writes), and encodes the text columns where opts asks (Encode, Encoding). opts's
// Selection becomes the one the table was read with, its id column included.
func loadText(path string, gz bool, opts *LoadOptions) (*Dataset, error) {
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return loadCSV(path, gz, *opts) // a pipe is read once: no header to peek at, no second pass
	}
	header, named := peekHeader(path, gz, *opts)
	var notes []Remedy
	sel := &opts.Selection
	auto := named && sel.ID == "" && sel.IDIndex == nil && len(sel.Columns) == 0 && len(header) > 1 &&
		!slices.Contains(sel.Drop, header[0]) && opts.LabelNumber != 1 && (opts.LabelColumn == "" || opts.LabelColumn != header[0])
	if auto && header[0] == "" {
		sel.IDIndex = new(int)
		notes = append(notes, remedy("the first column has no name (pandas' index, as to_csv writes it): taken as the id, never trained on (", setting("Selection.Drop", ""), " leaves it out instead)"))
		auto = false
	}
	inner := *opts
	fit := opts.Encode && !sel.DropText && opts.Encoding == nil
	switch {
	case fit:
		inner.Selection.DropText = true
	case opts.Encoding != nil:
		if err := opts.Encoding.Validate(); err != nil {
			return nil, fmt.Errorf("%v: %w", err, ErrOptions)
		}
		for _, c := range opts.Encoding.Columns {
			if k := slices.Index(inner.Selection.Columns, c.Name); k >= 0 {
				inner.Selection.Columns = slices.Delete(slices.Clone(inner.Selection.Columns), k, k+1)
			} else if len(inner.Selection.Columns) == 0 && !slices.Contains(inner.Selection.Drop, c.Name) {
				inner.Selection.Drop = append(slices.Clone(inner.Selection.Drop), c.Name)
			}
		}
	}
	encode := (fit || opts.Encoding != nil) && named
	inner.keepEmpty = encode && opts.Missing == MissingKeep
	ds, err := loadCSV(path, gz, inner)
	if err != nil {
		return nil, err
	}
	if encode {
		if err := encodeText(ds, path, gz, inner, fit); err != nil {
			return nil, err
		}
	}
	if inner.keepEmpty {
		if err := ds.dropEmptyRows(); err != nil {
			return nil, err
		}
	}
	if auto && ds.IDs == nil && ds.D > 1 && ds.Features[0] == header[0] && isRowIndex(ds) {
		ids := make([]string, ds.N)
		for i := range ids {
			ids[i] = strconv.Itoa(int(ds.X[i*ds.D]))
		}
		if err := ds.dropColumns([]int{0}); err != nil {
			return nil, err
		}
		ds.IDs, ds.IDName = ids, idName(header[0])
		sel.ID = header[0] // by name: a table scored later names it, whatever it holds
		notes = append(notes, remedy(fmt.Sprintf("the first column, %s, holds 0…n−1 (a table's index, as pandas' to_csv writes it): taken as the id, never trained on (", quoteValue(header[0])),
			setting("Selection.Drop", header[0]), " leaves it out instead)"))
	}
	ds.Notes = append(notes, ds.Notes...)
	return ds, nil
}

// isRowIndex reports whether ds's first feature is each row's 0-based data row in the
// file, with no value missing: an index, not a measurement.
func isRowIndex(ds *Dataset) bool {
	if ds.N < 2 || ds.N >= 1<<24 || ds.Missing != nil && ds.Missing[0] > 0 { // float32 holds integers exactly below 2^24
		return false
	}
	for i := range ds.N {
		want := i
		if ds.RowIndex != nil {
			want = ds.RowIndex[i]
		}
		if ds.X[i*ds.D] != float32(want) {
			return false
		}
	}
	return true
}

// peekHeader reads a delimited text's first line, and says whether it is a header; a
// file it cannot read gives none, for loadCSV to say why.
func peekHeader(path string, gz bool, opts LoadOptions) ([]string, bool) {
	if opts.Header == HeaderNo {
		return nil, false
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	var src io.Reader = f
	if gz {
		if src, err = newGzipMembers(bufio.NewReaderSize(f, csvBlock)); err != nil {
			return nil, false
		}
	}
	br := newTextReader(src)
	if checkEncoding(br) != nil {
		return nil, false
	}
	delim, err := sniffDelimiter(br, opts.Delimiter)
	if err != nil {
		return nil, false
	}
	// The first record (a quoted name may hold a line break), within the first block: a
	// record longer is no header to look at.
	head, _ := br.Peek(csvBlock)
	if bytes.IndexByte(head, '\n') < 0 {
		return nil, false
	}
	rec, err := newRecordReader(bufio.NewReader(bytes.NewReader(head)), delim, true).Read()
	if err != nil {
		return nil, false
	}
	for j := range rec {
		rec[j] = strings.TrimSpace(rec[j])
	}
	comma := opts.Decimal == ','
	if opts.Decimal == 0 {
		comma = DetectDecimal(head, delim) == ','
	}
	return rec, opts.Header == HeaderYes || !allNumbers(rec, comma)
}

package data

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// decodeCSV reads a CSV file whose first row is a header when opts.Header says so;
// under HeaderAuto, when not all of its cells are numbers (np.savetxt writes none, and
// a header of numbers is rare enough to ask for --header yes).
//
// Positions in errors follow what a user sees in an editor: "line N" is
// the 1-based line of the file (a header is line 1, blank lines count),
// "column M" the 1-based cell in that line, label column included.
// Cells may carry surrounding spaces; an empty cell, a cell that
// strconv.ParseFloat rejects, NaN or ±Inf is an error.
func decodeCSV(b []byte, opts LoadOptions) (*Dataset, error) {
	b = bytes.TrimPrefix(b, []byte("\uFEFF")) // a UTF-8 byte-order mark from spreadsheet exports
	delim := opts.Delimiter
	if delim == 0 {
		var err error
		if delim, err = detectDelimiter(b); err != nil {
			return nil, err
		}
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.Comma = delim
	r.FieldsPerRecord = -1 // ragged rows are reported below, with their line
	first, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("no header line: %w", ErrEmpty)
	}
	if err != nil {
		return nil, csvParseError(err)
	}
	for j := range first {
		first[j] = strings.TrimSpace(first[j])
	}
	named := opts.Header == HeaderYes || opts.Header == HeaderAuto && !allNumbers(first)
	header := first
	if !named {
		header = defaultFeatures(len(first))
	}
	label, err := csvLabelColumn(header, opts)
	if err != nil {
		if !named && opts.LabelColumn != "" {
			err = fmt.Errorf("%w (line 1 is data, not a header: give the label's 0-based index, or --header yes)", err)
		}
		return nil, err
	}
	d := len(header)
	if label >= 0 {
		d--
	}
	if d == 0 {
		return nil, fmt.Errorf("line 1: no feature columns: %w", ErrEmpty)
	}
	features := make([]string, 0, d)
	seen := map[string]int{}
	for j, h := range header {
		if j == label {
			continue
		}
		if k, ok := seen[h]; ok && named {
			return nil, fmt.Errorf("line 1: column %q is both column %d and %d: %w", h, k+1, j+1, ErrFormat)
		}
		seen[h] = j
		features = append(features, h)
	}
	var x, y []float64
	row := func(rec []string) error {
		line, _ := r.FieldPos(0)
		if len(rec) != len(header) {
			return fmt.Errorf("line %d: %d cells, the first row has %d: %w", line, len(rec), len(header), ErrRagged)
		}
		for j, cell := range rec {
			v, err := parseCell(cell)
			if err != nil {
				line, _ := r.FieldPos(j)
				return fmt.Errorf("line %d, column %d (%q): %w", line, j+1, header[j], err)
			}
			if j == label {
				if v != 0 && v != 1 {
					return fmt.Errorf("line %d, column %d (%q): label %v: %w", line, j+1, header[j], v, ErrLabel)
				}
				y = append(y, v)
				continue
			}
			x = append(x, v)
		}
		return nil
	}
	if !named {
		if err := row(first); err != nil {
			return nil, err
		}
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvParseError(err)
		}
		if err := row(rec); err != nil {
			return nil, err
		}
	}
	n := len(x) / d
	if n == 0 {
		return nil, fmt.Errorf("no data rows after the header: %w", ErrEmpty)
	}
	ds, err := newDataset(n, d, x, y, features)
	if err != nil {
		return nil, err
	}
	ds.Named = named
	return ds, nil
}

// allNumbers reports whether every cell of a row parses as a number, NaN and ±Inf
// included (such a row is data, and its bad cells are reported as such).
func allNumbers(cells []string) bool {
	for _, c := range cells {
		if _, err := strconv.ParseFloat(strings.TrimSpace(c), 64); err != nil && !errors.Is(err, strconv.ErrRange) {
			return false
		}
	}
	return true
}

// parseCell parses one numeric cell.
func parseCell(cell string) (float64, error) {
	s := strings.TrimSpace(cell)
	if s == "" {
		return 0, ErrEmptyCell
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		// ParseFloat returns ±Inf with a range error for "1e999".
		return 0, fmt.Errorf("%q: %w", s, ErrNotNumeric)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q: %w", s, ErrNonFinite)
	}
	return v, nil
}

// csvLabelColumn resolves the label column to a 0-based index, -1 for none.
func csvLabelColumn(header []string, opts LoadOptions) (int, error) {
	if opts.LabelColumn == "" {
		if opts.LabelIndex >= len(header) {
			return 0, fmt.Errorf("label column index %d (0-based), but the header has %d columns: %w", opts.LabelIndex, len(header), ErrMissingVariable)
		}
		return opts.LabelIndex, nil
	}
	found := -1
	for j, h := range header {
		if h != opts.LabelColumn {
			continue
		}
		if found >= 0 {
			return 0, fmt.Errorf("line 1: label column %q is both column %d and %d: %w", h, found+1, j+1, ErrOptions)
		}
		found = j
	}
	if found < 0 {
		return 0, fmt.Errorf("line 1: no column named %q: %w", opts.LabelColumn, ErrMissingVariable)
	}
	return found, nil
}

// detectDelimiter picks ',', ';' or tab, whichever occurs most often outside
// double quotes on the header line; a header with none of them is a single
// column. A tie between two of them is an error: the caller must say.
func detectDelimiter(b []byte) (rune, error) {
	counts := map[rune]int{}
	quoted := false
	for _, c := range string(b) {
		if c == '\n' && !quoted {
			break
		}
		switch c {
		case '"':
			quoted = !quoted
		case ',', ';', '\t':
			if !quoted {
				counts[c]++
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
		return 0, fmt.Errorf("line 1: cannot tell the delimiter (%d commas, %d semicolons, %d tabs); set it explicitly: %w",
			counts[','], counts[';'], counts['\t'], ErrFormat)
	}
	return best, nil
}

// csvParseError turns an encoding/csv syntax error into this package's
// form; its "column" is a character position, so it is named so.
func csvParseError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("line %d, character %d: %v: %w", pe.Line, pe.Column, pe.Err, ErrFormat)
	}
	return fmt.Errorf("%v: %w", err, ErrFormat)
}

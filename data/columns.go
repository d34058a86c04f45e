package data

import (
	"fmt"
	"github.com/udocc/udocc/internal/decimal"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Selection says which columns of a table (CSV, Parquet) become features. The zero
// value takes every column but the label.
type Selection struct {
	// ID names a column carried through to Dataset.IDs, of any type, never a feature.
	ID string `json:"id,omitempty"`
	// IDIndex, when set, is the id column's 0-based position instead: for a column
	// whose header is empty (pandas' unnamed index), which ID cannot name. At most one
	// of ID and IDIndex is set.
	IDIndex *int `json:"id_index,omitempty"`
	// Columns, when set, lists exactly the feature columns, in this order.
	Columns []string `json:"columns,omitempty"`
	// Drop lists columns that are not features.
	Drop []string `json:"drop,omitempty"`
	// DropText leaves out the columns that hold text (or other non-numbers) instead of
	// refusing them.
	DropText bool `json:"drop_text,omitempty"`
}

// IsZero reports whether s selects every column (the zero value).
func (s Selection) IsZero() bool {
	return s.ID == "" && s.IDIndex == nil && len(s.Columns) == 0 && len(s.Drop) == 0 && !s.DropText
}

// Validate reports a selection that contradicts itself.
func (s Selection) Validate() error {
	if len(s.Columns) > 0 && len(s.Drop) > 0 {
		return fmt.Errorf("data: both columns %q and drop %q set: %w", s.Columns, s.Drop, ErrOptions)
	}
	for _, list := range [][]string{s.Columns, s.Drop} {
		seen := map[string]bool{}
		for _, c := range list {
			if seen[c] {
				return fmt.Errorf("data: column %q is named twice: %w", c, ErrOptions)
			}
			seen[c] = true
		}
	}
	if s.IDIndex != nil && (s.ID != "" || *s.IDIndex < 0) {
		return fmt.Errorf("data: id %q and id index %d: want one name, or one index of at least 0: %w", s.ID, *s.IDIndex, ErrOptions)
	}
	if s.ID != "" && slices.Contains(s.Columns, s.ID) {
		return fmt.Errorf("data: column %q is both the id and a feature: %w", s.ID, ErrOptions)
	}
	return nil
}

// roles is a resolved Selection over a table's columns (0-based indexes).
type roles struct {
	features []int // in feature order
	id       int   // -1 for none
	label    int   // -1 for none
	text     []int // non-numeric columns left out under DropText
}

// resolveColumns resolves the selection over the columns names, of which the ones with
// numeric[j] false hold something other than numbers; label is the label column's index
// or -1. Errors name the columns: unknown ones, and non-numeric features (suggesting
// --drop or --drop-text), the first of them with where(j), the place that shows it.
func resolveColumns(names []string, numeric []bool, label int, s Selection, where func(j int) string) (roles, error) {
	r := roles{id: -1, label: label}
	index := func(name string) (int, error) {
		j := slices.Index(names, name)
		if j < 0 {
			return 0, fmt.Errorf("no column named %q (the columns are %s): %w", name, quoteList(names, 12), errMissingVariable)
		}
		return j, nil
	}
	if s.ID != "" {
		j, err := index(s.ID)
		if err != nil {
			return r, err
		}
		if j == label {
			return r, fmt.Errorf("column %q is both the id and the label: %w", s.ID, ErrOptions)
		}
		r.id = j
	}
	if s.IDIndex != nil {
		j := *s.IDIndex
		switch {
		case j >= len(names):
			return r, fmt.Errorf("id column %d (0-based), but the table has %d columns: %w", j, len(names), errMissingVariable)
		case j == label:
			return r, fmt.Errorf("column %d (%s) is both the id and the label: %w", j, quoteValue(names[j]), ErrOptions)
		case slices.Contains(s.Columns, names[j]):
			return r, fmt.Errorf("column %d (%s) is both the id and a feature: %w", j, quoteValue(names[j]), ErrOptions)
		}
		r.id = j
	}
	dropped := make([]bool, len(names))
	for _, c := range s.Drop {
		j, err := index(c)
		if err != nil {
			return r, err
		}
		dropped[j] = true
	}
	var chosen []int
	if len(s.Columns) > 0 {
		for _, c := range s.Columns {
			j, err := index(c)
			if err != nil {
				return r, err
			}
			if j == label {
				return r, fmt.Errorf("column %q is both the label and a feature: %w", c, ErrOptions)
			}
			chosen = append(chosen, j)
		}
	} else {
		for j := range names {
			if j != label && j != r.id && !dropped[j] {
				chosen = append(chosen, j)
			}
		}
	}
	var bad []string
	firstBad := -1
	for _, j := range chosen {
		switch {
		case numeric[j]:
			r.features = append(r.features, j)
		case s.DropText:
			r.text = append(r.text, j)
		default:
			if firstBad < 0 {
				firstBad = j
			}
			bad = append(bad, names[j])
		}
	}
	if len(bad) > 0 {
		verb := "is"
		if len(bad) > 1 {
			verb = "are"
		}
		var drop []any
		if len(strings.Join(ShowNames(bad), ",")) > 200 {
			drop = []any{setting("Selection.Drop"), " and their names"} // a list too long to echo
		} else {
			drop = []any{setting("Selection.Drop", bad...)}
		}
		var hint []any
		for _, name := range bad {
			if IsLabelName(name) {
				hint = []any{fmt.Sprintf("; if %s is the label, say so with ", quoteValue(name)), setting("LabelColumn", name)}
				break
			}
		}
		at := where(firstBad)
		if len(bad) > 1 { // the example is the first column's, not every one's
			at = fmt.Sprintf("%s: %s", quoteValue(names[firstBad]), at)
		}
		parts := []any{fmt.Sprintf("%s %s %s not numeric (%s); leave %s out with ", plural(len(bad), "column", "columns"), quoteList(bad, 12), verb, at, pronoun(len(bad)))}
		parts = append(append(parts, drop...), ", or every such column with ", setting("Selection.DropText"))
		return r, remedyError(errNotNumeric, append(parts, hint...)...)
	}
	if len(r.features) == 0 {
		return r, fmt.Errorf("no numeric feature columns are left: %w", errEmpty)
	}
	return r, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// quoteList quotes up to max names, then says how many more there are.
func quoteList(names []string, max int) string {
	q := make([]string, 0, min(len(names), max)+1)
	for i, n := range names {
		if i == max {
			q = append(q, fmt.Sprintf("and %d more", len(names)-max))
			break
		}
		q = append(q, quoteValue(n))
	}
	return strings.Join(q, ", ")
}

// quoteValue quotes a value taken from a file for a message, cut to its first 80 bytes
// (at a character's start) when it is longer, with its length said: a cell of 100 MB
// is not echoed whole.
func quoteValue(s string) string {
	const most = 80
	if len(s) <= most {
		return strconv.Quote(s)
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:cut]), len(s))
}

// labelReader turns a label column's cells, read as text, into 0/1 anomaly labels
// once every cell is seen. It keeps at most two distinct values and one small code per
// row, so a long column costs a byte a row.
type labelReader struct {
	positive string   // the value that marks an anomaly; "" for the numeric conventions
	values   []string // the distinct values, in order of appearance
	codes    []uint8  // per row, the index into values
}

// add records one cell; a third distinct value is an error (row is 1-based, for it).
func (l *labelReader) add(cell string) error {
	cell = strings.TrimSpace(cell)
	if cell == "" {
		return fmt.Errorf("the label is missing (an empty cell); every row needs one: %w", ErrLabel)
	}
	k := slices.Index(l.values, cell)
	if k < 0 {
		if len(l.values) == 2 {
			return fmt.Errorf("label %s is a third value after %s and %s: %w", quoteValue(cell), quoteValue(l.values[0]), quoteValue(l.values[1]), ErrLabel)
		}
		l.values = append(l.values, strings.Clone(cell)) // cell may be a reader's buffer
		k = len(l.values) - 1
	}
	l.codes = append(l.codes, uint8(k))
	return nil
}

// labels maps the codes onto 0/1 by the column's convention: with a positive value,
// that value is 1 and the other 0; else 0/1 (1 = anomaly, as ODDS and PyOD), -1/1
// (scikit-learn's predict: -1 = outlier) or true/false (true = anomaly).
func (l *labelReader) labels() ([]int, error) {
	anomaly, err := l.anomalyValues()
	if err != nil {
		return nil, err
	}
	out := make([]int, len(l.codes))
	for i, c := range l.codes {
		if anomaly[c] {
			out[i] = 1
		}
	}
	return out, nil
}

// anomalyValues says which of the distinct values mark an anomaly.
func (l *labelReader) anomalyValues() ([2]bool, error) {
	var a [2]bool
	if l.positive != "" {
		k := slices.Index(l.values, l.positive)
		if k < 0 {
			return a, fmt.Errorf("positive label %q does not occur; the labels are %s: %w", l.positive, quoteList(l.values, 2), ErrLabel)
		}
		a[k] = true
		return a, nil
	}
	num := map[string]float64{}
	for _, v := range l.values {
		if f, err := decimal.Parse(v); err == nil {
			num[v] = f
		}
	}
	is := func(allowed ...float64) bool {
		for _, v := range l.values {
			f, ok := num[v]
			if !ok || !slices.Contains(allowed, f) {
				return false
			}
		}
		return true
	}
	isBool := true
	for _, v := range l.values {
		isBool = isBool && (strings.EqualFold(v, "true") || strings.EqualFold(v, "false"))
	}
	switch {
	case is(0, 1):
		for k, v := range l.values {
			a[k] = num[v] == 1
		}
	case is(-1, 1):
		for k, v := range l.values {
			a[k] = num[v] == -1
		}
	case isBool:
		for k, v := range l.values {
			a[k] = strings.EqualFold(v, "true")
		}
	default:
		return a, remedyError(ErrLabel, fmt.Sprintf("labels %s are none of 0/1, -1/1 (-1 = outlier) or true/false; name the anomaly's value with ", quoteList(l.values, 2)), setting("Positive"))
	}
	return a, nil
}

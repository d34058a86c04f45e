package data

import (
	"errors"
	"fmt"
	"github.com/udocc/udocc/internal/memory"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// csvRows gathers a CSV table's data rows as they are read: the feature cells parsed
// into x (row-major), the label column's cells and the ids, with every error naming the
// line and the column.
type csvRows struct {
	r      recordReader // the reader of the rows, for the line of a bad cell
	header []string     // the columns' names
	ro     roles
	label  int // the label column, -1 for none
	x      []float32
	ids    []string
	lr     labelReader

	comma   bool    // the numbers' decimal separator is a comma (LoadOptions.Decimal)
	missing Missing // what a missing cell becomes
	// keepEmpty keeps rows with no numeric value for the text columns' encoding
	// (LoadOptions.keepEmpty).
	keepEmpty bool
	dropText  bool // Selection.DropText: a column that holds text is left out
	part      bool // a data-parallel block, whose columns must be every rank's
	// textSeen marks, per feature, a column found to hold text after its first row,
	// under dropText (set by any of readThreads' workers); textCell is the first such
	// cell seen, under textMu.
	textSeen []atomic.Bool
	textMu   sync.Mutex
	textCell []string
}

// reserve allocates x once for a table of the given number of records, the header's
// among them when named, after checking that it fits in memory: a first pass found every
// record to have the header's cells.
func (t *csvRows) reserve(records int, named bool) error {
	rows, d := records, len(t.ro.features)
	if named {
		rows--
	}
	if err := memory.Check(fmt.Sprintf("a table of %d rows x %d columns", rows, d), tableBytes(int64(rows), int64(d))); err != nil {
		return err
	}
	t.x = make([]float32, 0, rows*d)
	return nil
}

// grow makes room in x for one more row, checking memory before it is allocated.
func (t *csvRows) grow() error {
	d := len(t.ro.features)
	if len(t.x)+d <= cap(t.x) {
		return nil
	}
	c := max(2*cap(t.x), 64*d)
	if err := memory.Check(fmt.Sprintf("a table of more than %d rows x %d columns", len(t.x)/d, d), tableBytes(int64(c), 1)+4*int64(len(t.x))); err != nil {
		return err
	}
	t.x = slices.Grow(t.x, c-len(t.x))
	return nil
}

// add appends the row rec, read from the given line (1-based).
func (t *csvRows) add(rec []string, line int) error {
	if err := t.checkCells(rec, line); err != nil {
		return err
	}
	if err := t.grow(); err != nil {
		return fmt.Errorf("line %d: %w", line, err)
	}
	n := len(t.x)
	t.x = t.x[:n+len(t.ro.features)]
	if j, err := t.parseFeatures(rec, t.x[n:]); err != nil {
		line, _ := t.r.FieldPos(j)
		return t.cellError(line, j, err)
	}
	if t.label >= 0 {
		if err := t.addLabel(rec[t.label], line); err != nil {
			return err
		}
	}
	if t.ro.id >= 0 {
		t.ids = append(t.ids, strings.Clone(rec[t.ro.id]))
	}
	return nil
}

// readRest adds the rows r holds after the first: on up to threads goroutines
// (readThreads) where the table is sized (a first pass found every record to have the
// header's cells) and r is a plainReader, else one after another.
func (t *csvRows) readRest(r recordReader, sized bool, threads int) error {
	if p, ok := r.(*plainReader); ok && sized && threads > 1 {
		return t.readThreads(p.r, p.comma, p.line+1, threads)
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return csvParseError(err)
		}
		line, _ := r.FieldPos(0)
		if err := t.add(rec, line); err != nil {
			return err
		}
	}
}

// checkCells refuses a row rec, read from line, whose cells are not the header's.
func (t *csvRows) checkCells(rec []string, line int) error {
	if len(rec) != len(t.header) {
		return fmt.Errorf("line %d: %d cells, the first row has %d: %w", line, len(rec), len(t.header), errRagged)
	}
	return nil
}

// parseFeatures parses the feature cells of rec into dst, one per feature; on a bad
// cell it returns its column (0-based) and why.
//
// A missing cell (missingValues) is NaN unless t.missing is MissingError; under
// dropText, a cell of text marks its column as text (textSeen) and is NaN too, the
// column to be left out whole (dataset).
func (t *csvRows) parseFeatures(rec []string, dst []float32) (int, error) {
	for k, j := range t.ro.features {
		v, err := parseCell(rec[j], t.comma)
		if err != nil {
			switch {
			case t.missing != MissingError && (errors.Is(err, ErrMissingValue) || errors.Is(err, errEmptyCell) || isMissingCell(rec[j])):
				v = nan32
			case t.dropText && errors.Is(err, errNotNumeric):
				t.markText(k, rec[j])
				v = nan32
			default:
				return j, err
			}
		}
		dst[k] = v
	}
	return 0, nil
}

// nan32 is the NaN a missing cell is held as.
var nan32 = float32(math.NaN())

// markText records that feature k holds text, cell among it.
func (t *csvRows) markText(k int, cell string) {
	if t.textSeen[k].Load() {
		return
	}
	t.textMu.Lock()
	if !t.textSeen[k].Load() {
		t.textCell[k] = strings.Clone(strings.TrimSpace(cell))
		t.textSeen[k].Store(true)
	}
	t.textMu.Unlock()
}

// cellError is err, the error of the cell in column j (0-based) on line, placed.
//
// A missing cell's error says how to read it as missing instead; a text cell's, how to
// leave its column out.
func (t *csvRows) cellError(line, j int, err error) error {
	at := fmt.Sprintf("line %d, column %d (%s): ", line, j+1, quoteValue(t.header[j]))
	switch {
	case errors.Is(err, errEmptyCell) || errors.Is(err, ErrMissingValue):
		return &RemedyError{Err: err, Remedy: remedy(at, err.Error(), " (a missing value: ", setting("Missing", string(MissingKeep)),
			" fills it with the column's training median, ", setting("Missing", string(MissingDropRows)), " leaves its row out)")}
	case errors.Is(err, errNotNumeric):
		return &RemedyError{Err: err, Remedy: remedy(at, err.Error(), " (the column holds text: leave it out with ",
			setting("Selection.Drop", t.header[j]), ", or every such column with ", setting("Selection.DropText"), ")")}
	}
	return fmt.Errorf("%s%w", at, err)
}

// addLabel records the label cell of the row on line.
func (t *csvRows) addLabel(cell string, line int) error {
	if err := t.lr.add(cell); err != nil {
		return fmt.Errorf("line %d, column %d (%s): %w", line, t.label+1, quoteValue(t.header[t.label]), err)
	}
	return nil
}

// dataset is the table of the rows added, named when its first line was a header.
func (t *csvRows) dataset(named bool) (*Dataset, error) {
	features := make([]string, len(t.ro.features))
	for i, j := range t.ro.features {
		features[i] = t.header[j]
	}
	n := len(t.x) / len(features)
	if n == 0 {
		return nil, fmt.Errorf("%d rows, %d columns: %w", n, len(features), errEmpty)
	}
	// Every value is finite or the NaN of a missing or text cell: parseCell refuses the
	// others.
	ds := &Dataset{N: n, D: len(features), X: t.x, Features: features}
	var err error
	if t.label >= 0 {
		if named {
			ds.LabelName = t.header[t.label]
		}
		if ds.Y, err = t.lr.labels(); err != nil {
			return nil, fmt.Errorf("column %d (%s): %w", t.label+1, quoteValue(t.header[t.label]), err)
		}
	}
	ds.Named = named
	ds.IDs = t.ids
	for _, j := range t.ro.text {
		ds.TextDropped = append(ds.TextDropped, t.header[j])
	}
	var text []int
	for k := range t.textSeen {
		if t.textSeen[k].Load() {
			text = append(text, k)
			ds.TextDropped = append(ds.TextDropped, features[k])
		}
	}
	if err := ds.dropColumns(text); err != nil {
		return nil, err
	}
	if err := ds.settleMissing(t.missing, t.part, t.keepEmpty); err != nil {
		return nil, err
	}
	if t.ro.id >= 0 {
		ds.IDName = idName(t.header[t.ro.id])
	}
	return ds, nil
}

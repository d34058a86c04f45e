package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/udocc/udocc/internal/atomicfile"
	lib "github.com/udocc/udocc/internal/detector"
)

// A labels file is the CSV a review writes and the user answers in: one line per row
// asked (or added by hand), with the columns
//
//	row        the row's 1-based data row in the table, as scores.csv numbers it
//	<id>       the table's id column, where it has one
//	score      the row's score under the model
//	rank       its 1-based rank among the table's n rows, highest score first (ties:
//	           the lower row first)
//	n          the rows of the table (the ranks are out of n)
//	round      the review round that asked it; empty for a row the user added
//	anomaly    the answer: 1/0, yes/no or true/false (any case); empty until answered
//	<features> the row's values, as the model read them (a missing cell imputed)
//	feature_i, share_i  the features that raise its score most, with their shares
//
// Columns are found by name (the first one of each name); columns the user added are
// kept as they are.

// The labels file's own columns.
const (
	colRow     = "row"
	colScore   = "score"
	colRank    = "rank"
	colN       = "n"
	colRound   = "round"
	colAnomaly = "anomaly"
)

// labelsColumns are the columns every labels file has, in the order a review writes
// them (the id column, where there is one, after row).
var labelsColumns = []string{colRow, colScore, colRank, colN, colRound, colAnomaly}

// labelsError is a cell of a labels file that a review or a cut cannot take: the file,
// its 1-based line and the column name where they are known.
type labelsError struct {
	Path   string
	Line   int    // 0: the file as a whole
	Column string // "": the line as a whole
	Err    error
}

func (e *labelsError) Error() string {
	where := e.Path
	if e.Line > 0 {
		where += fmt.Sprintf(": line %d", e.Line)
	}
	if e.Column != "" {
		where += fmt.Sprintf(", column %s", e.Column)
	}
	return where + ": " + e.Err.Error()
}

func (e *labelsError) Unwrap() error { return e.Err }

// labelLine is one line of a labels file.
type labelLine struct {
	line  int               // 1-based line in the file read; 0 for a line this run adds
	cells map[string]string // by column name
	// The parsed cells: row is 1-based (0 where absent); rank, n and round are 0 where
	// empty; answer is -1 where empty, else 0 (normal) or 1 (anomaly).
	row      int
	score    float64
	hasScore bool
	rank, n  int
	round    int
	answer   int
}

// answered says whether the user has answered the line.
func (l *labelLine) answered() bool { return l.answer >= 0 }

// userPick says whether the user added the line (no round): outside the design.
func (l *labelLine) userPick() bool { return l.round == 0 }

// labelsFile is a labels file read (or about to be written for the first time).
type labelsFile struct {
	path   string
	header []string // nil for a new file
	lines  []*labelLine
	sha256 string // of the bytes read; "" for a new file
}

// readLabels reads the labels file at path; a file that does not exist is a new, empty
// one when mayBeNew. Each cell of the file's own columns is checked: a malformed one is
// refused with its line and column, and so is a row listed twice with different answers.
func readLabels(path string, mayBeNew bool) (*labelsFile, error) {
	lf := &labelsFile{path: path}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && mayBeNew:
		return lf, nil
	case err != nil:
		return nil, err
	}
	sum := sha256.Sum256(b)
	lf.sha256 = hex.EncodeToString(sum[:])
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1 // a line added by hand may stop after its answer
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		if mayBeNew {
			return lf, nil
		}
		return nil, &labelsError{Path: path, Err: errors.New("empty: no header and no answers")}
	}
	if err != nil {
		return nil, csvError(path, err)
	}
	header[0] = strings.TrimPrefix(header[0], "\ufeff") // a spreadsheet's byte order mark
	for i := range header {
		header[i] = strings.TrimSpace(header[i])
	}
	for _, c := range []string{colRow, colAnomaly} {
		if !slices.Contains(header, c) {
			return nil, &labelsError{Path: path, Line: 1, Err: fmt.Errorf("no %q column: a labels file that udocc review wrote has %s", c, strings.Join(labelsColumns, ", "))}
		}
	}
	lf.header = header
	seen := map[int]*labelLine{}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvError(path, err)
		}
		line, _ := r.FieldPos(0)
		l := &labelLine{line: line, cells: map[string]string{}}
		blank := true
		for j, v := range rec {
			if j < len(header) {
				if _, dup := l.cells[header[j]]; !dup {
					l.cells[header[j]] = v
				}
			}
			blank = blank && strings.TrimSpace(v) == ""
		}
		if blank {
			continue
		}
		if err := l.parse(path); err != nil {
			return nil, err
		}
		if first, ok := seen[l.row]; ok {
			if first.answered() && l.answered() && first.answer != l.answer {
				return nil, &labelsError{Path: path, Line: l.line, Column: colAnomaly,
					Err: fmt.Errorf("row %d answered %s here and %s on line %d: contradicting answers", l.row, answerWord(l.answer), answerWord(first.answer), first.line)}
			}
			// The same row again, alike: one line (the first), with the answer where
			// only this one has it.
			if !first.answered() && l.answered() {
				first.answer, first.cells[colAnomaly] = l.answer, l.cells[colAnomaly]
			}
			if first.round == 0 && l.round > 0 {
				first.round, first.cells[colRound] = l.round, l.cells[colRound]
			}
			continue
		}
		seen[l.row] = l
		lf.lines = append(lf.lines, l)
	}
	return lf, nil
}

// csvError is a CSV syntax error of the labels file, with its line.
func csvError(path string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &labelsError{Path: path, Line: pe.Line, Err: pe.Err}
	}
	return fmt.Errorf("%s: %w", path, err)
}

func answerWord(a int) string {
	if a == 1 {
		return "anomaly"
	}
	return "normal"
}

// parse reads the line's own cells.
func (l *labelLine) parse(path string) error {
	bad := func(col, format string, args ...any) error {
		return &labelsError{Path: path, Line: l.line, Column: col, Err: fmt.Errorf(format, args...)}
	}
	positive := func(col string) (int, error) {
		s := strings.TrimSpace(l.cells[col])
		if s == "" {
			return 0, nil
		}
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			return 0, bad(col, "%q: want a whole number, 1 or more", s)
		}
		return v, nil
	}
	var err error
	if s := strings.TrimSpace(l.cells[colRow]); s == "" {
		return bad(colRow, "empty: each line names its row (1-based, as scores.csv numbers rows)")
	}
	if l.row, err = positive(colRow); err != nil {
		return err
	}
	if l.rank, err = positive(colRank); err != nil {
		return err
	}
	if l.n, err = positive(colN); err != nil {
		return err
	}
	if l.round, err = positive(colRound); err != nil {
		return err
	}
	if s := strings.TrimSpace(l.cells[colScore]); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return bad(colScore, "%q: want a number", s)
		}
		l.score, l.hasScore = v, true
	}
	a, ok := parseAnswer(l.cells[colAnomaly])
	if !ok {
		return bad(colAnomaly, "%q: want 1 or 0, yes or no, true or false (or empty: not answered yet)", l.cells[colAnomaly])
	}
	l.answer = a
	return nil
}

// parseAnswer reads an anomaly cell: 1, yes, true (any case) are 1; 0, no, false are 0;
// an empty cell is -1 (no answer yet).
func parseAnswer(s string) (int, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return -1, true
	case "1", "yes", "true", "y":
		return 1, true
	case "0", "no", "false", "n":
		return 0, true
	}
	return 0, false
}

// write writes the file atomically (internal/atomicfile): the header read (or header
// for a new file), with any column this run's lines have that it lacks added, then every
// line, the lines read first.
func (lf *labelsFile) write(header []string) error {
	if lf.header == nil {
		lf.header = header
	}
	for _, c := range header {
		if !slices.Contains(lf.header, c) {
			lf.header = append(lf.header, c)
		}
	}
	return atomicfile.Write(lf.path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		if err := cw.Write(lf.header); err != nil {
			return err
		}
		rec := make([]string, len(lf.header))
		for _, l := range lf.lines {
			for j, c := range lf.header {
				rec[j] = l.cells[c]
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	})
}

// counts are the file's answers, anomalies among them, and the rows still pending
// (asked, not answered).
func (lf *labelsFile) counts() (answers, anomalies, pending int) {
	for _, l := range lf.lines {
		switch {
		case l.answered():
			answers++
			anomalies += l.answer
		case !l.userPick():
			pending++
		}
	}
	return answers, anomalies, pending
}

// maxRound is the highest round of the file's lines.
func (lf *labelsFile) maxRound() int {
	r := 0
	for _, l := range lf.lines {
		r = max(r, l.round)
	}
	return r
}

// ranked are the file's answers by rank, for a model without the table (udocc cut
// --labels), and the table's rows n: every answered line must carry its score and rank
// (udocc review fills them in for the lines the user added) and every line the same n.
// Where the file holds the rows' values, they are scored with m and each must give the
// line's score: a file for another model is refused.
func (lf *labelsFile) ranked(ctx context.Context, m *lib.Model, dir string) (int, []lib.RankedAnswer, error) {
	n, nLine := 0, 0
	bad := func(l *labelLine, col, format string, args ...any) error {
		return &labelsError{Path: lf.path, Line: l.line, Column: col, Err: fmt.Errorf(format, args...)}
	}
	for _, l := range lf.lines {
		switch {
		case l.n == 0:
		case n == 0:
			n, nLine = l.n, l.line
		case l.n != n:
			return 0, nil, bad(l, colN, "%d rows, but line %d says %d: every line's n is the rows of one table", l.n, nLine, n)
		}
	}
	var out []lib.RankedAnswer
	var lines []*labelLine
	ranks := map[int]*labelLine{}
	for _, l := range lf.lines {
		if !l.answered() {
			continue
		}
		switch {
		case !l.hasScore || l.rank == 0 || l.n == 0:
			col := colScore
			if l.rank == 0 {
				col = colRank
			}
			if l.n == 0 {
				col = colN
			}
			return 0, nil, bad(l, col, "row %d has no %s: run udocc review --model %s --labels %s DATA once to fill in the rows added by hand", l.row, col, dir, lf.path)
		case l.rank > n:
			return 0, nil, bad(l, colRank, "rank %d of %d rows", l.rank, n)
		}
		if other, ok := ranks[l.rank]; ok {
			return 0, nil, bad(l, colRank, "row %d has rank %d, and so has row %d on line %d: a rank is one row's", l.row, l.rank, other.row, other.line)
		}
		ranks[l.rank] = l
		out = append(out, lib.RankedAnswer{Rank: l.rank, Score: l.score, Anomaly: l.answer == 1, Round: l.round})
		lines = append(lines, l)
	}
	if n == 0 {
		return 0, nil, &labelsError{Path: lf.path, Err: fmt.Errorf("no line says the table's rows (column %s): write the file with udocc review", colN)}
	}
	return n, out, lf.checkScores(ctx, m, dir, lines)
}

// checkScores scores the values the lines hold with m and refuses a line whose score is
// not the file's; a file without the values (or a line missing some) is not checked.
func (lf *labelsFile) checkScores(ctx context.Context, m *lib.Model, dir string, lines []*labelLine) error {
	names := m.Features()
	if names == nil {
		for j := range m.Inputs() {
			names = append(names, featureName(nil, j))
		}
	}
	for _, c := range names {
		if !slices.Contains(lf.header, c) {
			return nil
		}
	}
	var rows [][]float64
	var checked []*labelLine
	for _, l := range lines {
		row := make([]float64, len(names))
		whole := true
		for j, c := range names {
			s := strings.TrimSpace(l.cells[c])
			if s == "" {
				whole = false
				break
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return &labelsError{Path: lf.path, Line: l.line, Column: c, Err: fmt.Errorf("%q: want the row's value, a number", s)}
			}
			row[j] = v
		}
		if whole {
			rows, checked = append(rows, row), append(checked, l)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	scores, err := m.Score(ctx, rows)
	if err != nil {
		return fmt.Errorf("%s: scoring the rows' values: %w", lf.path, libError(err))
	}
	for k, l := range checked {
		if !scoreNear(l.score, scores[k]) {
			return &labelsError{Path: lf.path, Line: l.line, Column: colScore,
				Err: fmt.Errorf("row %d's values score %s under %s, the file says %s: a labels file of another model", l.row, ftoa(scores[k]), dir, ftoa(l.score))}
		}
	}
	return nil
}

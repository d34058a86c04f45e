package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"golang.org/x/sys/unix"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/atomicfile"
	lib "github.com/udocc/udocc/internal/detector"
)

// tableFlags are the flags of fit and score that say how to read a table (its format,
// columns and labels) and where scores go besides --out.
type tableFlags struct {
	format    string
	delimiter string
	id        string
	columns   string
	drop      string
	dropText  bool
	positive  string
	scoresTo  string
	appendTo  string
	missing   string
	part      data.Part // a data-parallel rank's block of rows; the zero value reads all
	threads   int       // the goroutines a text table is parsed on: --threads
	decimal   string    // --decimal: auto, . or ,
	// digits and members say how scores.csv is written: --digits, --member-scores.
	digits  int
	members bool
	// encode makes a fit turn a text table's text columns into features (data.Encoding);
	// encoding is a model's, which score and explain read new rows with.
	encode   bool
	encoding *data.Encoding
}

// addTableFlags declares the table flags.
func addTableFlags(fs *pflag.FlagSet, t *tableFlags) {
	fs.StringVar(&t.format, "format", "", "DATA's format where its extension does not say it, as for - (stdin): "+strings.Join(data.Formats, ", "))
	fs.StringVar(&t.delimiter, "delimiter", "auto", "what separates a text table's cells: , ; tab, space (runs of spaces and tabs, as np.savetxt writes) or auto (found on the first line)")
	fs.StringVar(&t.id, "id", "", "a column carried through to scores.csv as each row's id (any type; never trained on)")
	fs.StringVar(&t.columns, "columns", "", "the feature columns, comma-separated, in this order (default: every column but --label and --id)")
	fs.StringVar(&t.drop, "drop", "", "columns not to train on, comma-separated")
	fs.BoolVar(&t.dropText, "drop-text", false, "leave out the text columns (categories, dates) instead of encoding them as features")
	fs.StringVar(&t.decimal, "decimal", "auto", "a text table's decimal separator: . , or auto (a comma where the cells are ;- or tab-separated and most numbers need one)")
	fs.StringVar(&t.positive, "positive", "", "the --label value that marks an anomaly, for labels other than 0/1, -1/1 (-1 = outlier) and true/false")
}

// addSendFlags adds --scores-to and --append-to, which fit and score honour (explain
// writes no scores, so it does not take them).
func addSendFlags(fs *pflag.FlagSet, t *tableFlags) {
	fs.StringVar(&t.scoresTo, "scores-to", "", "also write scores.csv here; - is stdout (the report then goes to stderr)")
	fs.StringVar(&t.appendTo, "append-to", "", "write DATA with score, rank and label columns added to this .csv or .parquet file")
	fs.IntVar(&t.digits, "digits", 0, "significant digits of scores.csv's scores (7 reads well); 0, the default, writes each exactly: the shortest form that reads back to the same float64, so that a score compares with the threshold as its label does")
	fs.BoolVar(&t.members, "member-scores", false, "also write each ensemble member's score into scores.csv (score_seedN)")
	fs.StringVar(&t.missing, "missing", "impute", "what a missing cell (empty, NA, NaN, null, … as pandas reads them) becomes: impute (the feature's training median, kept in the model), drop-rows (its row is left out) or error; a row with no value at all is left out and reported")
}

// missingPolicy is the data.Missing --missing names.
func (t tableFlags) missingPolicy() (data.Missing, error) {
	switch t.missing {
	case "impute", "":
		return data.MissingKeep, nil // the library imputes
	case "drop-rows":
		return data.MissingDropRows, nil
	case "error":
		return data.MissingError, nil
	}
	return "", usagef("--missing %q: want impute, drop-rows or error", t.missing)
}

// check validates the table flags that do not depend on the data.
func (t tableFlags) check(asJSON bool) error {
	if t.format != "" && !slices.Contains(data.Formats, t.format) {
		return usagef("--format %q: want one of %s", t.format, strings.Join(data.Formats, ", "))
	}
	if _, err := t.delim(); err != nil {
		return err
	}
	if _, err := t.decimalSep(); err != nil {
		return err
	}
	if t.digits < 0 || t.digits > 17 {
		return usagef("--digits %d: want 1 to 17 significant digits, or 0 for exact", t.digits)
	}
	if d, _ := t.delim(); d == ',' && t.decimal == "," {
		return usagef("--decimal , with --delimiter ,: a comma cannot separate both cells and decimals")
	}
	if _, err := t.missingPolicy(); err != nil {
		return err
	}
	if t.columns != "" && t.drop != "" {
		return usagef("--columns and --drop: give one (--columns lists what is kept)")
	}
	if err := t.selection().Validate(); err != nil {
		return usageError{err}
	}
	if t.scoresTo == "-" && asJSON {
		return usagef("--scores-to - and --json both want stdout")
	}
	if t.appendTo != "" {
		if _, err := data.TableFormat(t.appendTo); err != nil {
			return usagef("--append-to: %v", err)
		}
	}
	if t.scoresTo != "" && t.scoresTo != "-" && t.appendTo != "" && samePath(t.scoresTo, t.appendTo) {
		return usagef("--scores-to %s and --append-to %s are the same file: one would overwrite the other; name two files", t.scoresTo, t.appendTo)
	}
	return nil
}

// samePath reports whether a and b name one file: the same path once made absolute and
// its links resolved, or the same existing file (a hard link).
func samePath(a, b string) bool {
	if resolved(a) == resolved(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// delim is the data.LoadOptions.Delimiter --delimiter names; 0 for auto.
// decimalSep is the data.LoadOptions.Decimal --decimal names.
func (t tableFlags) decimalSep() (rune, error) {
	switch t.decimal {
	case "auto", "":
		return 0, nil
	case ".", ",":
		return rune(t.decimal[0]), nil
	}
	return 0, usagef("--decimal %q: want . , or auto", t.decimal)
}

func (t tableFlags) delim() (rune, error) {
	switch t.delimiter {
	case "auto", "":
		return 0, nil
	case ",", ";":
		return rune(t.delimiter[0]), nil
	case "tab", "\t":
		return '\t', nil
	case "space", " ":
		return ' ', nil
	}
	return 0, usagef("--delimiter %q: want , ; tab, space or auto", t.delimiter)
}

// selection is the data.Selection the flags give.
func (t tableFlags) selection() data.Selection {
	return data.Selection{ID: t.id, Columns: splitList(t.columns), Drop: splitList(t.drop), DropText: t.dropText}
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	out := strings.Split(s, ",")
	for i := range out {
		out[i] = strings.TrimSpace(out[i])
	}
	return out
}

// input is a loaded table and where it came from, so that --append-to can read it again.
type input struct {
	ds     *data.Dataset
	path   string // the file read: DATA, or a copy of stdin
	opts   data.LoadOptions
	remove func()
}

// loadTable reads DATA (a path, or - for stdin, copied to a temporary file so that any
// format, Parquet included, can be read from it and read again) with --label, --x-var,
// --header and the table flags. The caller calls remove when done.
func loadTable(path string, f inputFlags, t tableFlags, sel data.Selection) (*input, error) {
	return loadTableLabel(path, f, t, sel, false)
}

// loadTableLabel is loadTable, where the label column may be absent when optional.
func loadTableLabel(path string, f inputFlags, t tableFlags, sel data.Selection, optional bool) (*input, error) {
	in := &input{path: path, remove: func() {}}
	if path == "-" {
		if t.format == "" {
			return nil, usagef("DATA - (stdin) needs --format: one of %s", strings.Join(data.Formats, ", "))
		}
		tmp, done, err := spoolStdin(t.format)
		if err != nil {
			return nil, err
		}
		in.path, in.remove = tmp, done
	}
	opts := data.LoadOptions{}
	opts.XVar, opts.Format, opts.Selection, opts.Positive = f.xVar, t.format, sel, t.positive
	opts.Part, opts.Threads = t.part, t.threads
	opts.Missing, _ = t.missingPolicy() // checked with the flags
	opts.Delimiter, _ = t.delim()       // checked with the flags
	opts.Decimal, _ = t.decimalSep()    // checked with the flags
	opts.Encoding = t.encoding
	opts.Encode = t.encode && t.encoding == nil && !sel.DropText && t.part.Of <= 1
	opts.Header, _ = parseHeader(f.header) // checked with the flags
	if data.IsTable(path, t.format) {
		if i, err := strconv.Atoi(f.label); err == nil {
			opts.LabelNumber = i + 1 // --label is 0-based (not negative: checked with the flags)
		} else {
			opts.LabelColumn = f.label
			opts.LabelOptional = optional
		}
	} else {
		opts.YVar = f.label
	}
	in.opts = opts
	ds, err := data.Load(in.path, opts)
	if err != nil {
		in.remove()
		if path == "-" {
			return nil, renamedError{err, in.path, "-"}
		}
		return nil, err
	}
	if path == "-" {
		ds.Path, ds.Name = "-", "stdin"
	}
	in.ds = ds
	return in, nil
}

// spoolStdin copies stdin into a temporary file named for its format in TMPDIR, and
// returns the path to read it by and the function that disposes of it. Where the system
// can open a file by its descriptor (/proc/self/fd on Linux), the file is unlinked as
// soon as it is created, so that no copy is left behind, even by a process that is
// killed; done closes it. Elsewhere done removes it, and so does every error.
func spoolStdin(format string) (path string, done func(), err error) {
	return spool(os.Stdin, os.TempDir(), format)
}

// spoolReserve is the free space that spooling stdin leaves on TMPDIR's file system: a
// tenth of it, at most 1 GiB. A stream that would take more is refused (docs/cli.md)
// instead of filling the disk that other programs write to.
func spoolReserve(total uint64) uint64 { return min(total/10, 1<<30) }

// spoolCheckEvery is how many bytes spool copies between two looks at the free space.
const spoolCheckEvery = 4 << 20

// spool is spoolStdin reading r into a file in dir.
func spool(r io.Reader, dir, format string) (path string, done func(), err error) {
	f, err := os.CreateTemp(dir, "udocc-stdin-*."+format)
	if err != nil {
		return "", nil, err
	}
	path = f.Name()
	done = func() { f.Close(); os.Remove(path) }
	if byFD := fmt.Sprintf("/proc/self/fd/%d", f.Fd()); fileExists(byFD) && os.Remove(path) == nil {
		path, done = byFD, func() { f.Close() }
	}
	var copied int64
	for {
		var st unix.Statfs_t
		if err := unix.Fstatfs(int(f.Fd()), &st); err == nil {
			bs := uint64(st.Bsize)
			free, reserve := st.Bavail*bs, spoolReserve(st.Blocks*bs)
			if free < reserve+spoolCheckEvery {
				done()
				return "", nil, fmt.Errorf("reading stdin: after %d bytes, the temporary folder %s (TMPDIR) has %d MiB free, and udocc leaves %d MiB of it free: set TMPDIR to a folder with more space, or give DATA as a file",
					copied, dir, free>>20, reserve>>20)
			}
		}
		n, err := io.CopyN(f, r, spoolCheckEvery)
		copied += n
		if err == io.EOF {
			return path, done, nil
		}
		if err != nil {
			done()
			return "", nil, fmt.Errorf("reading stdin into %s (TMPDIR): %w", dir, err)
		}
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// renamedError is err with the path it names spelled as the user gave it (the
// spooled copy of stdin as "-").
type renamedError struct {
	err      error
	path, as string
}

func (e renamedError) Error() string { return strings.ReplaceAll(e.err.Error(), e.path, e.as) }
func (e renamedError) Unwrap() error { return e.err }

// idColumn is the id column carried into scores.csv; values nil for none.
type idColumn struct {
	name   string
	values []string
}

func idOf(ds *data.Dataset) idColumn { return idColumn{ds.IDName, ds.IDs} }

// csvField quotes a cell for CSV where it needs it.
func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\r\n") || strings.TrimSpace(s) != s {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// sendOutputs writes what --scores-to and --append-to ask for, from the scores.csv
// already committed in dir: after the run's outputs, so that a failure here leaves
// them whole.
func sendOutputs(t tableFlags, in *input, dir string, scores []float64, labels []bool, stdout io.Writer) error {
	if t.appendTo != "" {
		cols := []data.Appended{{Name: "score", Values: scores}, {Name: "rank", Integer: true}, {Name: "label", Integer: true}}
		for _, r := range anomalyRanks(scores) {
			cols[1].Values = append(cols[1].Values, float64(r))
		}
		cols[2].Values = make([]float64, len(scores))
		for i := range scores {
			switch {
			case labels == nil:
				cols[2].Values[i] = math.NaN()
			case labels[i]:
				cols[2].Values[i] = 1
			}
		}
		if rows := in.ds.RowIndex; rows != nil {
			// Rows left out (no value at all, or --missing drop-rows) get empty cells.
			total := in.ds.N + len(in.ds.EmptyRows) + in.ds.RowsDropped
			for k := range cols {
				full := make([]float64, total)
				for i := range full {
					full[i] = math.NaN()
				}
				for i, r := range rows {
					full[r] = cols[k].Values[i]
				}
				cols[k].Values = full
			}
		}
		if err := data.WriteAppended(in.path, in.opts, t.appendTo, cols); err != nil {
			return err
		}
	}
	if t.scoresTo == "" {
		return nil
	}
	src := filepath.Join(dir, "scores.csv")
	if t.scoresTo != "-" {
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		return atomicfile.WriteBytes(t.scoresTo, b)
	}
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(stdout, f)
	return err
}

// reportTo is where a command's report goes: stderr when scores go to stdout.
func (t tableFlags) reportTo(stdout, stderr io.Writer) io.Writer {
	if t.scoresTo == "-" {
		return stderr
	}
	return stdout
}

// scoreSelection is the selection of udocc score: the flags' where any is given, else
// the one the model was trained with, so that the same columns are read.
func scoreSelection(fs *pflag.FlagSet, t tableFlags, m *lib.Model) data.Selection {
	for _, name := range []string{"id", "columns", "drop", "drop-text"} {
		if fs.Changed(name) {
			return t.selection()
		}
	}
	return m.Selection()
}

// scoreLabel is the label of udocc score and explain: --label where given, else the
// model's label column (and --positive value), which a table may lack (optional).
func scoreLabel(fs *pflag.FlagSet, f inputFlags, t tableFlags, m *lib.Model) (inputFlags, tableFlags, bool) {
	name, positive := m.LabelColumn()
	if fs.Changed("label") || name == "" {
		return f, t, false
	}
	f.label = name
	if !fs.Changed("positive") {
		t.positive = positive
	}
	return f, t, true
}

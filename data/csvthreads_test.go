package data

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// textTable is a generated delimited text, a line at a time ("" for a blank line), so
// that a test can spoil one cell of a given line.
type textTable struct {
	lines []string
	delim string
	eol   string // "\n" or "\r\n"
	final bool   // a newline after the last line
}

// text is the table's bytes.
func (tt textTable) text() string {
	s := strings.Join(tt.lines, tt.eol)
	if tt.final {
		s += tt.eol
	}
	return s
}

// set sets cell col (0-based) of line (1-based).
func (tt textTable) set(line, col int, v string) textTable {
	lines := append([]string(nil), tt.lines...)
	cells := strings.Split(lines[line-1], tt.delim)
	cells[col] = v
	lines[line-1] = strings.Join(cells, tt.delim)
	tt.lines = lines
	return tt
}

// genTable makes rows rows of d numbers in varied notations (some with spaces around),
// after the header when one is given; when label is set, column 1 holds one of the
// two label values; when id is set, column 0 holds a row id. A blank line follows every
// blankEvery rows but the last (never, for 0).
func genTable(seed uint64, rows, d int, header []string, labels [2]string, id bool, blankEvery int) textTable {
	rng := rand.New(rand.NewPCG(seed, 99))
	var lines []string
	if header != nil {
		lines = append(lines, strings.Join(header, ","))
	}
	for i := range rows {
		var cells []string
		if id {
			cells = append(cells, fmt.Sprintf("r%d", i))
		}
		if labels[0] != "" {
			cells = append(cells, labels[rng.IntN(2)])
		}
		for range d {
			v := rng.NormFloat64() * float64(rng.IntN(1000))
			switch rng.IntN(4) {
			case 0:
				cells = append(cells, strconv.FormatFloat(v, 'g', -1, 64))
			case 1:
				cells = append(cells, strconv.FormatFloat(v, 'e', 3, 32))
			case 2:
				cells = append(cells, strconv.Itoa(int(v)))
			default:
				cells = append(cells, " "+strconv.FormatFloat(v, 'f', 2, 64)+" ")
			}
		}
		lines = append(lines, strings.Join(cells, ","))
		if blankEvery > 0 && i%blankEvery == blankEvery-1 && i < rows-1 {
			lines = append(lines, "")
		}
	}
	return textTable{lines: lines, delim: ",", eol: "\n", final: true}
}

// with is tt with another delimiter (its cells hold none), line end and final newline.
func (tt textTable) with(delim, eol string, final bool) textTable {
	lines := make([]string, len(tt.lines))
	for i, l := range tt.lines {
		lines[i] = strings.ReplaceAll(l, tt.delim, delim)
	}
	return textTable{lines: lines, delim: delim, eol: eol, final: final}
}

// threadCounts are the LoadOptions.Threads every table is loaded with; 1 is the serial
// reader, which the others must match.
var threadCounts = []int{1, 2, 3, 8}

// TestCSVThreadsSame loads tables at several thread counts and requires the very same
// Dataset: tables of several blocks (whose rows straddle the blocks' ends), tiny ones,
// and every form of line and header the reader takes.
func TestCSVThreadsSame(t *testing.T) {
	big := genTable(1, 40_000, 5, []string{"id", "y", "a", "b", "c", "d", "e"}, [2]string{"0", "1"}, true, 997)
	plain := genTable(2, 30_000, 6, nil, [2]string{"-1", "1"}, false, 0)
	words := genTable(3, 20_000, 3, []string{"kind", "y", "a", "b", "c"}, [2]string{"yes", "no"}, true, 0)
	for i := 1; i < len(words.lines); i++ {
		_, rest, _ := strings.Cut(words.lines[i], ",")
		words.lines[i] = []string{"red", "green", "blue"}[i%3] + "," + rest
	}
	wide := genTable(4, 4, 150_000, nil, [2]string{}, false, 0) // lines longer than a block
	spaced := genTable(5, 30_000, 4, nil, [2]string{}, false, 0).with(" ", "\n", true)
	for i := 1; i < len(spaced.lines); i++ { // line 1 without tabs, or they delimit
		spaced.lines[i] = strings.ReplaceAll(" "+spaced.lines[i], "  ", " \t ")
		if i%101 == 100 { // 297 rows blanked
			spaced.lines[i] = " \t "
		}
	}
	byID := LoadOptions{LabelColumn: "y", Selection: Selection{ID: "id"}}
	tests := []struct {
		name, file string
		text       string
		opts       LoadOptions
		n          int
	}{
		{"header, id, label, blank lines", "t.csv", big.text(), byID, 40_000},
		{"the same with CRLF and no final newline", "t.csv", big.with(",", "\r\n", false).text(), byID, 40_000},
		{"the same gzipped", "t.csv.gz", string(gzipText(t, big.text())), byID, 40_000},
		{"the same with semicolons", "t.csv", big.with(";", "\n", true).text(), byID, 40_000},
		{"columns chosen and reordered", "t.csv", big.text(), LoadOptions{Selection: Selection{Columns: []string{"e", "a", "c"}}}, 40_000},
		{"no header, -1/1 labels by index", "t.csv", plain.text(), LoadOptions{LabelNumber: 1}, 30_000},
		{"tabs, a positive label and a text column left out", "t.tsv", words.with("\t", "\n", true).text(),
			LoadOptions{LabelColumn: "y", Positive: "yes", Selection: Selection{DropText: true}}, 20_000},
		{"whitespace-separated, blank lines of spaces", "t.txt", spaced.text(), LoadOptions{}, 30_000 - 297},
		{"lines longer than a block", "t.csv", wide.text(), LoadOptions{}, 4},
		{"byte-order mark", "t.csv", "\uFEFF" + big.text(), byID, 40_000},
		{"tiny", "t.csv", "a,b\n1,2\n3,4\n", LoadOptions{}, 2},
		{"tiny without a final newline", "t.csv", "a,b\r\n1,2\r\n\r\n3,4", LoadOptions{}, 2},
		{"only the first data row", "t.csv", "a,b\n1,2\n\n\n", LoadOptions{}, 1},
		{"one line of data", "t.csv", "1,2", LoadOptions{}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeTemp(t, tc.file, []byte(tc.text))
			var want *Dataset
			for _, threads := range threadCounts {
				opts := tc.opts
				opts.Threads = threads
				ds, err := Load(path, opts)
				if err != nil {
					t.Fatalf("%d threads: %v", threads, err)
				}
				if want == nil {
					want = ds
					if ds.N != tc.n {
						t.Fatalf("%d rows, want %d", ds.N, tc.n)
					}
				} else if !reflect.DeepEqual(ds, want) {
					t.Errorf("%d threads: a Dataset other than 1 thread's", threads)
				}
			}
		})
	}
}

// TestCSVThreadsErrors loads broken tables at several thread counts and requires the
// serial reader's error, the first in the file: a bad row in a late block, bad rows in
// two blocks, a bad cell and a bad label near each other.
func TestCSVThreadsErrors(t *testing.T) {
	big := genTable(6, 40_000, 4, []string{"id", "y", "a", "b", "c", "d"}, [2]string{"0", "1"}, true, 1000)
	// Line L > 1 of big is data unless L%1001 == 1 (a blank line after every 1000 rows).
	spaced := genTable(7, 30_000, 3, nil, [2]string{}, false, 0)
	opts := LoadOptions{LabelColumn: "y", Selection: Selection{ID: "id"}}
	short := big
	short.lines = append([]string(nil), big.lines...)
	short.lines[38_000] = "r1,0,1,2,3"
	weird := spaced.with(" ", "\n", true)
	weird.lines[99] = "\r\r" // a record to the reader, a blank line to the first pass
	tests := []struct {
		name, file string
		text       string
		opts       LoadOptions
		want       error
		where      string
	}{
		{"a bad number in a late block", "t.csv", big.set(35_001, 3, "x1").text(), opts, errNotNumeric, "line 35001, column 4"},
		{"bad numbers in two blocks", "t.csv", big.set(20_001, 2, "?").set(35_001, 3, "x1").text(), opts, errNotNumeric, "line 20001, column 3"},
		{"a bad cell and a bad label in one row", "t.csv", big.set(30_001, 1, "2").set(30_001, 4, "").text(), opts, errEmptyCell, "line 30001, column 5"},
		{"a third label before a bad cell", "t.csv", big.set(30_001, 1, "2").set(30_006, 4, "").text(), opts, ErrLabel, "line 30001, column 2"},
		{"a bad cell before a third label", "t.csv", big.set(30_001, 4, "").set(30_006, 1, "2").text(), opts, errEmptyCell, "line 30001, column 5"},
		{"a short row", "t.csv", short.text(), opts, errRagged, "line 38001:"},
		{"NaN", "t.csv", big.set(39_001, 2, "NaN").text(), opts, errNonFinite, "line 39001, column 3"},
		{"Inf on the last line, without a newline", "t.csv", big.with(",", "\r\n", false).set(len(big.lines), 5, "-Inf").text(), opts, errNonFinite, fmt.Sprintf("line %d, column 6", len(big.lines))},
		{"beyond float32", "t.csv", big.set(12_345, 2, "1e39").text(), opts, errRange, "line 12345, column 3"},
		{"a text column", "t.csv", big.set(2, 3, "abc").text(), opts, errNotNumeric, "line 2, column 4"},
		{"an absent positive label", "t.csv", big.text(), LoadOptions{LabelColumn: "y", Positive: "z", Selection: Selection{ID: "id"}}, ErrLabel, `column 2 ("y")`},
		{"a bad number gzipped", "t.csv.gz", string(gzipText(t, big.set(35_001, 3, "x1").text())), opts, errNotNumeric, "line 35001, column 4"},
		{"whitespace-separated", "t.txt", spaced.set(29_000, 2, "1x5").with(" ", "\n", true).text(), LoadOptions{}, errNotNumeric, "line 29000, column 3"},
		{"a whitespace line of carriage returns", "t.txt", weird.text(), LoadOptions{}, errRagged, "line 100:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeTemp(t, tc.file, []byte(tc.text))
			var want error
			for _, threads := range []int{1, 2, 8} {
				opts := tc.opts
				opts.Threads = threads
				_, err := Load(path, opts)
				if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.where) {
					t.Fatalf("%d threads: error %v, want %v at %q", threads, err, tc.want, tc.where)
				}
				if want == nil {
					want = err
				} else if err.Error() != want.Error() {
					t.Errorf("%d threads: error %q, 1 thread's %q", threads, err, want)
				}
			}
		})
	}
}

// FuzzCSVThreads reads texts built as prefix + tail repeated n times (up to 1 MiB, a few
// blocks) on one goroutine and on three, and requires the same Dataset or the same error.
func FuzzCSVThreads(f *testing.F) {
	f.Add([]byte("a,b,y\n"), []byte("1,2,0\n3.5,-4e2,1\n"), uint16(30000), int8(2))
	f.Add([]byte("1 2 3\n"), []byte(" 4\t5 6\r\n\r\n \n"), uint16(40000), int8(-1))
	f.Add([]byte("1 2 3\n4 5 6\n\r\r\n"), []byte("7 8 9\n"), uint16(60000), int8(-1))
	f.Add([]byte("a;b\n1;2\n"), []byte("3;4\n5;x\n"), uint16(20000), int8(-1))
	f.Add([]byte("id,y,a\nr,1,2\n"), []byte("s,0,3\nt,2,4\n"), uint16(20000), int8(1))
	f.Fuzz(func(t *testing.T, prefix, tail []byte, n uint16, label int8) {
		if len(prefix) > 64<<10 {
			return
		}
		text := repeatedText(prefix, tail, n, 1<<20)
		opts := LoadOptions{}
		opts.LabelNumber = max(int(label)+1, 0)
		opts.Threads = 1
		want, wantErr := decodeCSV(text, opts)
		opts.Threads = 3
		ds, err := decodeCSV(text, opts)
		switch {
		case (err == nil) != (wantErr == nil):
			t.Fatalf("3 threads: error %v, 1 thread's %v", err, wantErr)
		case err != nil && err.Error() != wantErr.Error():
			t.Fatalf("3 threads: error %q, 1 thread's %q", err, wantErr)
		case !reflect.DeepEqual(ds, want):
			t.Fatal("3 threads: a Dataset other than 1 thread's")
		}
	})
}

// BenchmarkLoadCSVThreads loads BenchmarkLoad's 10⁶ × 20 CSV, plain and gzipped, parsed
// on 1 goroutine (the serial reader) and on 2. UDOCC_BENCH_DIR keeps the files, as for
// BenchmarkLoad.
func BenchmarkLoadCSVThreads(b *testing.B) {
	const n, d = 1_000_000, 20
	paths := benchTables(b, n, d)
	for _, format := range []string{"csv", "csv.gz"} {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/threads=%d", format, threads), func(b *testing.B) {
				opts := LoadOptions{}
				opts.Threads = threads
				for b.Loop() {
					ds, err := Load(paths[format], opts)
					if err != nil || ds.N != n {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/load")
			})
		}
	}
}

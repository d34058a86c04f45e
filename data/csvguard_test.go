package data

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"github.com/udocc/udocc/internal/memory"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// allocated is the bytes f allocates on the heap, garbage included. The tests that call
// it are not parallel, so that nothing else allocates meanwhile.
func allocated(f func()) int64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return int64(after.TotalAlloc - before.TotalAlloc)
}

// rowsOf is n rows of d numbers, comma-separated.
func rowsOf(n, d int) string {
	var b strings.Builder
	for i := range n {
		for j := range d {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(string(rune('0' + (i+j)%10)))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func gzipText(t testing.TB, text string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	if _, err := io.WriteString(zw, text); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestTextMemoryFollowsContent reads files whose lines claim far more than they hold:
// blank lines after a wide table (which once sized the table from the line count:
// 10^6 blank lines after 1,000 columns asked for 4 GB), a single endless line, a long
// data row after a short header. Each is read, or refused with errLongRow, allocating a
// few blocks, not what the lines claim.
func TestTextMemoryFollowsContent(t *testing.T) {
	dir := t.TempDir()
	blank := rowsOf(5, 1000) + strings.Repeat("\n", 1_000_000)
	long := strings.Repeat("1.5,", 3_000_000)
	cases := []struct {
		name, file string
		text       []byte
		rows       int   // 0: refused with errLongRow
		most       int64 // bytes allocated at most
	}{
		{"blank lines after 5 rows x 1000", "blank.csv", []byte(blank), 5, 16 << 20},
		{"the same gzipped", "blank.csv.gz", gzipText(t, blank), 5, 16 << 20},
		{"one line of 3e6 numbers", "line.csv", []byte(long), 0, 24 << 20},
		{"the same gzipped", "line.csv.gz", gzipText(t, long), 0, 24 << 20},
		{"a long row after a 2-column header", "row.csv", []byte("a,b\n1,2\n" + long), 0, 24 << 20},
		{"40 MB without a line end", "bytes.csv", bytes.Repeat([]byte{'7'}, 40<<20), 0, 120 << 20},
		{"a quoted cell of 40 MB", "quoted.csv", []byte("a,b\n1,\"" + strings.Repeat("x\n", 20<<20) + "\"\n"), 0, 160 << 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.file)
			if err := os.WriteFile(path, c.text, 0o644); err != nil {
				t.Fatal(err)
			}
			var ds *Dataset
			var err error
			got := allocated(func() { ds, err = Load(path, LoadOptions{}) })
			if c.rows == 0 {
				if !errors.Is(err, errLongRow) {
					t.Fatalf("got %v, want errLongRow", err)
				}
			} else if err != nil || ds.N != c.rows {
				t.Fatalf("got %v, want %d rows", err, c.rows)
			}
			if got > c.most {
				t.Errorf("allocated %d MiB, want at most %d MiB", got>>20, c.most>>20)
			}
		})
	}
}

// TestPartLongLine reads a data-parallel rank's part of a file whose first line is
// 40 MB long: refused as the whole file is, without holding the line.
func TestPartLongLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "line.csv")
	if err := os.WriteFile(path, append(bytes.Repeat([]byte{'7'}, 40<<20), "\n1\n2\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := LoadOptions{}
	opts.Part = Part{Index: 1, Of: 2}
	var err error
	got := allocated(func() { _, err = Load(path, opts) })
	if !errors.Is(err, errLongRow) {
		t.Fatalf("got %v, want errLongRow", err)
	}
	if got > 120<<20 {
		t.Errorf("allocated %d MiB, want at most 120 MiB", got>>20)
	}
}

// TestTextFromDevice reads /dev/zero, a file without an end, as CSV: one line that
// never ends, refused once it passes a row's limit. Read in one pass, not knowing whether
// a quote comes, it goes through encoding/csv, whose buffers for the 32 MiB line grow by
// doubling (about 240 MiB allocated in all, most of it garbage).
func TestTextFromDevice(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	opts := LoadOptions{}
	opts.Format = "csv"
	var err error
	got := allocated(func() { _, err = Load("/dev/zero", opts) })
	if !errors.Is(err, errLongRow) {
		t.Fatalf("got %v, want errLongRow", err)
	}
	if got > 320<<20 {
		t.Errorf("allocated %d MiB, want at most 320 MiB", got>>20)
	}
}

// TestTableAllocatedOnce reads a rectangular table: its x is allocated once, at its
// size, and nothing of the size of the table besides (the text is not held).
func TestTableAllocatedOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.csv")
	text := "a,b,c,d\n" + strings.Repeat("1.25,2.5,-3,4e2\n", 200_000)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var ds *Dataset
	var err error
	got := allocated(func() { ds, err = Load(path, LoadOptions{}) })
	if err != nil || ds.N != 200_000 || cap(ds.X) != len(ds.X) {
		t.Fatalf("got %v, N %d, cap %d for %d values", err, ds.N, cap(ds.X), len(ds.X))
	}
	if table := int64(4 * len(ds.X)); got > table+8<<20 {
		t.Errorf("allocated %d MiB for a table of %d MiB", got>>20, table>>20)
	}
}

// TestNPYStreamShapeRefused reads a .npy stream (size unknown) whose header claims 2^40
// values: refused before they are allocated.
func TestNPYStreamShapeRefused(t *testing.T) {
	if _, ok := memory.Available(); !ok {
		t.Skip("the memory available cannot be read here")
	}
	b := npyBytes("<f4", false, []int{1 << 20, 1 << 20}, make([]byte, 64))
	var err error
	got := allocated(func() { _, err = parseNPY(bytes.NewReader(b), -1, false) })
	if !errors.Is(err, memory.ErrNoMemory) {
		t.Fatalf("got %v, want ErrNoMemory", err)
	}
	if got > 1<<20 {
		t.Errorf("allocated %d bytes", got)
	}
}

// TestWhitespaceSeparated reads NumPy's np.savetxt default, numbers separated by a
// space with no header, as a table of x1…xD; runs of spaces and tabs with --delimiter
// space.
func TestWhitespaceSeparated(t *testing.T) {
	dir := t.TempDir()
	savetxt := "7.911800000000000000e+00 1.000000000000000000e+00 -2.500000000000000000e-01\n" +
		"3.000000000000000000e+00 4.000000000000000000e+00 5.000000000000000000e+00\n"
	runs := "  1   2\t3 \n\n4 5  6\n   \n"
	for _, c := range []struct {
		name, text string
		delim      rune
	}{{"np.savetxt", savetxt, 0}, {"runs", runs, ' '}, {"runs gzipped", runs, ' '}} {
		t.Run(c.name, func(t *testing.T) {
			b := []byte(c.text)
			name := "t.txt"
			if strings.HasSuffix(c.name, "gzipped") {
				b, name = gzipText(t, c.text), "t.txt.gz"
			}
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			opts := LoadOptions{}
			opts.Delimiter = c.delim
			ds, err := Load(path, opts)
			if err != nil {
				t.Fatal(err)
			}
			if ds.N != 2 || ds.D != 3 || ds.Named {
				t.Fatalf("%d x %d, named %v; want 2 x 3 without a header", ds.N, ds.D, ds.Named)
			}
			if c.name == "runs" && (ds.X[0] != 1 || ds.X[5] != 6) {
				t.Errorf("values %v", ds.X)
			}
		})
	}
	// Quoted cells, with spaces inside, between runs of spaces and tabs.
	opts := LoadOptions{}
	opts.Delimiter = whitespace
	opts.Selection.ID = "name"
	ds, err := decodeCSV([]byte("name  v w\n\"x y\"  1 3\n\"z\" 2\t\t4\n"), opts)
	if err != nil || ds.N != 2 || ds.D != 2 || ds.IDs[0] != "x y" || ds.X[3] != 4 {
		t.Errorf("quoted: %v, %+v", err, ds)
	}
	// A single column whose name holds a space stays one column.
	ds, err = decodeCSV([]byte("my feature\n1\n2\n"), LoadOptions{})
	if err != nil || ds.D != 1 || ds.Features[0] != "my feature" {
		t.Errorf("one named column: %v, %+v", err, ds)
	}
}

// TestMixedDelimiterNamesTheFlag: a first line with as many commas as semicolons is
// refused with the flag that settles it, and read with that delimiter set.
func TestMixedDelimiterNamesTheFlag(t *testing.T) {
	text := []byte("a;b,c\n1;2,3\n4;5,6\n")
	if _, err := decodeCSV(text, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "LoadOptions.Delimiter") {
		t.Fatalf("got %v, want an error naming --delimiter", err)
	}
	opts := LoadOptions{}
	opts.Delimiter, opts.Decimal = ';', '.'
	opts.Selection.DropText = true
	ds, err := decodeCSV(text, opts)
	if err != nil || ds.D != 1 || ds.Features[0] != "a" {
		t.Fatalf("with ';' and decimal points: %v, %+v", err, ds)
	}
	// With ';' alone, "2,3" reads as a decimal comma (DetectDecimal).
	opts.Decimal = 0
	ds, err = decodeCSV(text, opts)
	if err != nil || ds.D != 2 || ds.X[1] != 2.3 {
		t.Fatalf("with ';': %v, %+v", err, ds)
	}
}

// TestLongValuesQuotedShort: a cell of 1 MB in an error message is cut to its first 80
// bytes and its length.
func TestLongValuesQuotedShort(t *testing.T) {
	big := strings.Repeat("z", 1<<20)
	for _, text := range []string{
		"a,b\n1," + big + "\n",               // a text column
		"a,b\n1,2\n3," + big + "\n",          // a bad number
		"a," + big + "\n1,2\n3,4\n",          // a long header name, ragged below
		"a,label\n1,0\n2,1\n3," + big + "\n", // a third label
	} {
		opts := LoadOptions{}
		if strings.Contains(text, "label") {
			opts.LabelColumn = "label"
		}
		_, err := decodeCSV([]byte(text), opts)
		if text == "a,"+big+"\n1,2\n3,4\n" {
			if err != nil {
				t.Fatalf("long header name: %v", err)
			}
			continue
		}
		if err == nil {
			t.Fatalf("no error for %.20q", text)
		}
		if n := len(err.Error()); n > 600 {
			t.Errorf("a message of %d bytes: %.300s", n, err)
		}
		if !strings.Contains(err.Error(), "(1048576 bytes)") {
			t.Errorf("the value's length is not said: %s", err)
		}
	}
}

// TestLabelHints: a text column named as labels usually are is refused with --label
// suggested (internal/labelhint hints the numeric ones).
func TestLabelHints(t *testing.T) {
	_, err := decodeCSV([]byte("a,class\n1,normal\n2,attack\n"), LoadOptions{})
	if !errors.Is(err, errNotNumeric) || !strings.Contains(err.Error(), `LoadOptions.LabelColumn = "class"`) {
		t.Errorf("a text label column: %v", err)
	}
}

// FuzzTextMemory reads texts built as prefix + tail repeated n times (a small input
// that stands for a blank-line or a long-line bomb of up to 256 KiB), plain or
// gzipped, in two passes (a file) and in one (a pipe), and checks that what reading
// allocates, garbage included, is bounded by the text's size: 8 MiB of buffers, 32
// bytes per byte of text (a table holds at most a cell per 2 bytes, 4 bytes each, and
// grows by doubling where its size is not known; ids and labels cost less), and 256
// bytes per byte of the longest line, the O(one row) of a row's cells and a header's
// names (a string each, a map entry to find duplicates). main at 4d44810 allocated 4
// bytes per column for every blank line: 230 MiB for the first seed's 70 kB.
func FuzzTextMemory(f *testing.F) {
	f.Add([]byte(rowsOf(5, 1000)), []byte("\n"), uint16(60000), false, int8(-1))
	f.Add([]byte(rowsOf(5, 1000)), []byte("\r\n"), uint16(30000), true, int8(-1))
	f.Add([]byte("a,b\n1,2\n"), []byte("1.5,"), uint16(65535), true, int8(-1))
	f.Add([]byte("id,label\n"), []byte("x,1\ny,0\n"), uint16(2000), false, int8(1))
	f.Add([]byte("a,\"b\n"), []byte("\"\"x\n"), uint16(3000), false, int8(-1))
	f.Add([]byte("1.0 2.0 3.0\n"), []byte("  4 5\t6 \n"), uint16(2000), true, int8(-1))
	f.Fuzz(func(t *testing.T, prefix, tail []byte, n uint16, gz bool, label int8) {
		if len(prefix) > 256<<10 {
			return
		}
		text := repeatedText(prefix, tail, n, 256<<10)
		src := text
		if gz {
			src = gzipText(t, string(text))
		}
		open := func() (io.Reader, error) {
			if !gz {
				return bytes.NewReader(text), nil
			}
			return newGzipMembers(bufio.NewReader(bytes.NewReader(src)))
		}
		opts := LoadOptions{}
		opts.LabelNumber = max(int(label)+1, 0)
		longest := 0
		for line := range bytes.SplitSeq(text, []byte{'\n'}) {
			longest = max(longest, len(line))
		}
		most := int64(8<<20 + 32*len(text) + 256*longest)
		for _, twice := range []bool{true, false} {
			var ds *Dataset
			var err error
			got := allocated(func() { ds, err = readText(open, twice, opts) })
			if got > most {
				t.Fatalf("twice %v: allocated %d bytes reading %d bytes of text (at most %d)", twice, got, len(text), most)
			}
			if err == nil {
				checkDecoded(t, ds)
			}
		}
	})
}

// repeatedText is a fuzzed text: prefix, then tail n times, or as many times as keep
// the repeats within limit bytes.
func repeatedText(prefix, tail []byte, n uint16, limit int) []byte {
	reps := int(n)
	if len(tail) > 0 {
		reps = min(reps, limit/len(tail))
	}
	return append(slices.Clone(prefix), bytes.Repeat(tail, reps)...)
}

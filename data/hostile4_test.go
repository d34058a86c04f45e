package data

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/udocc/udocc/internal/mat5"
)

// TestGoLiteralsAreText checks that Go's number literals (hex floats, digit
// separators), which strconv.ParseFloat reads, are text in a table as they are to
// pandas (hostile round 4, L14).
func TestGoLiteralsAreText(t *testing.T) {
	for _, cell := range []string{"0x1p3", "1_0", "0X1P-2", "1e1_0"} {
		t.Run(cell, func(t *testing.T) {
			body := "a,b\n1,2\n3," + cell + "\n5,6\n"
			ds, err := decodeCSV([]byte(body), LoadOptions{})
			if err == nil {
				t.Fatalf("read %q as %v", cell, ds.X)
			}
			if !strings.Contains(err.Error(), `"b"`) {
				t.Fatalf("error %v does not name column b", err)
			}
		})
	}
}

// TestDuplicateVariablesRefused checks that an NPZ with two members X.npy, or a MAT
// file with two variables X, is refused: NumPy and SciPy take the last, udocc took the
// first (hostile round 4, L15).
func TestDuplicateVariablesRefused(t *testing.T) {
	f8 := func(vs ...float64) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		return b
	}
	first := npyBytes("<f8", false, []int{2, 2}, f8(1, 2, 3, 4))
	last := npyBytes("<f8", false, []int{2, 2}, f8(100, 200, 300, 400))
	y := npyBytes("<f8", false, []int{2}, f8(0, 1))
	for name, b := range map[string][]byte{
		"npz X twice": npzBytes(t, false, []string{"X", "X"}, [][]byte{first, last}),
		"npz y twice": npzBytes(t, true, []string{"X", "y", "y"}, [][]byte{first, y, y}),
	} {
		if ds, err := decodeNPZ(b, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "twice") {
			t.Errorf("%s: read %v, error %v; want a refusal naming the duplicate", name, ds, err)
		}
	}
	x := mat5.Var{Name: "X", Rows: 2, Cols: 2, Data: []float64{1, 2, 3, 4}}
	x2 := mat5.Var{Name: "X", Rows: 2, Cols: 2, Data: []float64{100, 200, 300, 400}}
	yv := mat5.Var{Name: "y", Rows: 2, Cols: 1, Data: []float64{0, 1}}
	for name, vars := range map[string][]mat5.Var{
		"mat X twice":            {x, x2},
		"mat X twice after y":    {x, yv, x2},
		"mat y twice compressed": {yv, x, yv},
	} {
		b := matBytes(t, mat5.WriteOptions{Compress: strings.HasSuffix(name, "compressed")}, vars...)
		if ds, err := decodeMAT(b, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "twice") {
			t.Errorf("%s: read %v, error %v; want a refusal naming the duplicate", name, ds, err)
		}
	}
}

// TestGzipMessages checks the messages for a gzip stream with bytes after its end and
// for a plain file named .gz (hostile round 4, L28: "unexpected EOF", and "gzip: gzip:
// invalid header").
func TestGzipMessages(t *testing.T) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte("a,b\n1,2\n3,4\n5,6\n"))
	zw.Close()
	good := z.Bytes()
	for _, c := range []struct {
		name string
		body []byte
		want string
	}{
		{"trailing.csv.gz", append(slices.Clone(good), "garbage"...), "after the end of the gzip data"},
		{"trailing-long.csv.gz", append(slices.Clone(good), strings.Repeat("garbage ", 100)...), "after the end of the gzip data"},
		{"plain.csv.gz", []byte("a,b\n1,2\n3,4\n"), "not gzip data"},
		{"truncated.csv.gz", good[:len(good)-6], "ends early"},
	} {
		path := writeTemp(t, c.name, c.body)
		_, err := Load(path, LoadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "gzip: gzip:") {
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
	}
	var z2 bytes.Buffer
	zw = gzip.NewWriter(&z2)
	zw.Write([]byte("7,8\n"))
	zw.Close()
	two := append(slices.Clone(good), z2.Bytes()...) // two members, as gzip -d reads them
	if ds, err := Load(writeTemp(t, "two.csv.gz", two), LoadOptions{}); err != nil || ds.N != 4 {
		t.Errorf("two members: %v", err)
	}
}

// TestEncodingMessages checks that CR-only line endings and UTF-16 text are named as
// such, with what to do (hostile round 4, L17: "no data rows after the header" and a
// "not numeric" error with mangled names).
func TestEncodingMessages(t *testing.T) {
	utf16 := func(s string, bom bool) []byte {
		var b []byte
		if bom {
			b = append(b, 0xff, 0xfe)
		}
		for _, r := range s {
			b = append(b, byte(r), 0)
		}
		return b
	}
	for name, c := range map[string]struct {
		body []byte
		want string
	}{
		"CR only":           {[]byte("a,b\r1,2\r3,4\r5,6\r"), "CR-only"},
		"UTF-16 with BOM":   {utf16("a,b\n1,2\n3,4\n", true), "UTF-16"},
		"UTF-16 without":    {utf16("a,b\n1,2\n3,4\n", false), "UTF-16"},
		"UTF-16 big endian": {append([]byte{0xfe, 0xff}, utf16("a,b\n1,2\n", false)[:15]...), "UTF-16"},
	} {
		if _, err := decodeCSV(c.body, LoadOptions{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", name, err, c.want)
		}
		path := writeTemp(t, "x.csv", c.body)
		if _, err := Load(path, LoadOptions{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Load: %v; want %q", name, err, c.want)
		}
	}
}

// TestScoreColumnsWhereUdoccWrites checks that only udocc's own layouts are taken for
// a table it wrote: score, rank, label after row (and an id) as in scores.csv, or as
// the last columns as --append-to writes them; a user's export that merely holds them
// side by side is not (hostile round 4, L27).
func TestScoreColumnsWhereUdoccWrites(t *testing.T) {
	for header, want := range map[string]bool{
		"row,score,rank,label,probability,true_label": true,
		"row,id,score,rank,label":                     true,
		"a,b,score,rank,label":                        true,
		"score,rank,label,x":                          false,
		"a,score,rank,label,b":                        false,
		"row,a,b,score,rank,label,x":                  false,
	} {
		got, err := HasScoreColumns(writeTemp(t, "t.csv", []byte(header+"\n1,2,3,4,5\n")))
		if err != nil || got != want {
			t.Errorf("%s: %v, %v; want %v", header, got, err, want)
		}
	}
}

// TestMissingOtherFormats checks that --missing (LoadOptions.Missing) applies to a
// Parquet null and an NPY NaN as to a CSV's missing cell (hostile round 4, L16: both
// were refused whatever the policy).
func TestMissingOtherFormats(t *testing.T) {
	one := 1.0
	nulls := make([]withNull, 8)
	for i := range nulls {
		nulls[i] = withNull{float64(i), &one}
	}
	nulls[6].B = nil
	var raw []byte
	for i, v := range []float64{1, 2, 3, math.NaN(), 5, 6, 7, 8} {
		_ = i
		raw = binary.LittleEndian.AppendUint64(raw, math.Float64bits(v))
	}
	npy := writeTemp(t, "x.npy", npyBytes("<f8", false, []int{4, 2}, raw))
	for _, path := range []string{writeParquet(t, nulls), npy} {
		if _, err := Load(path, LoadOptions{}); err == nil {
			t.Errorf("%s: a missing value read without --missing", path)
		}
		o := LoadOptions{Missing: MissingKeep}
		ds, err := Load(path, o)
		if err != nil || ds.Missing == nil {
			t.Errorf("%s, keep: %v (missing %v)", path, err, ds)
			continue
		}
		n := ds.N
		o.Missing = MissingDropRows
		if ds, err = Load(path, o); err != nil || ds.N != n-1 || ds.RowsDropped != 1 {
			t.Errorf("%s, drop-rows: %v", path, err)
		}
	}
}

// TestNotNumericExampleNamed checks that the example in the error for several text
// columns says whose it is (hostile round 4, L16: a Parquet TIMESTAMP column was given
// the first column's STRING type).
func TestNotNumericExampleNamed(t *testing.T) {
	_, err := decodeCSV([]byte("a,s,t\n1,x,2020-01-01\n2,y,2020-01-02\n"), LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), `("s": line 2`) {
		t.Fatalf("error %v; want the example named as column s's", err)
	}
}

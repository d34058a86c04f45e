package rowbody

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var named = Columns{D: 2, Names: []string{"a", "b"}, Ignore: []string{"id"}}

// readAll reads every row of r, chunk rows at a time.
func readAll(r Reader, d, chunk int) ([]float32, error) {
	var out []float32
	buf := make([]float32, chunk*d)
	for {
		n, err := r.Next(buf)
		out = append(out, buf[:n*d]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// TestGoodBodies checks that each accepted form gives the rows it holds, in the model's
// column order, whatever the chunk size.
func TestGoodBodies(t *testing.T) {
	want := []float32{1, 2, 3.5, -4e-3}
	for _, c := range []struct {
		name, body string
		csv        bool
		cols       Columns
	}{
		{"json arrays", `{"rows": [[1, 2], [3.5, -4e-3]]}`, false, named},
		{"json arrays unnamed", "{\"rows\":[[1,2],\n[3.5,-0.004]]}\n", false, Columns{D: 2}},
		{"json objects in any order with an id", `{"rows":[{"b":2,"a":1,"id":"x\"y"},{"a":3.5,"id":7,"b":-4e-3}]}`, false, named},
		{"json escaped key", `{"rows":[{"\u0061":1,"b":2},{"a":3.5,"b":-4e-3}]}`, false, named},
		{"csv reordered with an id", "id,b,a\nx,2,1\ny, -4e-3 ,3.5\n", true, named},
		{"csv unnamed by position", "p,q\n1,2\n3.5,-0.004\n", true, Columns{D: 2}},
		{"csv with BOM and CRLF", "\ufeffa,b\r\n1,2\r\n3.5,-4e-3\r\n", true, named},
	} {
		for _, chunk := range []int{1, 2, 7} {
			t.Run(fmt.Sprintf("%s/chunk%d", c.name, chunk), func(t *testing.T) {
				var r Reader
				if c.csv {
					r = NewCSV(strings.NewReader(c.body), c.cols)
				} else {
					r = NewJSON(strings.NewReader(c.body), c.cols)
				}
				got, err := readAll(r, 2, chunk)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("got %v, want %v", got, want)
				}
			})
		}
	}
}

// TestBadBodies checks that every class of bad input is an *Error of its kind naming
// the row and column where there is one.
func TestBadBodies(t *testing.T) {
	for _, c := range []struct {
		name, body string
		csv        bool
		cols       Columns
		kind       error
		row        int
		col        string
	}{
		{"empty json", "", false, named, ErrEmpty, 0, ""},
		{"no rows field", `{}`, false, named, ErrEmpty, 0, ""},
		{"empty rows", `{"rows": []}`, false, named, ErrEmpty, 0, ""},
		{"not an object", `[[1,2]]`, false, named, ErrSyntax, 0, ""},
		{"unknown field", `{"rows":[[1,2]],"x":1}`, false, named, ErrSyntax, 0, ""},
		{"other field first", `{"data":[[1,2]]}`, false, named, ErrSyntax, 0, ""},
		{"truncated", `{"rows":[[1,2],[3`, false, named, ErrSyntax, 2, ""},
		{"trailing garbage", `{"rows":[[1,2]]}x`, false, named, ErrSyntax, 0, ""},
		{"too few values", `{"rows":[[1,2],[3]]}`, false, named, ErrColumns, 2, ""},
		{"too many values", `{"rows":[[1,2,3]]}`, false, named, ErrColumns, 1, ""},
		{"a string", `{"rows":[[1,"2"]]}`, false, named, ErrValue, 1, "b"},
		{"string", `{"rows":[["1",2]]}`, false, named, ErrValue, 1, "a"},
		{"NaN", `{"rows":[[NaN,2]]}`, false, named, ErrSyntax, 1, "a"},
		{"beyond float64", `{"rows":[[1,1e999]]}`, false, named, ErrValue, 1, "b"},
		{"beyond float32", `{"rows":[[1,1e39]]}`, false, named, ErrValue, 1, "b"},
		{"nested", `{"rows":[[1,[2]]]}`, false, named, ErrValue, 1, "b"},
		{"unknown name", `{"rows":[{"a":1,"b":2,"c":3}]}`, false, named, ErrColumns, 1, "c"},
		{"missing name", `{"rows":[{"a":1}]}`, false, named, ErrColumns, 1, ""},
		{"name twice", `{"rows":[{"a":1,"a":2,"b":3}]}`, false, named, ErrColumns, 1, "a"},
		{"objects for an unnamed model", `{"rows":[{"a":1,"b":2}]}`, false, Columns{D: 2}, ErrColumns, 1, ""},
		{"empty csv", "", true, named, ErrEmpty, 0, ""},
		{"header only", "a,b\n", true, named, ErrEmpty, 0, ""},
		{"header lacks a column", "a,id\n1,2\n", true, named, ErrColumns, 0, ""},
		{"header with an unknown column", "a,b,c\n1,2,3\n", true, named, ErrColumns, 0, ""},
		{"header names twice", "a,b,a\n1,2,3\n", true, named, ErrColumns, 0, "a"},
		{"unnamed width", "p,q,r\n1,2,3\n", true, Columns{D: 2}, ErrColumns, 0, ""},
		{"ragged row", "a,b\n1,2\n3\n", true, named, ErrColumns, 2, ""},
		{"every cell missing", "a,b\nNA,\n", true, named, ErrValue, 1, ""},
		{"every value null", `{"rows":[[1,2],[null,null]]}`, false, named, ErrValue, 2, ""},
		{"text cell", "a,b\n1,2\nx,4\n", true, named, ErrValue, 2, "a"},
		{"Inf cell", "a,b\n1,-Inf\n", true, named, ErrValue, 1, "b"},
		{"bad quote", "a,b\n1,\"2\n", true, named, ErrSyntax, 1, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var r Reader
			if c.csv {
				r = NewCSV(strings.NewReader(c.body), c.cols)
			} else {
				r = NewJSON(strings.NewReader(c.body), c.cols)
			}
			_, err := readAll(r, 2, 4)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want an *Error", err)
			}
			if !errors.Is(err, c.kind) || e.Row != c.row || e.Column != c.col {
				t.Fatalf("%v: kind %v row %d column %q, want %v row %d column %q", err, e.Kind, e.Row, e.Column, c.kind, c.row, c.col)
			}
			if _, again := r.Next(make([]float32, 2)); again != err {
				t.Errorf("a second Next gave %v, want the same error", again)
			}
		})
	}
}

// TestReadError checks that the body's own error is returned wrapped, not as bad input.
func TestReadError(t *testing.T) {
	cut := errors.New("the limit")
	for _, r := range []Reader{
		NewJSON(io.MultiReader(strings.NewReader(`{"rows":[[1,2],`), errReader{cut}), named),
		NewCSV(io.MultiReader(strings.NewReader("a,b\n1,2\n"), errReader{cut}), named),
	} {
		_, err := readAll(r, 2, 1)
		var e *Error
		if !errors.Is(err, cut) || errors.As(err, &e) {
			t.Errorf("got %v, want the reader's error", err)
		}
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// TestAgainstEncodingJSON checks random array bodies against encoding/json's reading of
// them, each value narrowed to float32 as package data does.
func TestAgainstEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		d, n := 1+rng.IntN(6), 1+rng.IntN(20)
		var b strings.Builder
		b.WriteString(`{ "rows" : [`)
		for i := range n {
			if i > 0 {
				b.WriteString(" ,\n")
			}
			b.WriteByte('[')
			for j := range d {
				if j > 0 {
					b.WriteByte(',')
				}
				v := rng.NormFloat64() * float64(rng.IntN(1e6))
				b.WriteString(strconv.FormatFloat(v, "gefb"[rng.IntN(3)], -1, 64))
			}
			b.WriteByte(']')
		}
		b.WriteString("] }")
		var ref struct{ Rows [][]float64 }
		if err := json.Unmarshal([]byte(b.String()), &ref); err != nil {
			t.Fatal(err)
		}
		got, err := readAll(NewJSON(strings.NewReader(b.String()), Columns{D: d}), d, 1+rng.IntN(5))
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		var want []float32
		for _, r := range ref.Rows {
			for _, v := range r {
				want = append(want, float32(v))
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: got %v, want %v", trial, got, want)
		}
	}
}

// FuzzJSON feeds arbitrary bodies to the JSON reader: it must return rows or an error,
// never panic, and accept only bodies that encoding/json accepts.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{`{"rows":[[1,2]]}`, `{"rows":[{"a":1,"b":2,"id":"x"}]}`, `{"rows":[[1,null]]}`, `{"rows":[`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		_, err := readAll(NewJSON(strings.NewReader(body), named), 2, 3)
		if err == nil && !json.Valid([]byte(body)) {
			t.Fatalf("accepted %q, which is not JSON", body)
		}
	})
}

// FuzzCSV feeds arbitrary bodies to the CSV reader: rows of finite values or an
// *Error, never a panic; and a body the guard's bounds refuse is one that the reader
// without them refuses too (the guard follows encoding/csv's quotes).
func FuzzCSV(f *testing.F) {
	for _, s := range []string{"a,b\n1,2\n", "id,b,a\nx,1,2\n", "a,b\n\"1\",2\n", "a,\"b\"\r\n\"1\"\"\",\"2\n3\"\n", "id,a,b\n\"x,y\",1,2\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		rows, err := readAll(NewCSV(strings.NewReader(body), named), 2, 3)
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("%q: error %v is not an *Error", body, err)
		}
		for _, v := range rows {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("%q: value %v", body, v)
			}
		}
		if err != nil && (strings.Contains(err.Error(), "more than") || strings.Contains(err.Error(), "longer than")) {
			if _, uerr := readAll(newCSV(strings.NewReader(body), named, 1<<30, 1<<30), 2, 3); uerr == nil {
				t.Fatalf("%q: bounds refuse it (%v), encoding/csv reads it", body, err)
			}
		}
	})
}

// TestJSONNumbers checks the number grammar against encoding/json's.
func TestJSONNumbers(t *testing.T) {
	for _, s := range []string{"0", "-0", "1", "10", "1.5", "-1.5e3", "1E+2", "1e-2", "01", "1.", ".5", "-", "1e", "1e+", "+1", "1.2.3", "--1", "0x1", "1e5e5"} {
		var v float64
		want := json.Unmarshal([]byte(s), &v) == nil
		if got := jsonNumber([]byte(s)); got != want {
			t.Errorf("jsonNumber(%q) = %v, encoding/json says %v", s, got, want)
		}
	}
}

// TestExactFloat holds exactFloat, where it takes a number, to strconv's value narrowed
// to float32 (parseValue's), bit for bit: numbers of every length (its Clinger and its
// Eisel–Lemire paths) and exponent, with and without signs, zeros, fractions and
// exponents, float32's and float64's extremes.
func TestExactFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	toks := []string{"0", "-0", "0.0", "1", "-1", "0.5", "12.5", "1e3", "1E-3", "-2.5e+10", "123456789012345",
		"1234567890123456", "0.000000000000000000001", "1e22", "1e23", "9e-22", "9e-23", "100000000000000000000",
		"0.1", "0.2", "0.3", "3.4028235e38", "3.4028236e38", "1e39", "0.00000000000000000000000000000000000000000000001",
		"1e-45", "1.4e-45", "7e-46", "1e-310", "9999999999999999999", "99999999999999999999", "0.30000000000000004",
		"-1234567890123456789e-10", "1e308", "1e309"}
	for range 200000 {
		v := rng.NormFloat64() * math.Pow(10, float64(rng.IntN(30)-15))
		prec := rng.IntN(18) + 1
		toks = append(toks, strconv.FormatFloat(v, 'g', prec, 64), strconv.FormatFloat(v, 'f', rng.IntN(12), 64),
			strconv.FormatFloat(float64(float32(v)), 'g', -1, 32), strconv.FormatFloat(float64(float32(v)), 'g', -1, 64),
			strconv.FormatFloat(v, 'e', 18, 64), strconv.FormatFloat(v*1e30, 'e', rng.IntN(19), 64))
	}
	toks = append(toks, "01", "1.", ".5", "-", "1e", "1e+", "1.5.2", "--1", "1x", "0.1e5.5")
	took, long := 0, 0
	strip := strings.NewReplacer("-", "", ".", "")
	for _, s := range toks {
		got, n, ok := exactFloat([]byte(s + ","))
		if !ok {
			continue
		}
		if n < len(s) && numberByte(s[n]) || !jsonNumber([]byte(s[:n])) {
			t.Fatalf("%q: exactFloat took %d bytes as %v: not a whole JSON number", s, n, got)
		}
		if _, _, ok := exactFloat([]byte(s[:n])); ok {
			t.Fatalf("%q: exactFloat took a number that runs to the buffer's end", s)
		}
		s = s[:n]
		took++
		if sig := strings.TrimLeft(strip.Replace(strings.SplitN(strings.ToLower(s), "e", 2)[0]), "0"); len(sig) > 15 {
			long++ // on the Eisel–Lemire path
		}
		want, msg := parseValue(s)
		if msg != "" {
			t.Fatalf("%s: exactFloat took %v, parseValue refused it: %s", s, got, msg)
		}
		if math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("%s: exactFloat %v (%08x), parseValue %v (%08x)", s, got, math.Float32bits(got), want, math.Float32bits(want))
		}
	}
	if long < 100000 {
		t.Errorf("exactFloat took %d numbers of more than 15 digits: the Eisel–Lemire path is not being tested", long)
	}
	if took < len(toks)/3 {
		t.Errorf("exactFloat took %d of %d numbers: the fast path is not being tested", took, len(toks))
	}
}

// TestEightDigits: eightDigits reads every run of eight ASCII digits as strconv does, and
// refuses eight bytes with any other byte among them, the digits' neighbours included.
func TestEightDigits(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for range 100000 {
		s := fmt.Sprintf("%08d", rng.IntN(100000000))
		got, ok := eightDigits([]byte(s))
		want, _ := strconv.ParseUint(s, 10, 64)
		if !ok || got != want {
			t.Fatalf("%q: %d, %v; want %d", s, got, ok, want)
		}
		b := []byte(s)
		b[rng.IntN(8)] = []byte{'/', ':', '.', 'e', '-', ' ', 0, 0xff}[rng.IntN(8)]
		if _, ok := eightDigits(b); ok {
			t.Fatalf("%q: read as eight digits", b)
		}
	}
	if _, ok := eightDigits([]byte("1234567")); ok {
		t.Fatal("seven bytes read as eight digits")
	}
}

// TestMissingCells checks that missing cells (empty, NA, NaN, null as pandas reads them;
// JSON's null) read as NaN, for the model to impute, as udocc score does.
func TestMissingCells(t *testing.T) {
	named := Columns{D: 3, Names: []string{"a", "b", "c"}}
	for _, c := range []struct {
		name, body string
		csv        bool
	}{
		{"csv", "a,b,c\n1,,3\nNA,2,NaN\n", true},
		{"json", `{"rows":[[1,null,3],{"a":null,"b":2,"c":null}]}`, false},
	} {
		var r Reader
		if c.csv {
			r = NewCSV(strings.NewReader(c.body), named)
		} else {
			r = NewJSON(strings.NewReader(c.body), named)
		}
		x, err := readAll(r, 3, 4)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		nan := func(v float32) bool { return v != v }
		if len(x) != 6 || x[0] != 1 || !nan(x[1]) || x[2] != 3 || !nan(x[3]) || x[4] != 2 || !nan(x[5]) {
			t.Errorf("%s: %v, want [1 NaN 3 NaN 2 NaN]", c.name, x)
		}
	}
}

// TestIDs: the model's id column comes back as each row's id, from a CSV header's cell
// or a JSON object's string, number or null ("" for a row without one); a body without
// it gives none.
func TestIDs(t *testing.T) {
	c := Columns{D: 2, Names: []string{"a", "b"}, Ignore: []string{"user"}, ID: "user", HasID: true}
	read := func(rd Reader) []string {
		x := make([]float32, 8)
		var ids []string
		for {
			n, err := rd.Next(x)
			if err == io.EOF {
				return ids
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := rd.IDs(); got != nil {
				ids = append(ids, got[:n]...)
			}
		}
	}
	if got := read(NewCSV(strings.NewReader("user,a,b\nu1,1,2\n u2 ,3,4\n"), c)); !slices.Equal(got, []string{"u1", "u2"}) {
		t.Errorf("CSV ids %q", got)
	}
	if got := read(NewCSV(strings.NewReader("a,b\n1,2\n"), c)); got != nil {
		t.Errorf("a CSV without the id column: ids %q", got)
	}
	body := `{"rows":[{"a":1,"b":2,"user":"x"},{"user":7,"a":1,"b":2},{"a":1,"b":2},{"a":1,"b":2,"user":null}]}`
	if got := read(NewJSON(strings.NewReader(body), c)); !slices.Equal(got, []string{"x", "7", "", ""}) {
		t.Errorf("JSON ids %q", got)
	}
	if got := read(NewJSON(strings.NewReader(`{"rows":[{"a":1,"b":2}]}`), c)); got != nil {
		t.Errorf("JSON rows without ids: %q", got)
	}
}

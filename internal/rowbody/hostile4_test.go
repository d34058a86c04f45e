package rowbody

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
)

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestCSVBounded checks that a CSV body with a header of too many cells, a row of too
// many cells or one huge cell is refused with its kind and row after reading a small
// part of it (hostile round 4, B2: a 60 MiB header cost 3.3 GB).
func TestCSVBounded(t *testing.T) {
	const huge = 8 << 20
	for _, c := range []struct {
		name string
		body io.Reader
		kind error
		row  int
	}{
		{"wide header", io.MultiReader(strings.NewReader(strings.Repeat("a,", huge/2)), strings.NewReader("\n1,2\n")), ErrColumns, 0},
		{"wide row", io.MultiReader(strings.NewReader("a,b\n1,2\n"), strings.NewReader(strings.Repeat("0,", huge/2)), strings.NewReader("\n")), ErrColumns, 2},
		{"huge quoted cell", io.MultiReader(strings.NewReader("a,b\n1,\""), strings.NewReader(strings.Repeat("9\n", huge/2)), strings.NewReader("\"\n")), ErrValue, 1},
		{"huge header name", io.MultiReader(strings.NewReader("a,"), strings.NewReader(strings.Repeat("b", huge)), strings.NewReader("\n1,2\n")), ErrValue, 0},
		{"huge id", io.MultiReader(strings.NewReader("id,a,b\n"), strings.NewReader(strings.Repeat("x", huge)), strings.NewReader(",1,2\n")), ErrValue, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			cr := &countingReader{r: c.body}
			_, err := readAll(NewCSV(cr, named), 2, 4)
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, c.kind) || e.Row != c.row {
				t.Fatalf("error %v; want %v at row %d", err, c.kind, c.row)
			}
			if cr.n > 256<<10 {
				t.Fatalf("read %d bytes of %d before refusing: %v", cr.n, huge, err)
			}
		})
	}
	t.Run("quotes and long names within bounds", func(t *testing.T) {
		long := strings.Repeat("n", 5000)
		cols := Columns{D: 2, Names: []string{long, "b"}}
		body := "\"" + long + "\",\"b\"\n\"1\",\"2\"\n\"3\"\"\",4\n"
		_, err := readAll(NewCSV(strings.NewReader(body), cols), 2, 4)
		if !errors.Is(err, ErrValue) || !strings.Contains(err.Error(), "row 2") {
			t.Fatalf("error %v; want row 2's 3\" refused as a value, past the header", err)
		}
	})
}

// TestCSVGoLiterals checks that a CSV body's Go number literals are refused as values,
// as package data refuses them (hostile round 4, L14).
func TestCSVGoLiterals(t *testing.T) {
	for _, cell := range []string{"0x1p3", "1_0", "1e1_0"} {
		_, err := readAll(NewCSV(strings.NewReader("a,b\n1,"+cell+"\n"), named), 2, 4)
		if !errors.Is(err, ErrValue) {
			t.Errorf("%s: error %v, want %v", cell, err, ErrValue)
		}
	}
}

// TestErrorColumnBare checks that an error's Column is the column's own name, which a
// client matches as it is, and that its message quotes it (hostile round 4, L4).
func TestErrorColumnBare(t *testing.T) {
	for _, c := range []struct {
		name string
		r    Reader
		col  string
		idx  int
	}{
		{"json value", NewJSON(strings.NewReader(`{"rows":[{"a":1,"b":"x"}]}`), named), "b", 2},
		{"json unknown", NewJSON(strings.NewReader(`{"rows":[{"a":1,"c d":2}]}`), named), "c d", 0},
		{"csv value", NewCSV(strings.NewReader("b,a\n1,x\n"), named), "a", 1},
		{"csv twice", NewCSV(strings.NewReader("a,b,a\n1,2,3\n"), named), "a", 0},
		{"unnamed", NewCSV(strings.NewReader("p,q\n1,x\n"), Columns{D: 2}), "", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := readAll(c.r, 2, 4)
			var e *Error
			if !errors.As(err, &e) || e.Column != c.col || e.Index != c.idx {
				t.Fatalf("error %#v; want column %q index %d", err, c.col, c.idx)
			}
			want := strconv.Quote(c.col) + ": "
			if c.col == "" {
				want = "column 2: "
			}
			if !strings.Contains(e.Error(), want) {
				t.Fatalf("message %q does not hold %q", e.Error(), want)
			}
		})
	}
}

// TestJSONExtraField checks that a field after the rows is named, with "rows" as the
// one field a body has (hostile round 4, L3: it said the one field was "").
func TestJSONExtraField(t *testing.T) {
	for body, want := range map[string]string{
		`{"rows":[[1,2]],"x":1}`:       `unknown field "x": the body's one field is "rows"`,
		`{"rows":[[1,2]],"rows":[[]]}`: `"rows" twice`,
	} {
		_, err := readAll(NewJSON(strings.NewReader(body), named), 2, 4)
		if !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", body, err, want)
		}
	}
}

package rowbody

import (
	"errors"
	"io"
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

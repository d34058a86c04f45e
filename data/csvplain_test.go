package data

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestPlainReaderMatchesCSV reads random quote-free files (empty cells and lines,
// spaces, carriage returns before newlines, alone and at the end, a last line with or
// without a newline) with plainReader and with encoding/csv: the same records, lines and
// cell columns.
func TestPlainReaderMatchesCSV(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 5))
	pieces := []string{"1", "-2.5", " 3 ", "", "x", "1e5", "\r", " ", "abc def"}
	for trial := 0; trial < 2000; trial++ {
		comma := []rune{',', ';', '\t'}[r.IntN(3)]
		var b bytes.Buffer
		lines := r.IntN(6)
		for l := 0; l < lines; l++ {
			cells := r.IntN(4)
			for c := 0; c <= cells; c++ {
				if c > 0 {
					b.WriteRune(comma)
				}
				b.WriteString(pieces[r.IntN(len(pieces))])
			}
			if r.IntN(3) == 0 {
				b.WriteString("\r")
			}
			if l < lines-1 || r.IntN(2) == 0 {
				b.WriteString("\n")
			}
		}
		in := b.Bytes()
		// A 16-byte buffer (bufio's least) gathers the longer lines from pieces.
		plain := newRecordReader(bufio.NewReaderSize(bytes.NewReader(in), 16), comma, false)
		ref := csv.NewReader(bytes.NewReader(in))
		ref.Comma, ref.FieldsPerRecord = comma, -1
		for {
			want, werr := ref.Read()
			got, gerr := plain.Read()
			if errors.Is(werr, io.EOF) || errors.Is(gerr, io.EOF) {
				if !errors.Is(werr, io.EOF) || !errors.Is(gerr, io.EOF) {
					t.Fatalf("%q: encoding/csv %v, plainReader %v", in, werr, gerr)
				}
				break
			}
			if werr != nil || gerr != nil {
				t.Fatalf("%q: encoding/csv %v, plainReader %v", in, werr, gerr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: plainReader read %q, encoding/csv %q", in, got, want)
			}
			for j := range want {
				wl, wc := ref.FieldPos(j)
				gl, gc := plain.FieldPos(j)
				if wl != gl || wc != gc {
					t.Fatalf("%q: cell %d at line %d column %d, encoding/csv says %d, %d", in, j, gl, gc, wl, wc)
				}
			}
		}
	}
}

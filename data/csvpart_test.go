package data

import (
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"strings"
	"testing"
)

// csvTable writes an n-row table: an id column "r<i>", a text column "t" ("abc" on the
// first row, numbers after, so its kind comes from the file's first row), two features
// and a label from labels, cycled. eol ends the lines; header adds a header line.
func csvTable(n int, header bool, eol string, labels []string) string {
	var b strings.Builder
	if header {
		b.WriteString("id,t,a,b,y" + eol)
	}
	for i := 0; i < n; i++ {
		t := fmt.Sprint(i)
		if i == 0 {
			t = "abc"
		}
		fmt.Fprintf(&b, "r%d,%s,%d.5,%d,%s%s", i, t, i, -3*i, labels[i%len(labels)], eol)
	}
	return b.String()
}

// wholeAndCut is the reference for a part: the whole file read, then cut.
func wholeAndCut(path string, opts LoadOptions) (*Dataset, error) {
	p := opts.Part
	opts.Part = Part{}
	ds, err := Load(path, opts)
	if err != nil {
		return nil, err
	}
	if ds, err = cutPart(ds, p); err != nil {
		return nil, fmt.Errorf("data: %s: %w", path, err)
	}
	return ds, nil
}

// TestLoadCSVPart reads every block of tables of several shapes and line ends for
// several W, up to more ranks than rows: each block (rows, columns, names, labels, ids,
// the dropped text column) or its error equals the whole file read and cut; a file
// without double quotes is read from the block's bytes, one with a quote whole, and
// blocks whose labels the other rows decide (all "1" of -1/1, no positive value) whole.
func TestLoadCSVPart(t *testing.T) {
	named := LoadOptions{LabelColumn: "y", Selection: Selection{ID: "id", DropText: true}}
	byIndex := LoadOptions{LabelNumber: 5, Header: HeaderNo, Selection: Selection{DropText: true}}
	byIndexAuto := LoadOptions{LabelNumber: 5, Selection: Selection{DropText: true}}
	numeric := "1,0\n3,1\n5,0\n7,0\n9,1\n11,1\n13,0\n"
	for _, c := range []struct {
		name string
		text string
		opts LoadOptions
		read string // "block": some part is read from its block's bytes; "whole": none is
	}{
		{"header LF", csvTable(11, true, "\n", []string{"0", "1"}), named, "block"},
		{"header CRLF", csvTable(11, true, "\r\n", []string{"0", "0", "1"}), named, "block"},
		{"no trailing newline", strings.TrimSuffix(csvTable(10, true, "\n", []string{"1", "0"}), "\n"), named, "block"},
		{"no trailing CRLF", strings.TrimSuffix(csvTable(10, true, "\r\n", []string{"1", "0"}), "\r\n"), named, "block"},
		{"blank trailing line", csvTable(9, true, "\n", []string{"0", "1"}) + "\n", named, "block"},
		{"blank trailing CRLF and CR", csvTable(9, true, "\r\n", []string{"0", "1"}) + "\r\n\r", named, "block"},
		{"blank lines inside", "\n\r\n" + strings.ReplaceAll(csvTable(12, true, "\n", []string{"true", "false"}), "r5,", "\n\r\nr5,"), named, "block"},
		{"byte-order mark", "\uFEFF" + csvTable(8, true, "\n", []string{"0", "1"}), named, "block"},
		{"no header", csvTable(11, false, "\n", []string{"0", "1"}), byIndex, "block"},
		{"no header CRLF", csvTable(11, false, "\r\n", []string{"0", "1"}), byIndex, "block"},
		{"auto header: numbers", numeric, LoadOptions{}, "block"},
		{"auto header: numbers, label", numeric, LoadOptions{LabelNumber: 2}, "block"},
		{"auto header: names", csvTable(7, true, "\n", []string{"0", "1"}), byIndexAuto, "block"},
		{"header yes over numbers", numeric, LoadOptions{Header: HeaderYes}, "block"},
		{"tabs", strings.ReplaceAll(csvTable(9, true, "\n", []string{"0", "1"}), ",", "\t"), named, "block"},
		{"positive", csvTable(9, true, "\n", []string{"n", "n", "n", "a"}), func() LoadOptions { o := named; o.Positive = "a"; return o }(), ""},
		{"-1/1, blocks of 1", csvTable(12, true, "\n", []string{"1", "1", "1", "1", "1", "-1"}), named, ""},
		{"quoted", strings.Replace(csvTable(9, true, "\n", []string{"0", "1"}), "r3,", `"r3",`, 1), named, "whole"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeTemp(t, "t.csv", []byte(c.text))
			whole, err := Load(path, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range []int{2, 3, 4, 7, whole.N, whole.N + 3} {
				direct := false
				for p := 0; p < w; p++ {
					o := c.opts
					o.Part = Part{Index: p, Of: w}
					want, wantErr := wholeAndCut(path, o)
					got, err := Load(path, o)
					if fmt.Sprint(err) != fmt.Sprint(wantErr) {
						t.Fatalf("part %d of %d: error %v, want %v", p, w, err, wantErr)
					}
					if err != nil {
						continue
					}
					direct = direct || got.partCut
					got.partCut, want.partCut = false, false
					if !reflect.DeepEqual(got, want) {
						t.Errorf("part %d of %d:\n got %+v\nwant %+v", p, w, got, want)
					}
				}
				if c.read == "block" && !direct {
					t.Errorf("W = %d: no part read from its block's bytes", w)
				}
				if c.read == "whole" && direct {
					t.Errorf("W = %d: a part read from its block's bytes", w)
				}
			}
		})
	}
}

// TestLoadCSVPartErrors puts one bad cell on each row of a table in turn: a block that
// holds it fails naming the whole file's line and column, as the whole read does; the
// other blocks load.
func TestLoadCSVPartErrors(t *testing.T) {
	const n, w = 12, 4
	opts := LoadOptions{LabelColumn: "y", Selection: Selection{ID: "id", DropText: true}}
	for bad := 1; bad < n; bad++ { // row 0 would make column a text
		text := csvTable(n, true, "\r\n", []string{"0", "1"})
		text = strings.Replace(text, fmt.Sprintf("r%d,%d,%d.5", bad, bad, bad), fmt.Sprintf("r%d,%d,oops", bad, bad), 1)
		text = strings.Replace(text, "r2,", "\r\nr2,", 1) // a blank line, counted in the lines
		path := writeTemp(t, "e.csv", []byte(text))
		noDrop := opts
		noDrop.Selection.DropText = false // whole, a column of text is left out under it
		noDrop.Selection.Drop = []string{"t"}
		_, wantErr := Load(path, noDrop)
		if wantErr == nil || !strings.Contains(wantErr.Error(), "column 3") {
			t.Fatalf("row %d: whole read: %v", bad, wantErr)
		}
		for p := 0; p < w; p++ {
			o := opts
			o.Part = Part{Index: p, Of: w}
			_, err := Load(path, o)
			if in := p*n/w <= bad && bad < (p+1)*n/w; in {
				if fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Errorf("row %d, part %d: error %v, want %v", bad, p, err, wantErr)
				}
			} else if err != nil {
				t.Errorf("row %d, part %d: %v", bad, p, err)
			}
		}
	}
}

// TestLoadCSVPartPipe reads a part from a pipe, as stdin: the whole text is read, then
// cut, to the block the file gives.
func TestLoadCSVPartPipe(t *testing.T) {
	if _, err := os.Stat("/dev/fd/0"); err != nil {
		t.Skip("no /dev/fd:", err)
	}
	text := csvTable(9, true, "\n", []string{"0", "1"})
	opts := LoadOptions{LabelColumn: "y", Selection: Selection{ID: "id", DropText: true}, Part: Part{Index: 1, Of: 2}}
	want, err := Load(writeTemp(t, "t.csv", []byte(text)), opts)
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		w.WriteString(text)
		w.Close()
	}()
	opts.Format = "csv"
	got, err := Load(fmt.Sprintf("/dev/fd/%d", r.Fd()), opts)
	if err != nil {
		t.Fatal(err)
	}
	if got.partCut || !reflect.DeepEqual(got.X, want.X) || !reflect.DeepEqual(got.Y, want.Y) || !reflect.DeepEqual(got.IDs, want.IDs) {
		t.Errorf("from a pipe: %+v, want the rows of %+v, read whole", got, want)
	}
}

// TestScanRecords checks the record scan against a line-by-line count on random text of
// short lines, blank lines, "\r" and both line ends, with a buffer smaller than a line.
func TestScanRecords(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	pieces := []string{"a", "bc", "\r", "\n", "\r\n", ",", "12345678901234567890"}
	for trial := 0; trial < 300; trial++ {
		var b strings.Builder
		for k := rng.Intn(40); k > 0; k-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		text := b.String()
		var want []record
		start, line := 0, 1
		for start < len(text) {
			end := strings.IndexByte(text[start:], '\n') + start + 1
			if end == start {
				end = len(text)
			}
			body := strings.TrimSuffix(strings.TrimSuffix(text[start:end], "\n"), "\r")
			if body != "" {
				want = append(want, record{int64(start), int64(end), line})
			}
			start, line = end, line+1
		}
		var got []record
		quoted, err := scanRecords(strings.NewReader(text), 0, int64(len(text)), func(r record) bool {
			got = append(got, r)
			return true
		})
		if err != nil || quoted {
			t.Fatal(err, quoted)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: records %v, want %v", text, got, want)
		}
	}
}

// FuzzCSVPart reads every block of a file the whole read accepts: each equals the whole
// file read and cut, or fails as it does.
func FuzzCSVPart(f *testing.F) {
	f.Add([]byte(csvTable(5, true, "\r\n", []string{"0", "1"})), uint8(2), true)
	f.Add([]byte("1,2\n\n3,4\r\n5,6\r"), uint8(3), false)
	f.Fuzz(func(t *testing.T, b []byte, w uint8, label bool) {
		if w < 2 || w > 16 {
			return
		}
		opts := LoadOptions{}
		if label {
			opts.LabelNumber = 1
		}
		path := writeTemp(t, "f.csv", b)
		if _, err := Load(path, opts); err != nil {
			return
		}
		for p := 0; p < int(w); p++ {
			opts.Part = Part{Index: p, Of: int(w)}
			want, wantErr := wholeAndCut(path, opts)
			got, err := Load(path, opts)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("part %d of %d: error %v, want %v", p, w, err, wantErr)
			}
			if err == nil {
				got.partCut, want.partCut = false, false
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("part %d of %d:\n got %+v\nwant %+v", p, w, got, want)
				}
			}
		}
	})
}

package data

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestCSVRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, delim := range []string{",", ";", "\t"} {
		t.Run(strconv.Quote(delim), func(t *testing.T) {
			n, d := 5, 3
			x := make([]float64, n*d)
			for i := range x {
				x[i] = rng.NormFloat64() * 1e-3
			}
			y := []int{0, 1, 0, 0, 1}
			var sb strings.Builder
			sb.WriteString(strings.Join([]string{"f a", "label", "f,b", "f3"}, delim) + "\n")
			for i := 0; i < n; i++ {
				row := []string{
					strconv.FormatFloat(x[i*d], 'g', -1, 64), strconv.Itoa(y[i]),
					strconv.FormatFloat(x[i*d+1], 'g', -1, 64), strconv.FormatFloat(x[i*d+2], 'e', -1, 64),
				}
				sb.WriteString(strings.Join(row, delim) + "\r\n")
			}
			csvText := strings.Replace(sb.String(), "f,b", `"f,b"`, 1)
			for _, opts := range []LoadOptions{
				{LabelColumn: "label"},
				{LabelNumber: 2},
				{LabelNumber: 2, Delimiter: rune(delim[0])},
			} {
				ds, err := Load(writeTemp(t, "rt.csv", []byte(csvText)), opts)
				if err != nil {
					t.Fatal(err)
				}
				if ds.N != n || ds.D != d || !slices.Equal(ds.X, f32(x)) || !slices.Equal(ds.Y, y) {
					t.Fatalf("read %d×%d %v %v, wrote %v %v", ds.N, ds.D, ds.X, ds.Y, x, y)
				}
				if want := []string{"f a", "f,b", "f3"}; !slices.Equal(ds.Features, want) {
					t.Errorf("features %q, want %q", ds.Features, want)
				}
			}
		})
	}
}

func TestCSVErrors(t *testing.T) {
	def := LoadOptions{}
	label := LoadOptions{LabelColumn: "y"}
	tests := []struct {
		name string
		text string
		opts LoadOptions
		want error
		// where is the position the message must give.
		where string
	}{
		{"empty cell", "a,b\n1,2\n3,\n", def, errEmptyCell, `line 3, column 2 ("b")`},
		{"not a number", "a,b\n1,2\n3,x4\n", def, errNotNumeric, `line 3, column 2 ("b")`},
		{"decimal comma under --decimal .", "a;b\n1;2,5\n", LoadOptions{Decimal: '.'}, errNotNumeric, `line 2, column 2`},
		{"NaN", "a,b\n1,NaN\n", def, errNonFinite, `line 2, column 2`},
		{"Inf", "a,b\n-inf,1\n", def, errNonFinite, `line 2, column 1`},
		{"overflow", "a,b\n1e999,1\n", def, errNotNumeric, `line 2, column 1`},
		{"ragged short", "a,b,c\n1,2,3\n\n4,5\n", def, errRagged, `line 4`},
		{"ragged long", "a,b\n1,2,3\n", def, errRagged, `line 2`},
		{"bare quote", "a,b\n1,2\"\n", def, ErrFormat, `line 2`},
		{"no rows", "a,b\n", def, errEmpty, ""},
		{"empty file", "", def, errEmpty, ""},
		{"only the label column", "y\n1\n", label, errEmpty, ""},
		{"labels 0 and 2", "a,y\n1,0\n2,2\n", label, ErrLabel, `column 2 ("y")`},
		{"a third label value", "a,y\n1,-1\n2,1\n3,0\n", label, ErrLabel, `line 4, column 2 ("y")`},
		{"no such label column", "a,b\n1,2\n", label, errMissingVariable, `"y"`},
		{"label index past the header", "a,b\n1,2\n", LoadOptions{LabelNumber: 3}, errMissingVariable, "column 3 (1-based)"},
		{"both label options", "a,y\n1,0\n", LoadOptions{LabelColumn: "y", LabelNumber: 1}, ErrOptions, ""},
		{"bad delimiter option", "a,y\n1,0\n", LoadOptions{Delimiter: '|'}, ErrOptions, ""},
		{"ambiguous delimiter", "a,b;c\n1,2;3\n", def, ErrFormat, "line 1"},
		{"duplicate label name", "y,y\n1,0\n", label, ErrOptions, "column 1 and 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(writeTemp(t, "bad.csv", []byte(tc.text)), tc.opts)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.where) || (tc.want != ErrOptions && !strings.Contains(err.Error(), "bad.csv")) {
				t.Errorf("error %q does not give the file and %q", err, tc.where)
			}
		})
	}
}

func TestCSVAccepts(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		wantX []float64
	}{
		{"byte-order mark and spaces", "\uFEFFa, b\n 1 , 2\n", []float64{1, 2}},
		{"single column", "a\n1\n2\n", []float64{1, 2}},
		{"quoted numbers", "\"a\",\"b\"\n\"1\",\"-2.5e1\"\n", []float64{1, -25}},
		{"blank lines", "a,b\n\n1,2\n\n3,4", []float64{1, 2, 3, 4}},
		{"tab with commas in the header's quotes", "\"x,1\"\t\"x,2\"\n1\t2\n", []float64{1, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ds, err := Load(writeTemp(t, "ok.csv", []byte(tc.text)), LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ds.X, f32(tc.wantX)) || ds.Y != nil {
				t.Errorf("X %v Y %v, want %v", ds.X, ds.Y, tc.wantX)
			}
		})
	}
}

// TestCSVHeader checks which first rows are read as a header: under auto only a row that
// is not all numbers, so a file written by np.savetxt keeps its first row as data.
func TestCSVHeader(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		header    Header
		wantX     []float64
		wantNames []string
		named     bool
	}{
		{"auto: names", "a,b\n1,2\n", HeaderAuto, []float64{1, 2}, []string{"a", "b"}, true},
		{"auto: np.savetxt's numbers", "5.125730e+00,1\n3,4\n", HeaderAuto, []float64{5.12573, 1, 3, 4}, []string{"x1", "x2"}, false},
		{"auto: one name among numbers", "1,b\n3,4\n", HeaderAuto, []float64{3, 4}, []string{"1", "b"}, true},
		{"yes: numbers as names", "1,2\n3,4\n", HeaderYes, []float64{3, 4}, []string{"1", "2"}, true},
		{"no: every row is data", "1,2\n3,4\n", HeaderNo, []float64{1, 2, 3, 4}, []string{"x1", "x2"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ds, err := Load(writeTemp(t, "h.csv", []byte(tc.text)), LoadOptions{Header: tc.header})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ds.X, f32(tc.wantX)) || !slices.Equal(ds.Features, tc.wantNames) || ds.Named != tc.named {
				t.Errorf("X %v, features %q, named %v; want %v, %q, %v", ds.X, ds.Features, ds.Named, tc.wantX, tc.wantNames, tc.named)
			}
		})
	}
	errs := []struct {
		name  string
		text  string
		opts  LoadOptions
		want  error
		where string
	}{
		{"no: a header is then a bad cell", "a,b\n1,2\n", LoadOptions{Header: HeaderNo}, errNotNumeric, `line 1, column 1: "a"`},
		{"a label by name without a header", "1,0\n2,1\n", LoadOptions{LabelColumn: "y"}, errMissingVariable, "not a header"},
		{"a label by index without a header", "1,2\n2,0\n", LoadOptions{LabelNumber: 2}, ErrLabel, `column 2 ("x2")`},
		{"a name twice", "a,b,a\n1,2,3\n", LoadOptions{}, ErrFormat, `"a" is both column 1 and 3`},
		{"an unknown mode", "a\n1\n", LoadOptions{Header: "maybe"}, ErrOptions, "maybe"},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(writeTemp(t, "h.csv", []byte(tc.text)), tc.opts)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.where) {
				t.Fatalf("error %v, want %v naming %q", err, tc.want, tc.where)
			}
		})
	}
}

package data

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

func gzipBytes(t testing.TB, b []byte) []byte {
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestTextFormats checks that one table reads the same from .csv, .tsv, .txt, their
// gzipped forms (by extension and by a named format), with labels and ids.
func TestTextFormats(t *testing.T) {
	csvText := "id,a,label,b\nr1,1.5,0,-2e-3\nr2,0.1,1,7\n\"r,3\",3,0,4\n"
	tsvText := "id\ta\tlabel\tb\nr1\t1.5\t0\t-2e-3\nr2\t0.1\t1\t7\nr,3\t3\t0\t4\n"
	opts := LoadOptions{LabelColumn: "label", Selection: Selection{ID: "id"}}
	files := map[string][]byte{
		"t.csv": []byte(csvText), "t.tsv": []byte(tsvText), "t.txt": []byte(tsvText),
		"t.csv.gz": gzipBytes(t, []byte(csvText)), "t.TSV.GZ": gzipBytes(t, []byte(tsvText)),
		"t.txt.gz": gzipBytes(t, []byte(csvText)), "t.data": gzipBytes(t, []byte(csvText)),
	}
	for name, b := range files {
		t.Run(name, func(t *testing.T) {
			o := opts
			if name == "t.data" {
				o.Format = "csv.gz"
			}
			ds, err := Load(writeTemp(t, name, b), o)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ds.X, f32([]float64{1.5, -2e-3, 0.1, 7, 3, 4})) || !slices.Equal(ds.Y, []int{0, 1, 0}) ||
				!slices.Equal(ds.IDs, []string{"r1", "r2", "r,3"}) || !slices.Equal(ds.Features, []string{"a", "b"}) || ds.Name != "t" {
				t.Errorf("read %v %v %q %q %q", ds.X, ds.Y, ds.IDs, ds.Features, ds.Name)
			}
		})
	}
}

func TestFormatErrors(t *testing.T) {
	tests := []struct {
		name, file string
		b          []byte
		opts       LoadOptions
		want       error
	}{
		{"not gzip", "t.csv.gz", []byte("a,b\n1,2\n"), LoadOptions{}, ErrFormat},
		{"truncated gzip", "t.csv.gz", gzipBytes(t, []byte("a,b\n1,2\n"))[:15], LoadOptions{}, ErrFormat},
		{"gzipped npy", "t.npy.gz", []byte{}, LoadOptions{}, ErrUnknownFormat},
		{"an unknown format named", "t.csv", []byte("a\n1\n"), LoadOptions{Format: "xlsx"}, ErrOptions},
		{"--columns with --drop", "t.csv", []byte("a\n1\n"), LoadOptions{Selection: Selection{Columns: []string{"a"}, Drop: []string{"b"}}}, ErrOptions},
		{"the id a feature", "t.csv", []byte("a\n1\n"), LoadOptions{Selection: Selection{ID: "a", Columns: []string{"a"}}}, ErrOptions},
		{"the label the id", "t.csv", []byte("a,b\n1,2\n"), LoadOptions{LabelColumn: "a", Selection: Selection{ID: "a"}}, ErrOptions},
		{"an unknown --columns", "t.csv", []byte("a,b\n1,2\n"), LoadOptions{Selection: Selection{Columns: []string{"c"}}}, errMissingVariable},
		{"text in CSV", "t.csv", []byte("a,b\n1,x\n"), LoadOptions{}, errNotNumeric},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Load(writeTemp(t, tc.file, tc.b), tc.opts); !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := Load("-", LoadOptions{}); !errors.Is(err, ErrOptions) {
		t.Errorf("stdin without a format: error %v, want ErrOptions", err)
	}
}

// TestCSVSelection checks --id, --columns (in their order), --drop and --drop-text on
// CSV, and that a text cell further down a numeric column is still an error at its line.
func TestCSVSelection(t *testing.T) {
	text := "name,a,b,c,y\nx,1,2,3,true\ny,4,5,6,false\n"
	tests := []struct {
		name     string
		sel      Selection
		features []string
		x        []float64
	}{
		{"--drop-text", Selection{DropText: true}, []string{"a", "b", "c"}, []float64{1, 2, 3, 4, 5, 6}},
		{"--columns c,a", Selection{Columns: []string{"c", "a"}, ID: "name"}, []string{"c", "a"}, []float64{3, 1, 6, 4}},
		{"--drop b", Selection{Drop: []string{"b", "name"}}, []string{"a", "c"}, []float64{1, 3, 4, 6}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ds, err := Load(writeTemp(t, "s.csv", []byte(text)), LoadOptions{LabelColumn: "y", Selection: tc.sel})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ds.Features, tc.features) || !slices.Equal(ds.X, f32(tc.x)) || !slices.Equal(ds.Y, []int{1, 0}) {
				t.Errorf("features %q X %v Y %v", ds.Features, ds.X, ds.Y)
			}
		})
	}
	// A column's type comes from every cell: under --drop-text, text on line 3 leaves b
	// out (reported), and without it, it is an error naming the cell.
	ds, err := Load(writeTemp(t, "s.csv", []byte("a,b\n1,2\n3,oops\n")), LoadOptions{Selection: Selection{DropText: true}})
	if err != nil || !slices.Equal(ds.Features, []string{"a"}) || !slices.Equal(ds.TextDropped, []string{"b"}) || !slices.Equal(ds.X, f32([]float64{1, 3})) {
		t.Errorf("--drop-text with text on line 3: %+v, %v; want b left out", ds, err)
	}
	_, err = Load(writeTemp(t, "s.csv", []byte("a,b\n1,2\n3,oops\n")), LoadOptions{})
	if !errors.Is(err, errNotNumeric) || !strings.Contains(err.Error(), `line 3, column 2 ("b")`) || !strings.Contains(err.Error(), "LoadOptions.Selection.DropText") {
		t.Errorf("error %v, want the text cell at line 3, column 2", err)
	}
}

// TestSameTableEveryFormat checks that one table of doubles gives bit-identical
// matrices from CSV, CSV.gz, Parquet and NPY.
func TestSameTableEveryFormat(t *testing.T) {
	dir := t.TempDir()
	paths := writeBig(t, dir, 500, 4)
	var first *Dataset
	for _, f := range []string{"csv", "csv.gz", "parquet", "npy"} {
		ds, err := Load(paths[f], LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = ds
			continue
		}
		if ds.N != first.N || ds.D != first.D {
			t.Fatalf("%s: %d×%d, csv %d×%d", f, ds.N, ds.D, first.N, first.D)
		}
		for k := range ds.X {
			if math.Float32bits(ds.X[k]) != math.Float32bits(first.X[k]) {
				t.Fatalf("%s: value %d is %v, csv has %v", f, k, ds.X[k], first.X[k])
			}
		}
	}
}

// benchTables is writeBig's tables for a benchmark: in UDOCC_BENCH_DIR, written once and
// kept (so that /usr/bin/time -v of one sub-benchmark measures its load alone), or in a
// temporary folder.
func benchTables(b *testing.B, n, d int) map[string]string {
	dir := os.Getenv("UDOCC_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	return writeBig(b, dir, n, d)
}

// writeBig writes an n × d table of random doubles (columns f1…fd) as .csv, .csv.gz,
// .parquet (row groups of 100 000 rows) and .npy into dir, row by row so that writing a
// big one holds no whole copy, and returns their paths by format. Where dir is
// $UDOCC_BENCH_DIR and holds them already, they are kept.
func writeBig(t testing.TB, dir string, n, d int) map[string]string {
	t.Helper()
	paths := map[string]string{}
	for _, f := range []string{"csv", "csv.gz", "parquet", "npy"} {
		paths[f] = filepath.Join(dir, "big."+f)
	}
	if dir == os.Getenv("UDOCC_BENCH_DIR") {
		if _, err := os.Stat(paths["npy"]); err == nil {
			return paths
		}
	}
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	var fields []parquet.Field
	names := make([]string, d)
	for j := range names {
		names[j] = fmt.Sprintf("f%d", j+1)
		fields = append(fields, namedField{parquet.Leaf(parquet.DoubleType), names[j]})
	}
	files := map[string]*os.File{}
	for f, p := range paths {
		file, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		files[f] = file
	}
	csvW := bytes.NewBufferString(strings.Join(names, ",") + "\n")
	gz := gzip.NewWriter(files["csv.gz"])
	pw := parquet.NewWriter(files["parquet"], parquet.NewSchema("t", orderedGroup{fields: fields}),
		parquet.MaxRowsPerRowGroup(100_000), parquet.Compression(&parquet.Snappy))
	npy := npyBytes("<f8", false, []int{n, d}, nil)
	files["npy"].Write(npy)
	raw := make([]byte, 8*d)
	row := make(parquet.Row, d)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			v := rng.NormFloat64() * math.Pow(10, float64(j%5-2))
			if j > 0 {
				csvW.WriteByte(',')
			}
			csvW.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
			row[j] = parquet.DoubleValue(v).Level(0, 0, j)
			bits := math.Float64bits(v)
			for k := range 8 {
				raw[8*j+k] = byte(bits >> (8 * k))
			}
		}
		csvW.WriteByte('\n')
		if _, err := pw.WriteRows([]parquet.Row{row}); err != nil {
			t.Fatal(err)
		}
		files["npy"].Write(raw)
		if csvW.Len() > 1<<20 || i == n-1 {
			files["csv"].Write(csvW.Bytes())
			gz.Write(csvW.Bytes())
			csvW.Reset()
		}
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		if err := file.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

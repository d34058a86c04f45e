package data

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// allTypes has a column of every numeric physical type, and of the logical types on
// them that are numbers, beside a string id and a boolean label.
type allTypes struct {
	ID    string  `parquet:"id"`
	Bool  bool    `parquet:"bool"`
	I32   int32   `parquet:"i32"`
	I64   int64   `parquet:"i64"`
	U32   uint32  `parquet:"u32"`
	U64   uint64  `parquet:"u64"`
	I8    int8    `parquet:"i8"`
	F32   float32 `parquet:"f32"`
	F64   float64 `parquet:"f64"`
	Dec32 int32   `parquet:"dec32,decimal(2:9)"`
	Dec64 int64   `parquet:"dec64,decimal(3:18)"`
	Label bool    `parquet:"label"`
}

// writeParquet writes rows with the same library, row groups of 3 rows so that a
// table spans several.
func writeParquet[T any](t testing.TB, rows []T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.parquet")
	if err := parquet.WriteFile(path, rows, parquet.MaxRowsPerRowGroup(3), parquet.PageBufferSize(64)); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestParquetTypes(t *testing.T) {
	rows := []allTypes{
		{"a", true, -7, -1 << 40, math.MaxUint32, 1 << 63, -128, 1.5, math.Pi, 12345, -1, false},
		{"b", false, 7, 1 << 40, 0, 0, 127, -2.25, -1e30, -1, 123456789, true},
		{"c, d", true, 0, 0, 1, 1, 0, 0, 0, 0, 0, false},
		{"é", false, 1, 1, 2, 2, 1, 1, 1, 1, 1, false},
	}
	path := writeParquet(t, rows)
	opts := LoadOptions{}
	opts.LabelColumn = "label"
	opts.Selection.ID = "id"
	ds, err := Load(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	wantNames := []string{"bool", "i32", "i64", "u32", "u64", "i8", "f32", "f64", "dec32", "dec64"}
	if !slices.Equal(ds.Features, wantNames) || !ds.Named {
		t.Fatalf("features %q, want %q", ds.Features, wantNames)
	}
	want := []float64{
		1, -7, -1 << 40, math.MaxUint32, 1 << 63, -128, 1.5, math.Pi, 123.45, -0.001,
		0, 7, 1 << 40, 0, 0, 127, -2.25, -1e30, -0.01, 123456.789,
		1, 0, 0, 1, 1, 0, 0, 0, 0, 0,
		0, 1, 1, 2, 2, 1, 1, 1, 0.01, 0.001,
	}
	for k := range want {
		if math.Float32bits(ds.X[k]) != math.Float32bits(float32(want[k])) {
			t.Errorf("row %d, %s: %v, want %v", k/ds.D+1, ds.Features[k%ds.D], ds.X[k], want[k])
		}
	}
	if !slices.Equal(ds.Y, []int{0, 1, 0, 0}) {
		t.Errorf("labels %v", ds.Y)
	}
	if !slices.Equal(ds.IDs, []string{"a", "b", "c, d", "é"}) || ds.IDName != "id" {
		t.Errorf("ids %q (%q)", ds.IDs, ds.IDName)
	}
}

type withNull struct {
	A float64  `parquet:"a"`
	B *float64 `parquet:"b,optional"`
}

type withText struct {
	Name string  `parquet:"name"`
	A    float64 `parquet:"a"`
	When int64   `parquet:"when,timestamp(millisecond)"`
	Kind string  `parquet:"kind"`
}

type withLabel[L any] struct {
	A     float64 `parquet:"a"`
	Label L       `parquet:"label"`
}

type nested struct {
	A    float64   `parquet:"a"`
	List []float64 `parquet:"list"`
}

func TestParquetErrors(t *testing.T) {
	one := 1.0
	nulls := make([]withNull, 8)
	for i := range nulls {
		nulls[i] = withNull{float64(i), &one}
	}
	nulls[6].B = nil
	nan := []withNull{{1, &one}, {math.NaN(), &one}}
	text := []withText{{"x", 1, 0, "k"}, {"y", 2, 1, "k"}}
	label := func(opts LoadOptions) LoadOptions { opts.LabelColumn = "label"; return opts }
	def := LoadOptions{}
	tests := []struct {
		name  string
		path  string
		opts  LoadOptions
		want  error
		where string
	}{
		{"a null, in the third row group", writeParquet(t, nulls), def, errNull, `row 7, column "b"`},
		{"a NaN", writeParquet(t, nan), def, errNonFinite, `row 2, column "a"`},
		{"text columns", writeParquet(t, text), def, errNotNumeric, `columns "name", "when", "kind" are not numeric`},
		{"text columns: the suggestion", writeParquet(t, text), def, errNotNumeric, `LoadOptions.Selection.Drop = []string{"name", "when", "kind"}`},
		{"a text column among --columns", writeParquet(t, text), LoadOptions{Selection: Selection{Columns: []string{"a", "kind"}}}, errNotNumeric, `"kind"`},
		{"an unknown --drop", writeParquet(t, text), LoadOptions{Selection: Selection{Drop: []string{"nope"}}}, errMissingVariable, `"nope"`},
		{"three label values", writeParquet(t, []withLabel[int32]{{1, 0}, {2, 1}, {3, 2}}), label(def), ErrLabel, `row 3, column "label"`},
		{"labels 1 and 2", writeParquet(t, []withLabel[int32]{{1, 2}, {2, 1}}), label(def), ErrLabel, `LoadOptions.Positive`},
		{"two strings without --positive", writeParquet(t, []withLabel[string]{{1, "ok"}, {2, "bad"}}), label(def), ErrLabel, `"ok", "bad"`},
		{"a positive that does not occur", writeParquet(t, []withLabel[string]{{1, "ok"}, {2, "bad"}}), label(LoadOptions{Positive: "fraud"}), ErrLabel, `"fraud"`},
		{"a repeated column", writeParquet(t, []nested{{1, []float64{1}}, {2, nil}}), def, errNotNumeric, `"list"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(tc.path, tc.opts)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.where) || !strings.Contains(err.Error(), tc.path) {
				t.Fatalf("error %v, want %v naming the file and %q", err, tc.want, tc.where)
			}
		})
	}
}

func TestParquetLabels(t *testing.T) {
	tests := []struct {
		name     string
		path     string
		positive string
		want     []int
	}{
		{"0/1", writeParquet(t, []withLabel[int64]{{1, 0}, {2, 1}, {3, 0}}), "", []int{0, 1, 0}},
		{"-1/1: -1 is the outlier", writeParquet(t, []withLabel[int32]{{1, 1}, {2, -1}, {3, 1}}), "", []int{0, 1, 0}},
		{"true/false", writeParquet(t, []withLabel[bool]{{1, false}, {2, true}, {3, true}}), "", []int{0, 1, 1}},
		{"0.0/1.0 doubles", writeParquet(t, []withLabel[float64]{{1, 1}, {2, 0}, {3, 0}}), "", []int{1, 0, 0}},
		{"strings with --positive", writeParquet(t, []withLabel[string]{{1, "ok"}, {2, "fraud"}, {3, "ok"}}), "fraud", []int{0, 1, 0}},
		{"numbers with --positive", writeParquet(t, []withLabel[int32]{{1, 1}, {2, 2}, {3, 1}}), "1", []int{1, 0, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ds, err := Load(tc.path, LoadOptions{LabelColumn: "label", Positive: tc.positive})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ds.Y, tc.want) || !slices.Equal(ds.X, f32([]float64{1, 2, 3})) {
				t.Errorf("X %v, Y %v, want Y %v", ds.X, ds.Y, tc.want)
			}
		})
	}
}

func TestParquetSelection(t *testing.T) {
	path := writeParquet(t, []withText{{"x", 1, 0, "k"}, {"y", 2, 1, "k"}})
	tests := []struct {
		name     string
		sel      Selection
		features []string
		ids      []string
		text     []string
	}{
		{"--drop-text", Selection{DropText: true}, []string{"a"}, nil, []string{"name", "when", "kind"}},
		{"--columns", Selection{Columns: []string{"a"}}, []string{"a"}, nil, nil},
		{"--drop with --id", Selection{ID: "name", Drop: []string{"when", "kind"}}, []string{"a"}, []string{"x", "y"}, nil},
		{"a timestamp as the id", Selection{ID: "when", DropText: true}, []string{"a"}, []string{"0", "1"}, []string{"name", "kind"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ds, err := Load(path, LoadOptions{Selection: tc.sel})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ds.Features, tc.features) || !slices.Equal(ds.IDs, tc.ids) || !slices.Equal(ds.TextDropped, tc.text) {
				t.Errorf("features %q ids %q text %q; want %q %q %q", ds.Features, ds.IDs, ds.TextDropped, tc.features, tc.ids, tc.text)
			}
		})
	}
}

// TestParquetCorrupt checks that a truncated or bit-flipped file is an error, never a
// panic.
func TestParquetCorrupt(t *testing.T) {
	b, err := os.ReadFile(writeParquet(t, []allTypes{{ID: "a", F64: 1}, {ID: "b", F64: 2}}))
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{0, 4, len(b) / 2, len(b) - 9, len(b) - 1} {
		if _, err := decodeParquet(bytes.NewReader(b[:cut]), int64(cut), LoadOptions{}, fuzzLimits); !errors.Is(err, ErrFormat) {
			t.Errorf("cut at %d: error %v, want ErrFormat", cut, err)
		}
	}
}

// BenchmarkLoad loads the same 10⁶ × 20 table as Parquet and as CSV; it reports rows/s.
// With UDOCC_BENCH_DIR set, the files are written there once and kept, so that the peak
// RSS /usr/bin/time -v gives for a run of one sub-benchmark is its load's alone.
func BenchmarkLoad(b *testing.B) {
	const n, d = 1_000_000, 20
	paths := benchTables(b, n, d)
	for _, format := range []string{"parquet", "csv", "csv.gz", "npy"} {
		b.Run(format, func(b *testing.B) {
			for b.Loop() {
				ds, err := Load(paths[format], LoadOptions{})
				if err != nil || ds.N != n {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

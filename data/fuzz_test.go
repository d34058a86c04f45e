package data

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"testing"

	"github.com/udocc/udocc/internal/mat5"
)

// smallXY is a 3×2 matrix with labels, the seed of the fuzz targets.
var (
	smallX = []float64{1, 2, 3, 4, 5, 6}
	smallY = []float64{0, 1, 0}
)

// checkDecoded asserts the property every successful decode must have.
func checkDecoded(t *testing.T, ds *Dataset) {
	t.Helper()
	if err := ds.Validate(); err != nil {
		t.Fatalf("decoded data set fails Validate: %v", err)
	}
}

func FuzzMAT(f *testing.F) {
	for _, opts := range []mat5.WriteOptions{{}, {Compress: true}, {BigEndian: true}, {Compress: true, BigEndian: true}} {
		f.Add(matBytes(f, opts,
			mat5.Var{Name: "X", Rows: 3, Cols: 2, Data: smallX, Storage: mat5.Uint8},
			mat5.Var{Name: "y", Rows: 3, Cols: 1, Data: smallY, Class: mat5.ClassUint8, Logical: true}))
	}
	f.Add(matBytes(f, mat5.WriteOptions{Compress: true},
		mat5.Var{Name: "X", Rows: 3, Cols: 2, Data: smallX, Class: mat5.ClassSingle},
		mat5.Var{Name: "y", Rows: 1, Cols: 3, Data: smallY, Storage: mat5.Int16}))
	f.Fuzz(func(t *testing.T, b []byte) {
		ds, err := decodeMAT(b, LoadOptions{})
		if err != nil {
			return
		}
		checkDecoded(t, ds)
		// What was read must survive a write and a second read unchanged.
		y := make([]float64, len(ds.Y))
		for i, v := range ds.Y {
			y[i] = float64(v)
		}
		vars := []mat5.Var{{Name: "X", Rows: ds.N, Cols: ds.D, Data: f64(ds.X)}}
		if ds.Y != nil {
			vars = append(vars, mat5.Var{Name: "y", Rows: ds.N, Cols: 1, Data: y})
		}
		again, err := decodeMAT(matBytes(t, mat5.WriteOptions{Compress: true}, vars...), LoadOptions{})
		if err != nil {
			t.Fatalf("re-read: %v", err)
		}
		for k := range ds.X {
			if math.Float32bits(ds.X[k]) != math.Float32bits(again.X[k]) {
				t.Fatalf("value %d: %v then %v", k, ds.X[k], again.X[k])
			}
		}
	})
}

func FuzzCSV(f *testing.F) {
	f.Add([]byte("a,b,label\n1,2,0\n3.5,-4e2,1\n"), int8(-1))
	f.Add([]byte("a;b;label\n1;2;0\n3;4;1\n"), int8(2))
	f.Add([]byte("\"a\"\t\"b\"\n1\t2\n"), int8(-1))
	f.Add([]byte("x\n1\n\n2\n"), int8(0))
	f.Fuzz(func(t *testing.T, b []byte, label int8) {
		opts := LoadOptions{}
		opts.LabelNumber = max(int(label)+1, 0)
		ds, err := decodeCSV(b, opts)
		if err != nil {
			return
		}
		checkDecoded(t, ds)
	})
}

func FuzzNPZ(f *testing.F) {
	x := binary.LittleEndian.AppendUint64(nil, math.Float64bits(1.5))
	x = binary.LittleEndian.AppendUint64(x, math.Float64bits(-2))
	xnpy := npyBytes("<f8", false, []int{2, 1}, x)
	ynpy := npyBytes("|u1", false, []int{2}, []byte{0, 1})
	f.Add(npzBytes(f, false, []string{"X", "y"}, [][]byte{xnpy, ynpy}), xnpy, ynpy)
	f.Add(npzBytes(f, true, []string{"X", "y"}, [][]byte{xnpy, ynpy}), npyBytes(">i2", true, []int{2, 2}, make([]byte, 8)),
		npyBytes("|b1", false, []int{2, 1}, []byte{1, 0}))
	f.Fuzz(func(t *testing.T, raw, xnpy, ynpy []byte) {
		// The raw archive exercises the zip layer; archives built from the
		// two payloads reach the .npy parser with valid zip checksums.
		for _, b := range [][]byte{raw, npzBytes(t, false, []string{"X", "y"}, [][]byte{xnpy, ynpy})} {
			if ds, err := decodeNPZ(b, LoadOptions{}); err == nil {
				checkDecoded(t, ds)
			}
		}
		if ds, err := decodeNPY(bytes.NewReader(xnpy), int64(len(xnpy)), LoadOptions{}); err == nil {
			checkDecoded(t, ds)
		}
	})
}

// fuzzLimits keep a fuzzed Parquet file that declares billions of rows or a huge page
// from allocating them, well below Load's limits.
var fuzzLimits = parquetLimits{values: 1 << 20, pageBytes: 1 << 24}

func FuzzParquet(f *testing.F) {
	for _, path := range []string{
		writeParquet(f, []allTypes{{ID: "a", I32: 1, F64: 2, Dec64: 3, Label: true}, {ID: "b", U64: 4, Dec32: -5}}),
		writeParquet(f, []withNull{{A: 1}, {A: 2}}),
		writeParquet(f, []withLabel[string]{{1, "ok"}, {2, "bad"}}),
		writeBig(f, f.TempDir(), 20, 3)["parquet"],
	} {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "label", "ok", true)
	}
	f.Fuzz(func(t *testing.T, b []byte, label, positive string, dropText bool) {
		opts := LoadOptions{LabelColumn: label, Positive: positive, Selection: Selection{DropText: dropText}}
		ds, err := decodeParquet(bytes.NewReader(b), int64(len(b)), opts, fuzzLimits)
		if err != nil {
			return
		}
		checkDecoded(t, ds)
	})
}

func FuzzGzipCSV(f *testing.F) {
	f.Add(gzipBytes(f, []byte("id,a,label\nx,1,0\ny,2,1\n")), "label", true)
	f.Add(gzipBytes(f, []byte("a\tb\n1\t2\n")), "", false)
	f.Add(append(gzipBytes(f, []byte("a;b\n1;")), gzipBytes(f, []byte("2\n3;4\n"))...), "b", false)
	f.Fuzz(func(t *testing.T, b []byte, label string, dropText bool) {
		text, err := gunzip(b)
		if err != nil {
			return
		}
		opts := LoadOptions{LabelColumn: label, Selection: Selection{DropText: dropText}}
		if ds, err := decodeCSV(text, opts); err == nil {
			checkDecoded(t, ds)
		}
	})
}

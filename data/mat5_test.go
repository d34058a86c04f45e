package data

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/udocc/udocc/internal/mat5"
)

// valuesFor returns n values exactly representable in storage t.
func valuesFor(rng *rand.Rand, t mat5.Type, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		switch t {
		case mat5.Double:
			v[i] = rng.NormFloat64() * 1e3
		case mat5.Single:
			v[i] = float64(float32(rng.NormFloat64()))
		case mat5.Int8:
			v[i] = float64(rng.IntN(256) - 128)
		case mat5.Uint8:
			v[i] = float64(rng.IntN(256))
		case mat5.Int16:
			v[i] = float64(rng.IntN(1<<16) - 1<<15)
		case mat5.Uint16:
			v[i] = float64(rng.IntN(1 << 16))
		case mat5.Int32:
			v[i] = float64(int32(rng.Uint32()))
		case mat5.Uint32:
			v[i] = float64(rng.Uint32())
		case mat5.Int64:
			v[i] = float64(rng.Int64N(1<<53) - 1<<52)
		case mat5.Uint64:
			v[i] = float64(rng.Uint64N(1 << 53))
		}
	}
	return v
}

func TestMATRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	tests := []struct {
		name    string
		class   mat5.Class
		storage mat5.Type
	}{
		{"double as double", mat5.ClassDouble, mat5.Double},
		{"double as uint8 (ODDS)", mat5.ClassDouble, mat5.Uint8},
		{"double as int16 (ODDS cover)", mat5.ClassDouble, mat5.Int16},
		{"double as int8", mat5.ClassDouble, mat5.Int8},
		{"double as uint16", mat5.ClassDouble, mat5.Uint16},
		{"double as int32", mat5.ClassDouble, mat5.Int32},
		{"double as uint32", mat5.ClassDouble, mat5.Uint32},
		{"single", mat5.ClassSingle, mat5.Single},
		{"int8", mat5.ClassInt8, mat5.Int8},
		{"uint8", mat5.ClassUint8, mat5.Uint8},
		{"int16", mat5.ClassInt16, mat5.Int16},
		{"uint16", mat5.ClassUint16, mat5.Uint16},
		{"int32", mat5.ClassInt32, mat5.Int32},
		{"uint32", mat5.ClassUint32, mat5.Uint32},
		{"int64", mat5.ClassInt64, mat5.Int64},
		{"uint64", mat5.ClassUint64, mat5.Uint64},
		{"int64 as int16", mat5.ClassInt64, mat5.Int16},
	}
	for _, tc := range tests {
		for _, opts := range []mat5.WriteOptions{{}, {Compress: true}, {BigEndian: true}, {Compress: true, BigEndian: true}} {
			name := tc.name
			if opts.Compress {
				name += "/zlib"
			}
			if opts.BigEndian {
				name += "/big-endian"
			}
			t.Run(name, func(t *testing.T) {
				n, d := 1+rng.IntN(9), 1+rng.IntN(5) // odd byte counts exercise padding
				x := valuesFor(rng, tc.storage, n*d)
				y := make([]float64, n)
				for i := range y {
					y[i] = float64(rng.IntN(2))
				}
				b := matBytes(t, opts,
					mat5.Var{Name: "other", Rows: 1, Cols: 1, Data: []float64{7}},
					mat5.Var{Name: "data", Rows: n, Cols: d, Data: x, Class: tc.class, Storage: tc.storage},
					mat5.Var{Name: "y", Rows: n, Cols: 1, Data: y, Class: mat5.ClassUint8, Logical: true})
				ds, err := Load(writeTemp(t, "rt.mat", b), LoadOptions{XVar: "data"})
				if err != nil {
					t.Fatal(err)
				}
				if ds.N != n || ds.D != d || !slices.Equal(ds.X, f32(x)) {
					t.Fatalf("read %d×%d %v, wrote %d×%d %v", ds.N, ds.D, ds.X, n, d, x)
				}
				for i, v := range y {
					if ds.Y[i] != int(v) {
						t.Fatalf("label %d: read %d, wrote %v", i, ds.Y[i], v)
					}
				}
			})
		}
	}
}

func TestWriteMATRejects(t *testing.T) {
	tests := []struct {
		name string
		v    mat5.Var
	}{
		{"fraction as uint8", mat5.Var{Name: "X", Rows: 1, Cols: 1, Data: []float64{0.5}, Storage: mat5.Uint8}},
		{"256 as uint8", mat5.Var{Name: "X", Rows: 1, Cols: 1, Data: []float64{256}, Storage: mat5.Uint8}},
		{"-1 as uint64", mat5.Var{Name: "X", Rows: 1, Cols: 1, Data: []float64{-1}, Storage: mat5.Uint64}},
		{"2^63 as int64", mat5.Var{Name: "X", Rows: 1, Cols: 1, Data: []float64{1 << 63}, Storage: mat5.Int64}},
		{"0.1 as single", mat5.Var{Name: "X", Rows: 1, Cols: 1, Data: []float64{0.1}, Class: mat5.ClassSingle}},
		{"bad name", mat5.Var{Name: "1X", Rows: 1, Cols: 1, Data: []float64{1}}},
		{"wrong length", mat5.Var{Name: "X", Rows: 2, Cols: 2, Data: []float64{1}}},
		{"char class", mat5.Var{Name: "X", Rows: 1, Cols: 1, Data: []float64{1}, Class: 4}},
		{"logical double", mat5.Var{Name: "X", Rows: 1, Cols: 1, Data: []float64{1}, Logical: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := mat5.Write(&bytes.Buffer{}, []mat5.Var{tc.v}, mat5.WriteOptions{}); err == nil {
				t.Error("no error")
			}
		})
	}
}

// Offsets into an uncompressed little-endian file whose first variable
// is X with a name of at most 4 bytes (see mat5.Write's layout).
const (
	offFlags = 128 + 8 + 8 // array-flags word
	offRows  = 128 + 8 + 16 + 8
	offCols  = offRows + 4
	offReal  = offRows + 8 + 8 // real-part tag
)

func TestMATErrors(t *testing.T) {
	x := mat5.Var{Name: "X", Rows: 2, Cols: 2, Data: []float64{1, 2, 3, 4}}
	y := mat5.Var{Name: "y", Rows: 2, Cols: 1, Data: []float64{0, 1}}
	plain := func(vars ...mat5.Var) []byte { return matBytes(t, mat5.WriteOptions{}, vars...) }
	patch := func(b []byte, off int, v uint32) []byte {
		b = slices.Clone(b)
		binary.LittleEndian.PutUint32(b[off:], v)
		return b
	}
	v73 := append([]byte("MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Mon Jan  1 00:00:00 2024 HDF5 schema 1.00 ."), make([]byte, 600)...)
	hdf5At512 := append(make([]byte, 512), mat5.HDF5Signature...)
	ok := plain(x, y)
	zipped := matBytes(t, mat5.WriteOptions{Compress: true}, x, y)
	zlen := int(binary.LittleEndian.Uint32(zipped[132:])) // first miCOMPRESSED payload
	tests := []struct {
		name string
		b    []byte
		opts LoadOptions
		want error
	}{
		{"v7.3 header text", v73, LoadOptions{}, ErrMATv73},
		{"HDF5 signature at 512", hdf5At512, LoadOptions{}, ErrMATv73},
		{"version 0x0200", patch(ok, 124, 0x4d_49_02_00), LoadOptions{}, ErrMATv73},
		{"short header", ok[:100], LoadOptions{}, ErrFormat},
		{"MAT v4 (no endian indicator)", make([]byte, 200), LoadOptions{}, ErrFormat},
		{"truncated element", ok[:len(ok)-20], LoadOptions{}, errTooLarge},
		{"no X", plain(y), LoadOptions{}, errMissingVariable},
		{"named labels missing", ok, LoadOptions{YVar: "labels"}, errMissingVariable},
		{"labels not read", plain(x, mat5.Var{Name: "y", Rows: 2, Cols: 1, Data: []float64{2, 1}}), LoadOptions{YVar: "-"}, nil},
		{"label 2", plain(x, mat5.Var{Name: "y", Rows: 2, Cols: 1, Data: []float64{2, 1}}), LoadOptions{}, ErrLabel},
		{"label count", plain(x, mat5.Var{Name: "y", Rows: 3, Cols: 1, Data: []float64{0, 1, 0}}), LoadOptions{}, errLengthMismatch},
		{"y not a vector", plain(x, mat5.Var{Name: "y", Rows: 2, Cols: 2, Data: []float64{0, 1, 0, 1}}), LoadOptions{}, ErrFormat},
		{"NaN", plain(mat5.Var{Name: "X", Rows: 1, Cols: 2, Data: []float64{1, math.NaN()}}), LoadOptions{}, errNonFinite},
		{"Inf", plain(mat5.Var{Name: "X", Rows: 1, Cols: 2, Data: []float64{math.Inf(1), 1}}), LoadOptions{}, errNonFinite},
		{"zero rows", plain(mat5.Var{Name: "X", Rows: 0, Cols: 3}), LoadOptions{}, errEmpty},
		{"zero columns", plain(mat5.Var{Name: "X", Rows: 3, Cols: 0}), LoadOptions{}, errEmpty},
		{"dims claim 2^62 values", patch(patch(ok, offRows, math.MaxInt32), offCols, math.MaxInt32), LoadOptions{}, errTooLarge},
		{"real part claims 4 GiB", patch(ok, offReal+4, math.MaxUint32), LoadOptions{}, errTooLarge},
		{"not zlib", patch(zipped, 136, 0), LoadOptions{}, ErrFormat},
		{"zlib stream cut short", patch(zipped[:136+zlen/2], 132, uint32(zlen/2)), LoadOptions{}, ErrFormat},
		{"complex", patch(ok, offFlags, 6|mat5.FlagComplex), LoadOptions{}, errNotNumeric},
		{"char class", patch(ok, offFlags, 4), LoadOptions{}, errNotNumeric},
		{"3-D", patch(ok, offRows-4, 12), LoadOptions{}, ErrFormat},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(writeTemp(t, "bad.mat", tc.b), tc.opts)
			if !errors.Is(err, tc.want) || (err == nil) != (tc.want == nil) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if err != nil && !bytes.Contains([]byte(err.Error()), []byte("bad.mat")) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

// TestMATSkipsOtherElements checks that elements which hold no wanted
// variable (a small data element, an empty matrix, a non-matrix element)
// are stepped over.
func TestMATSkipsOtherElements(t *testing.T) {
	b := matBytes(t, mat5.WriteOptions{}, mat5.Var{Name: "X", Rows: 1, Cols: 2, Data: []float64{3, 4}})
	var extra []byte
	extra = binary.LittleEndian.AppendUint32(extra, 4<<16|uint32(mat5.Uint8)) // small element
	extra = append(extra, 1, 2, 3, 4)
	extra = binary.LittleEndian.AppendUint32(extra, uint32(mat5.Matrix)) // empty matrix
	extra = binary.LittleEndian.AppendUint32(extra, 0)
	extra = binary.LittleEndian.AppendUint32(extra, uint32(mat5.Double)) // stray element
	extra = binary.LittleEndian.AppendUint32(extra, 3)
	extra = append(extra, 1, 2, 3, 0, 0, 0, 0, 0)
	b = slices.Concat(b[:128], extra, b[128:])
	ds, err := Load(writeTemp(t, "skip.mat", b), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ds.X, f32([]float64{3, 4})) || ds.Y != nil || !slices.Equal(ds.Features, []string{"x1", "x2"}) {
		t.Errorf("%+v", ds)
	}
}

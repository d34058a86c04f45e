package data

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/sbinet/npyio/npy"
	"github.com/sbinet/npyio/npz"
	"gonum.org/v1/gonum/mat"

	"github.com/udocc/udocc/internal/mat5"
)

// TestNPZRoundTripNpyio writes with npyio's own writer (format 2.0) and
// reads back exactly.
func TestNPZRoundTripNpyio(t *testing.T) {
	x := []float64{0.1, -2, 3e30, 4, 5.5, -6e-30} // within float32's range, the table's
	tests := []struct {
		name string
		y    any
	}{
		{"float64 y", []float64{0, 1, 0}},
		{"int64 y", []int64{0, 1, 0}},
		{"int32 y", []int32{0, 1, 0}},
		{"uint8 y", []uint8{0, 1, 0}},
		{"bool y", []bool{false, true, false}},
		{"float32 y", []float32{0, 1, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			w := npz.NewWriter(&b)
			if err := w.Write("X.npy", mat.NewDense(3, 2, x)); err != nil {
				t.Fatal(err)
			}
			if err := w.Write("y.npy", tc.y); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			ds, err := Load(writeTemp(t, "rt.npz", b.Bytes()), LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if ds.N != 3 || ds.D != 2 || !slices.Equal(ds.X, f32(x)) || !slices.Equal(ds.Y, []int{0, 1, 0}) {
				t.Errorf("read %d×%d %v %v", ds.N, ds.D, ds.X, ds.Y)
			}
		})
	}
	t.Run("npy", func(t *testing.T) {
		var b bytes.Buffer
		if err := npy.Write(&b, mat.NewDense(2, 3, x)); err != nil {
			t.Fatal(err)
		}
		ds, err := Load(writeTemp(t, "rt.npy", b.Bytes()), LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ds.N != 2 || ds.D != 3 || !slices.Equal(ds.X, f32(x)) || ds.Y != nil {
			t.Errorf("read %d×%d %v %v", ds.N, ds.D, ds.X, ds.Y)
		}
	})
}

// TestNPYDtypes reads every accepted dtype, in both byte orders and both
// memory orders, from files laid out as numpy.save writes them.
func TestNPYDtypes(t *testing.T) {
	// A 2×3 matrix of small integers every dtype holds: row-major values.
	want := []float64{0, 1, 2, 3, 4, 5}
	for dtype, size := range npyDtypes {
		for _, fortran := range []bool{false, true} {
			name := dtype
			if fortran {
				name += "/fortran"
			}
			t.Run(name, func(t *testing.T) {
				vals := want
				if fortran {
					vals = []float64{0, 3, 1, 4, 2, 5}
				}
				if dtype == "|b1" {
					vals = []float64{0, 1, 1, 1, 1, 1}
				}
				var order mat5.Order = binary.LittleEndian
				if dtype[0] == '>' {
					order = binary.BigEndian
				}
				raw := make([]byte, 0, len(vals)*size)
				for _, v := range vals {
					raw = appendNPYValue(raw, order, dtype[1:], v)
				}
				ds, err := Load(writeTemp(t, "x.npy", npyBytes(dtype, fortran, []int{2, 3}, raw)), LoadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				expect := want
				if dtype == "|b1" {
					expect = vals // 0 then ones reads the same in either order
				}
				if ds.N != 2 || ds.D != 3 || !slices.Equal(ds.X, f32(expect)) {
					t.Errorf("read %d×%d %v, want 2×3 %v", ds.N, ds.D, ds.X, expect)
				}
			})
		}
	}
}

// appendNPYValue appends v encoded as the NumPy kind+size code.
func appendNPYValue(b []byte, order mat5.Order, code string, v float64) []byte {
	switch code {
	case "b1", "u1", "i1":
		return append(b, byte(v))
	case "u2", "i2":
		return order.AppendUint16(b, uint16(v))
	case "u4", "i4":
		return order.AppendUint32(b, uint32(v))
	case "f4":
		return order.AppendUint32(b, math.Float32bits(float32(v)))
	case "u8", "i8":
		return order.AppendUint64(b, uint64(v))
	}
	return order.AppendUint64(b, math.Float64bits(v))
}

func TestNPYErrors(t *testing.T) {
	f8 := func(vs ...float64) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		return b
	}
	x := npyBytes("<f8", false, []int{2, 1}, f8(1, 2))
	zipped := func(names []string, payloads ...[]byte) []byte { return npzBytes(t, true, names, payloads) }
	hugeHeader := slices.Clone(x)
	hugeHeader[6], hugeHeader[8], hugeHeader[9] = 2, 0xff, 0xff // version 2.0, 4 GiB header
	hugeHeader = append(hugeHeader[:12], 0xff, 0xff)
	tests := []struct {
		name string
		file string
		b    []byte
		opts LoadOptions
		want error
	}{
		{"no magic", "x.npy", []byte("PK\x03\x04 not npy"), LoadOptions{}, ErrFormat},
		{"header length past the end", "x.npy", hugeHeader, LoadOptions{}, errTooLarge},
		{"version 3", "x.npy", append(append([]byte{}, x[:6]...), append([]byte{3, 0}, x[8:]...)...), LoadOptions{}, ErrFormat},
		{"shape claims 2^40 values", "x.npy", npyBytes("<f8", false, []int{1 << 20, 1 << 20}, f8(1)), LoadOptions{}, errTooLarge},
		{"data short of the shape", "x.npy", npyBytes("<f8", false, []int{2, 2}, f8(1, 2, 3, 4)[:31]), LoadOptions{}, errTooLarge},
		{"data past the shape", "x.npy", npyBytes("<f8", false, []int{2, 1}, f8(1, 2, 3)), LoadOptions{}, ErrFormat},
		{"complex dtype", "x.npy", npyBytes("<c16", false, []int{1, 1}, make([]byte, 16)), LoadOptions{}, errNotNumeric},
		{"object dtype", "x.npy", npyBytes("|O", false, []int{1, 1}, make([]byte, 8)), LoadOptions{}, errNotNumeric},
		{"bool byte 2", "x.npy", npyBytes("|b1", false, []int{1, 2}, []byte{1, 2}), LoadOptions{}, ErrFormat},
		{"1-D X", "x.npy", npyBytes("<f8", false, []int{2}, f8(1, 2)), LoadOptions{}, ErrFormat},
		{"3-D X", "x.npy", npyBytes("<f8", false, []int{1, 2, 1}, f8(1, 2)), LoadOptions{}, ErrFormat},
		{"zero rows", "x.npy", npyBytes("<f8", false, []int{0, 3}, nil), LoadOptions{}, errEmpty},
		{"zero columns", "x.npy", npyBytes("<f8", false, []int{3, 0}, nil), LoadOptions{}, errEmpty},
		{"NaN", "x.npy", npyBytes("<f8", false, []int{1, 2}, f8(1, math.NaN())), LoadOptions{}, errNonFinite},
		{"keys out of NumPy's order", "x.npy", []byte(strings.Replace(string(x), "{'descr': '<f8', 'fortran_order': False,", "{'fortran_order': False, 'descr': '<f8',", 1)), LoadOptions{}, ErrFormat},
		{"not a zip", "x.npz", []byte("nope"), LoadOptions{}, ErrFormat},
		{"no X", "x.npz", zipped([]string{"y"}, npyBytes("|u1", false, []int{2}, []byte{0, 1})), LoadOptions{}, errMissingVariable},
		{"named y missing", "x.npz", zipped([]string{"X"}, x), LoadOptions{YVar: "labels"}, errMissingVariable},
		{"y 2-D", "x.npz", zipped([]string{"X", "y"}, x, npyBytes("|u1", false, []int{1, 2}, []byte{0, 1})), LoadOptions{}, ErrFormat},
		{"y length", "x.npz", zipped([]string{"X", "y"}, x, npyBytes("|u1", false, []int{3}, []byte{0, 1, 0})), LoadOptions{}, errLengthMismatch},
		{"y value 3", "x.npz", zipped([]string{"X", "y"}, x, npyBytes("|u1", false, []int{2}, []byte{0, 3})), LoadOptions{}, ErrLabel},
		{"y NaN", "x.npz", zipped([]string{"X", "y"}, x, npyBytes("<f8", false, []int{2}, f8(0, math.NaN()))), LoadOptions{}, ErrLabel},
		{"unknown extension", "x.xlsx", x, LoadOptions{}, ErrUnknownFormat},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(writeTemp(t, tc.file, tc.b), tc.opts)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.file) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

// TestNPYInt64IDs: an int64 id column near 2^62 keeps every id exactly, as text (carried
// as a float64 they collapsed: 2^62+1 and 2^62+2 both became 4611686018427387904).
func TestNPYInt64IDs(t *testing.T) {
	ids := []int64{1<<62 + 1, 1<<62 + 2, -(1<<62 + 3)}
	var raw []byte
	for i, id := range ids {
		raw = binary.LittleEndian.AppendUint64(raw, uint64(id))
		raw = binary.LittleEndian.AppendUint64(raw, uint64(i))
	}
	opts := LoadOptions{}
	opts.Selection.ID = "x1"
	ds, err := Load(writeTemp(t, "x.npy", npyBytes("<i8", false, []int{3, 2}, raw)), opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"4611686018427387905", "4611686018427387906", "-4611686018427387907"}
	if !slices.Equal(ds.IDs, want) {
		t.Errorf("ids %q, want %q", ds.IDs, want)
	}
	var uraw []byte
	for i, id := range []uint64{1<<64 - 1, 1<<63 + 1} {
		uraw = binary.LittleEndian.AppendUint64(uraw, id)
		uraw = binary.LittleEndian.AppendUint64(uraw, uint64(i))
	}
	ds, err = Load(writeTemp(t, "u.npy", npyBytes("<u8", false, []int{2, 2}, uraw)), opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"18446744073709551615", "9223372036854775809"}; !slices.Equal(ds.IDs, want) {
		t.Errorf("uint64 ids %q, want %q", ds.IDs, want)
	}
}

// TestReadBlocks: readBlocks yields a stream's bytes, and their count, at every length
// around its block size, and passes on a read error.
func TestReadBlocks(t *testing.T) {
	for _, n := range []int{0, 1, streamBlock - 1, streamBlock, streamBlock + 1, 3*streamBlock + 5} {
		want := make([]byte, n)
		for i := range want {
			want[i] = byte(i*7 + i/streamBlock)
		}
		r, got, err := readBlocks(bytes.NewReader(want))
		if err != nil || got != int64(n) {
			t.Fatalf("%d bytes: count %d, error %v", n, got, err)
		}
		b, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(b, want) {
			t.Fatalf("%d bytes: read back %d bytes (equal: %v), error %v", n, len(b), bytes.Equal(b, want), err)
		}
	}
	boom := errors.New("boom")
	if _, _, err := readBlocks(io.MultiReader(bytes.NewReader(make([]byte, streamBlock+3)), iotest.ErrReader(boom))); !errors.Is(err, boom) {
		t.Fatalf("a failing stream: error %v, want %v", err, boom)
	}
}

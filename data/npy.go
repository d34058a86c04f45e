package data

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/sbinet/npyio/npy"
)

// npyArray is a decoded .npy array: its shape and values in C (row-major)
// order.
type npyArray struct {
	dtype  string
	shape  []int
	values []float64
}

// npyHeaderRE matches the header dictionary exactly as NumPy (and npyio)
// write it, padding and newline included. npyio's own header parser slices
// by these fixed offsets and panics or misreads on other layouts, so any
// other layout is rejected before npyio sees it.
var npyHeaderRE = regexp.MustCompile(`^\{'descr': '([^']*)', 'fortran_order': (True|False), 'shape': \(([0-9, ]*)\), \} *\n$`)

// npyDtypes are the dtypes read, by their NumPy descr, with their size.
var npyDtypes = map[string]int{
	"|b1": 1, "|u1": 1, "|i1": 1,
	"<u2": 2, ">u2": 2, "<i2": 2, ">i2": 2,
	"<u4": 4, ">u4": 4, "<i4": 4, ">i4": 4, "<f4": 4, ">f4": 4,
	"<u8": 8, ">u8": 8, "<i8": 8, ">i8": 8, "<f8": 8, ">f8": 8,
}

// parseNPY decodes one .npy file (format versions 1.0 and 2.0, NEP 1).
// The header is checked, and the declared shape compared with the bytes
// present, before npyio allocates anything: a header claiming 2^40 values
// is an error, not an allocation.
func parseNPY(b []byte) (*npyArray, error) {
	if !bytes.HasPrefix(b, npy.Magic[:]) || len(b) < 10 {
		return nil, fmt.Errorf("no NumPy magic \"\\x93NUMPY\" at byte 0: %w", ErrFormat)
	}
	var hlen, start int
	switch major := b[6]; major {
	case 1:
		hlen, start = int(b[8])|int(b[9])<<8, 10
	case 2:
		if len(b) < 12 {
			return nil, fmt.Errorf("byte 8: truncated header length: %w", ErrFormat)
		}
		hlen, start = int(b[8])|int(b[9])<<8|int(b[10])<<16|int(b[11])<<24, 12
	default:
		return nil, fmt.Errorf("byte 6: format version %d.%d, want 1.0 or 2.0: %w", major, b[7], ErrFormat)
	}
	if hlen > len(b)-start {
		return nil, fmt.Errorf("byte 8: header declares %d bytes, %d left: %w", hlen, len(b)-start, ErrTooLarge)
	}
	m := npyHeaderRE.FindSubmatch(b[start : start+hlen])
	if m == nil {
		return nil, fmt.Errorf("byte %d: header %q is not a NumPy header dictionary: %w", start, b[start:start+hlen], ErrFormat)
	}
	dtype, fortran := string(m[1]), string(m[2]) == "True"
	size, ok := npyDtypes[dtype]
	if !ok {
		return nil, fmt.Errorf("dtype %q (want bool, intN, uintN, float32 or float64): %w", dtype, ErrNotNumeric)
	}
	shape, err := parseShape(string(m[3]))
	if err != nil {
		return nil, fmt.Errorf("byte %d: %w", start, err)
	}
	data := b[start+hlen:]
	count := len(data) / size
	numel, ok := product(shape, count)
	if !ok {
		return nil, fmt.Errorf("shape %v needs more than the %d bytes of data present: %w", shape, len(data), ErrTooLarge)
	}
	if numel*size != len(data) {
		return nil, fmt.Errorf("shape %v of %s needs %d bytes of data, %d present: %w", shape, dtype, numel*size, len(data), ErrFormat)
	}
	if dtype == "|b1" {
		if k := slices.IndexFunc(data, func(c byte) bool { return c > 1 }); k >= 0 {
			return nil, fmt.Errorf("element %d: bool byte %d: %w", k, data[k], ErrFormat)
		}
	}
	r, err := npy.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("npyio: %v: %w", err, ErrFormat)
	}
	if h := r.Header.Descr; h.Type != dtype || h.Fortran != fortran || !slices.Equal(h.Shape, shape) {
		return nil, fmt.Errorf("npyio read header %v, want %s %v: %w", r.Header, dtype, shape, ErrFormat)
	}
	values, err := npyRead(r, dtype, numel)
	if err != nil {
		return nil, fmt.Errorf("npyio: %v: %w", err, ErrFormat)
	}
	if fortran && len(shape) == 2 {
		values = transpose(values, shape[1], shape[0])
	} else if fortran && len(shape) > 2 {
		return nil, fmt.Errorf("%d-D array in Fortran order: %w", len(shape), ErrFormat)
	}
	return &npyArray{dtype: dtype, shape: shape, values: values}, nil
}

// parseShape parses the inside of a shape tuple in NumPy's canonical
// spelling: "", "3," or "3, 4".
func parseShape(s string) ([]int, error) {
	var shape []int
	for _, tok := range strings.Split(strings.TrimSuffix(s, ","), ",") {
		tok = strings.TrimSpace(tok)
		if tok == "" && s == "" {
			break
		}
		v, err := strconv.Atoi(tok)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("shape (%s): %w", s, ErrFormat)
		}
		shape = append(shape, v)
	}
	canon := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(shape)), ", "), "[]")
	if len(shape) == 1 {
		canon += ","
	}
	if canon != s {
		return nil, fmt.Errorf("shape (%s) is not in NumPy's spelling (%s): %w", s, canon, ErrFormat)
	}
	return shape, nil
}

// npyRead reads n values of dtype through npyio and converts them.
func npyRead(r *npy.Reader, dtype string, n int) ([]float64, error) {
	switch dtype[1:] {
	case "b1":
		v := make([]bool, n)
		if err := r.Read(&v); err != nil {
			return nil, err
		}
		out := make([]float64, n)
		for i, b := range v {
			if b {
				out[i] = 1
			}
		}
		return out, nil
	case "u1":
		return readConv[uint8](r, n)
	case "i1":
		return readConv[int8](r, n)
	case "u2":
		return readConv[uint16](r, n)
	case "i2":
		return readConv[int16](r, n)
	case "u4":
		return readConv[uint32](r, n)
	case "i4":
		return readConv[int32](r, n)
	case "f4":
		return readConv[float32](r, n)
	case "u8":
		return readConv[uint64](r, n)
	case "i8":
		return readConv[int64](r, n)
	}
	return readConv[float64](r, n)
}

// readConv reads n values of type T and converts them to float64.
func readConv[T uint8 | int8 | uint16 | int16 | uint32 | int32 | uint64 | int64 | float32 | float64](r *npy.Reader, n int) ([]float64, error) {
	v := make([]T, n)
	if err := r.Read(&v); err != nil {
		return nil, err
	}
	out := make([]float64, n)
	for i, x := range v {
		out[i] = float64(x)
	}
	return out, nil
}

// transpose turns an r×c column-major matrix into row-major order.
func transpose(v []float64, c, r int) []float64 {
	out := make([]float64, len(v))
	for j := 0; j < c; j++ {
		for i := 0; i < r; i++ {
			out[i*c+j] = v[j*r+i]
		}
	}
	return out
}

// decodeNPY reads a .npy file holding a 2-D X; it has no labels.
func decodeNPY(b []byte) (*Dataset, error) {
	a, err := parseNPY(b)
	if err != nil {
		return nil, err
	}
	return npyDataset(a, nil, "array")
}

// decodeNPZ reads X and optional y arrays from a .npz archive (a zip of
// .npy files, as numpy.savez and ADBench write them).
func decodeNPZ(b []byte, opts LoadOptions) (*Dataset, error) {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, fmt.Errorf("zip: %v: %w", err, ErrFormat)
	}
	xName := opts.xVar()
	x, err := npzEntry(zr, xName)
	if err != nil {
		return nil, err
	}
	if x == nil {
		return nil, fmt.Errorf("array %q: %w", xName, ErrMissingVariable)
	}
	yName, required := opts.yVar()
	var y *npyArray
	if yName != "" {
		if y, err = npzEntry(zr, yName); err != nil {
			return nil, err
		}
		if y == nil && required {
			return nil, fmt.Errorf("array %q: %w", yName, ErrMissingVariable)
		}
	}
	return npyDataset(x, y, xName)
}

// npzEntry decodes the array name ("name.npy" in the archive, or "name"),
// or returns nil if the archive has no such entry.
func npzEntry(zr *zip.Reader, name string) (*npyArray, error) {
	for _, f := range zr.File {
		if f.Name != name+".npy" && f.Name != name {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("array %q: zip: %v: %w", name, err, ErrFormat)
		}
		defer rc.Close()
		// Read what the stream yields, never allocating from the declared
		// size, and check the two agree.
		b, err := io.ReadAll(io.LimitReader(rc, int64(min(f.UncompressedSize64, 1<<62))+1))
		if err != nil {
			return nil, fmt.Errorf("array %q: zip: %v: %w", name, err, ErrFormat)
		}
		if uint64(len(b)) != f.UncompressedSize64 {
			return nil, fmt.Errorf("array %q: zip entry declares %d bytes, holds %d: %w", name, f.UncompressedSize64, len(b), ErrFormat)
		}
		a, err := parseNPY(b)
		if err != nil {
			return nil, fmt.Errorf("array %q: %w", name, err)
		}
		return a, nil
	}
	return nil, nil
}

// npyDataset checks shapes (X 2-D; y of shape (n,) or (n, 1)) and builds
// the Dataset.
func npyDataset(x, y *npyArray, xName string) (*Dataset, error) {
	if len(x.shape) != 2 {
		return nil, fmt.Errorf("array %q: shape %v, want 2-D (n, d): %w", xName, x.shape, ErrFormat)
	}
	var yv []float64
	if y != nil {
		if !(len(y.shape) == 1 || len(y.shape) == 2 && y.shape[1] == 1) {
			return nil, fmt.Errorf("labels: shape %v, want (n,) or (n, 1): %w", y.shape, ErrFormat)
		}
		yv = y.values
	}
	return newDataset(x.shape[0], x.shape[1], x.values, yv, nil)
}

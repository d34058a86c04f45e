package data

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/udocc/udocc/internal/mat5"
)

// matArray is one top-level MAT v5 variable whose header has been parsed;
// its real part is decoded only when the variable is wanted.
type matArray struct {
	name    string
	offset  int // byte offset of the top-level element in the file
	class   mat5.Class
	complex bool
	dims    []int
	storage mat5.Type
	real    []byte
}

// decodeMAT reads the variables named by opts from a MAT v5 file.
//
// Layout (MathWorks, "MAT-File Format", matfile_format.pdf): a 128-byte
// header (116 bytes of text, 8 of subsystem offset, a uint16 version 0x0100
// and the endian indicator "IM" or "MI"), then data elements, each an 8-byte
// tag (uint32 type, uint32 byte count) and its data padded to 8 bytes. A
// miCOMPRESSED element is a zlib stream that inflates to one miMATRIX element
// and is not padded. A "small data element" packs the byte count (≤ 4) into
// the upper half of the type word and its data into the next 4 bytes.
func decodeMAT(b []byte, opts LoadOptions) (*Dataset, error) {
	order, err := matHeader(b)
	if err != nil {
		return nil, err
	}
	xName := opts.xVar()
	yName, yRequired := opts.yVar()
	var x, y *matArray
	// Every variable is read, so that one named twice is refused: SciPy reads the last,
	// a reader that read the first would train on other numbers.
	for off := mat5.HeaderLen; off < len(b); {
		a, next, err := matTopElement(b, off, order)
		if err != nil {
			return nil, err
		}
		var seen *matArray
		switch {
		case a == nil:
		case a.name == xName:
			seen, x = x, a
		case yName != "" && a.name == yName:
			seen, y = y, a
		}
		if seen != nil {
			return nil, fmt.Errorf("variable %q: the file holds it twice (at bytes %d and %d): %w", a.name, seen.offset, a.offset, ErrFormat)
		}
		off = next
	}
	if x == nil {
		return nil, fmt.Errorf("variable %q: %w", xName, errMissingVariable)
	}
	if y == nil && yRequired {
		return nil, fmt.Errorf("variable %q: %w", yName, errMissingVariable)
	}
	if err := x.check(); err != nil {
		return nil, err
	}
	if len(x.dims) != 2 {
		return nil, fmt.Errorf("variable %q: %d dimensions %v, want a 2-D matrix: %w", x.name, len(x.dims), x.dims, ErrFormat)
	}
	n, d := x.dims[0], x.dims[1]
	if n == 0 || d == 0 {
		return nil, fmt.Errorf("variable %q: %d×%d: %w", x.name, n, d, errEmpty)
	}
	// Column-major (MATLAB order) to row-major, a column at a time: to float32 as the
	// table holds it, and at full precision beside it where LoadOptions.wide asks.
	var rows []float32
	var wide []float64
	if opts.wide() {
		wide = make([]float64, n*d)
	} else {
		rows = make([]float32, n*d)
	}
	sz := x.storage.Size()
	for j := 0; j < d; j++ {
		for i, v := range x.storage.Decode(order, x.real[j*n*sz:(j+1)*n*sz]) {
			if wide != nil {
				wide[i*d+j] = v
				continue
			}
			f, ok := narrow32(v)
			if !ok {
				return nil, fmt.Errorf("variable %q: row %d, column %d: %v: %w", x.name, i+1, j+1, v, errRange)
			}
			rows[i*d+j] = f
		}
	}
	var yv []float64
	if y != nil {
		var err error
		if yv, err = y.values(order); err != nil {
			return nil, err
		}
		if len(y.dims) != 2 || (y.dims[0] != 1 && y.dims[1] != 1) {
			return nil, fmt.Errorf("variable %q: dimensions %v, want a vector: %w", y.name, y.dims, ErrFormat)
		}
	}
	var ds *Dataset
	if wide != nil {
		ds, err = newDatasetWide(n, d, wide, yv)
	} else {
		ds, err = newDataset(n, d, rows, yv, nil, opts.Missing)
	}
	if err != nil {
		vars := fmt.Sprintf("variable %q", x.name)
		if y != nil {
			vars = fmt.Sprintf("variables %q, %q", x.name, y.name)
		}
		return nil, fmt.Errorf("%s: %w", vars, err)
	}
	return ds, nil
}

// matHeader checks the 128-byte header and returns the file's byte order.
func matHeader(b []byte) (binary.ByteOrder, error) {
	// A v7.3 file says so in its text, has version 0x0200, and is an HDF5
	// file with the superblock after a 512-byte user block; check the
	// signature only when the header is not a valid v5 one.
	if bytes.HasPrefix(b, []byte("MATLAB 7.3 MAT-file")) {
		return nil, ErrMATv73
	}
	var order binary.ByteOrder
	switch {
	case len(b) >= mat5.HeaderLen && string(b[126:128]) == "IM":
		order = binary.LittleEndian
	case len(b) >= mat5.HeaderLen && string(b[126:128]) == "MI":
		order = binary.BigEndian
	case bytes.HasPrefix(b, []byte(mat5.HDF5Signature)) || len(b) >= 512+len(mat5.HDF5Signature) && string(b[512:512+len(mat5.HDF5Signature)]) == mat5.HDF5Signature:
		return nil, ErrMATv73
	case len(b) < mat5.HeaderLen:
		return nil, fmt.Errorf("%d bytes, shorter than the 128-byte MAT v5 header: %w", len(b), ErrFormat)
	default:
		return nil, fmt.Errorf("byte 126: endian indicator %q, want \"IM\" or \"MI\" (not a MAT v5 file; MAT v4 is not read): %w", b[126:128], ErrFormat)
	}
	switch v := order.Uint16(b[124:126]); v {
	case 0x0100:
	case 0x0200:
		return nil, ErrMATv73
	default:
		return nil, fmt.Errorf("byte 124: version 0x%04x, want 0x0100: %w", v, ErrFormat)
	}
	return order, nil
}

// matTopElement reads the top-level element at off and returns its array
// (nil for an element that is not a matrix) and the offset of the next one.
func matTopElement(b []byte, off int, order binary.ByteOrder) (*matArray, int, error) {
	if len(b)-off < 8 {
		return nil, 0, fmt.Errorf("byte %d: %d trailing bytes, too short for an element tag: %w", off, len(b)-off, ErrFormat)
	}
	typ := mat5.Type(order.Uint32(b[off:]))
	n := int64(order.Uint32(b[off+4:]))
	if typ>>16 != 0 {
		// A small data element at top level holds no variable.
		return nil, off + 8, nil
	}
	if n > int64(len(b)-off-8) {
		return nil, 0, fmt.Errorf("byte %d: %v element declares %d bytes, %d left: %w", off, typ, n, len(b)-off-8, errTooLarge)
	}
	body := b[off+8 : off+8+int(n)]
	switch typ {
	case mat5.Compressed:
		inflated, err := matInflate(body, order)
		if err != nil {
			return nil, 0, fmt.Errorf("byte %d: miCOMPRESSED element: %w", off, err)
		}
		a, err := matParseMatrix(inflated, order, off)
		return a, off + 8 + int(n), err
	case mat5.Matrix:
		a, err := matParseMatrix(b[off:off+8+int(n)], order, off)
		return a, min(off+8+mat5.Pad8(int(n)), len(b)), err
	}
	return nil, min(off+8+mat5.Pad8(int(n)), len(b)), nil
}

// matInflate inflates a miCOMPRESSED payload. The output is bounded by the
// miMATRIX tag inside it, and never allocated from that declared size up
// front: a tag claiming 2^32 bytes in a short stream fails as truncated.
func matInflate(z []byte, order binary.ByteOrder) ([]byte, error) {
	zr, err := zlib.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, fmt.Errorf("zlib: %v: %w", err, ErrFormat)
	}
	defer zr.Close()
	var tag [8]byte
	if _, err := io.ReadFull(zr, tag[:]); err != nil {
		return nil, fmt.Errorf("zlib: inflating the element tag: %v: %w", err, ErrFormat)
	}
	n := order.Uint32(tag[4:])
	out := bytes.NewBuffer(append(make([]byte, 0, 64), tag[:]...))
	if _, err := io.Copy(out, io.LimitReader(zr, int64(n))); err != nil {
		return nil, fmt.Errorf("zlib: %v: %w", err, ErrFormat)
	}
	return out.Bytes(), nil
}

// matParseMatrix parses a miMATRIX element e (tag included) into its array
// header; off is the top-level element's file offset, for errors.
func matParseMatrix(e []byte, order binary.ByteOrder, off int) (*matArray, error) {
	if len(e) < 8 {
		return nil, fmt.Errorf("byte %d: element of %d bytes has no tag: %w", off, len(e), ErrFormat)
	}
	typ := mat5.Type(order.Uint32(e))
	n := int(order.Uint32(e[4:]))
	if typ != mat5.Matrix {
		return nil, fmt.Errorf("byte %d: element is %v, want miMATRIX: %w", off, typ, ErrFormat)
	}
	if n > len(e)-8 {
		return nil, fmt.Errorf("byte %d: miMATRIX declares %d bytes, %d present: %w", off, n, len(e)-8, errTooLarge)
	}
	body := e[8 : 8+n]
	if n == 0 {
		return nil, nil // an empty miMATRIX is MATLAB's empty array placeholder
	}
	a := &matArray{offset: off}
	pos := 0
	sub := func(what string) (mat5.Type, []byte, error) {
		t, data, next, err := matSubElement(body, pos, order)
		if err != nil {
			return 0, nil, fmt.Errorf("byte %d: %s: %w", off, what, err)
		}
		pos = next
		return t, data, nil
	}
	t, flags, err := sub("array flags")
	if err != nil {
		return nil, err
	}
	if t != mat5.Uint32 || len(flags) != 8 {
		return nil, fmt.Errorf("byte %d: array flags are %v of %d bytes, want miUINT32 of 8: %w", off, t, len(flags), ErrFormat)
	}
	f := order.Uint32(flags)
	a.class = mat5.Class(f & 0xff)
	a.complex = f&mat5.FlagComplex != 0
	t, dims, err := sub("dimensions")
	if err != nil {
		return nil, err
	}
	if t != mat5.Int32 || len(dims) < 8 || len(dims)%4 != 0 {
		return nil, fmt.Errorf("byte %d: dimensions are %v of %d bytes, want miINT32 of at least 8: %w", off, t, len(dims), ErrFormat)
	}
	for k := 0; k < len(dims); k += 4 {
		v := int32(order.Uint32(dims[k:]))
		if v < 0 {
			return nil, fmt.Errorf("byte %d: dimension %d is %d: %w", off, k/4+1, v, ErrFormat)
		}
		a.dims = append(a.dims, int(v))
	}
	// MATLAB never drops trailing singleton dimensions below 2, but a
	// 3-D n×d×1 array is a matrix too.
	for len(a.dims) > 2 && a.dims[len(a.dims)-1] == 1 {
		a.dims = a.dims[:len(a.dims)-1]
	}
	t, name, err := sub("array name")
	if err != nil {
		return nil, err
	}
	if t != mat5.Int8 && t != mat5.Uint8 {
		return nil, fmt.Errorf("byte %d: array name is %v, want miINT8: %w", off, t, ErrFormat)
	}
	a.name = string(name)
	if !a.class.Numeric() {
		return a, nil // checked only if wanted, in values
	}
	if a.storage, a.real, err = sub(fmt.Sprintf("variable %q: real part", a.name)); err != nil {
		return nil, err
	}
	return a, nil
}

// values decodes the real part into float64 in MATLAB's column-major
// order, checking the element count against the dimensions.
func (a *matArray) values(order binary.ByteOrder) ([]float64, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	return a.storage.Decode(order, a.real), nil
}

// check reports a variable that is not a real numeric array whose stored values match
// its dimensions.
func (a *matArray) check() error {
	switch {
	case !a.class.Numeric():
		return fmt.Errorf("variable %q (byte %d): %v array: %w", a.name, a.offset, a.class, errNotNumeric)
	case a.complex:
		return fmt.Errorf("variable %q (byte %d): complex %v array: %w", a.name, a.offset, a.class, errNotNumeric)
	}
	sz := a.storage.Size()
	if sz == 0 {
		return fmt.Errorf("variable %q (byte %d): real part stored as %v: %w", a.name, a.offset, a.storage, ErrFormat)
	}
	if len(a.real)%sz != 0 {
		return fmt.Errorf("variable %q (byte %d): %d bytes of %v is not a whole number of values: %w", a.name, a.offset, len(a.real), a.storage, ErrFormat)
	}
	count := len(a.real) / sz
	// The product of the dimensions is compared with the values present,
	// never used to allocate: a header claiming 2^40 elements fails here.
	numel, ok := product(a.dims, count)
	if !ok || numel != count {
		return fmt.Errorf("variable %q (byte %d): dimensions %v need %s values, %d stored: %w",
			a.name, a.offset, a.dims, dimsProduct(a.dims), count, errTooLarge)
	}
	return nil
}

// product returns the product of dims if it is at most limit; ok is false
// when it is larger (the product may overflow an int, so it is not formed).
func product(dims []int, limit int) (p int, ok bool) {
	if slices.Contains(dims, 0) {
		return 0, true
	}
	p = 1
	for _, d := range dims {
		if p > limit/d {
			return 0, false
		}
		p *= d
	}
	return p, true
}

// dimsProduct formats the product of dims without overflow.
func dimsProduct(dims []int) string {
	s := make([]string, len(dims))
	for i, d := range dims {
		s[i] = fmt.Sprint(d)
	}
	return strings.Join(s, "×")
}

// matSubElement reads the sub-element at pos of a matrix body and returns
// its type, data and the position of the next sub-element. Sub-elements are
// padded to 8 bytes; padding missing after the last one is tolerated.
func matSubElement(body []byte, pos int, order binary.ByteOrder) (mat5.Type, []byte, int, error) {
	if len(body)-pos < 8 {
		return 0, nil, 0, fmt.Errorf("offset %d in the matrix: %d bytes left, too short for a tag: %w", pos, len(body)-pos, ErrFormat)
	}
	w := order.Uint32(body[pos:])
	if small := int(w >> 16); small != 0 {
		if small > 4 {
			return 0, nil, 0, fmt.Errorf("offset %d in the matrix: small data element of %d bytes (at most 4): %w", pos, small, ErrFormat)
		}
		return mat5.Type(w & 0xffff), body[pos+4 : pos+4+small], pos + 8, nil
	}
	n := int64(order.Uint32(body[pos+4:]))
	if n > int64(len(body)-pos-8) {
		return 0, nil, 0, fmt.Errorf("offset %d in the matrix: %v declares %d bytes, %d left: %w", pos, mat5.Type(w), n, len(body)-pos-8, errTooLarge)
	}
	end := pos + 8 + int(n)
	return mat5.Type(w), body[pos+8 : end], min(pos+8+mat5.Pad8(int(n)), len(body)), nil
}

package data

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"github.com/udocc/udocc/internal/memory"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/sbinet/npyio/npy"
)

// npyArray is a decoded .npy array: its shape and values in C (row-major) order,
// narrowed to float32 (x), or at full precision (wide) where parseNPY was asked to
// keep it (labels, and a matrix an id column or WriteAppended needs exactly).
type npyArray struct {
	dtype string
	shape []int
	x     []float32
	wide  []float64
	// ints are the values of a 64-bit integer array read wide, exactly (a float64
	// holds integers exactly only up to 2^53: ids near 2^62 would collapse).
	ints *exactInts
}

// npyHeaderRE matches the header dictionary exactly as NumPy (and npyio)
// write it, padding and newline included. npyio's own header parser slices
// by these fixed offsets and panics or misreads on other layouts, so any
// other layout is rejected.
var npyHeaderRE = regexp.MustCompile(`^\{'descr': '([^']*)', 'fortran_order': (True|False), 'shape': \(([0-9, ]*)\), \} *\n$`)

// npyDtypes are the dtypes read, by their NumPy descr, with their size.
var npyDtypes = map[string]int{
	"|b1": 1, "|u1": 1, "|i1": 1,
	"<u2": 2, ">u2": 2, "<i2": 2, ">i2": 2,
	"<u4": 4, ">u4": 4, "<i4": 4, ">i4": 4, "<f4": 4, ">f4": 4,
	"<u8": 8, ">u8": 8, "<i8": 8, ">i8": 8, "<f8": 8, ">f8": 8,
}

// parseNPY decodes one .npy file (format versions 1.0 and 2.0, NEP 1) of size bytes
// (-1: not known, a stream) from r, in blocks: the file's bytes are never held whole,
// and the values are converted as they are read (to float32, or float64 when wide). The
// header is checked, and the declared shape compared with the bytes present and with
// the memory available, before anything is allocated: a header claiming 2^40 values is
// an error, not an allocation.
func parseNPY(r io.Reader, size int64, wide bool) (*npyArray, error) {
	pre := make([]byte, 10, 12)
	if _, err := io.ReadFull(r, pre); err != nil || !bytes.HasPrefix(pre, npy.Magic[:]) {
		return nil, fmt.Errorf("no NumPy magic \"\\x93NUMPY\" at byte 0: %w", ErrFormat)
	}
	var hlen, start int
	switch major := pre[6]; major {
	case 1:
		hlen, start = int(pre[8])|int(pre[9])<<8, 10
	case 2:
		pre = pre[:12]
		if _, err := io.ReadFull(r, pre[10:]); err != nil {
			return nil, fmt.Errorf("byte 8: truncated header length: %w", ErrFormat)
		}
		hlen, start = int(pre[8])|int(pre[9])<<8|int(pre[10])<<16|int(pre[11])<<24, 12
	default:
		return nil, fmt.Errorf("byte 6: format version %d.%d, want 1.0 or 2.0: %w", major, pre[7], ErrFormat)
	}
	if size >= 0 && int64(hlen) > size-int64(start) {
		return nil, fmt.Errorf("byte 8: header declares %d bytes, %d left: %w", hlen, size-int64(start), errTooLarge)
	}
	if size < 0 && hlen > maxNPYHeader {
		return nil, fmt.Errorf("byte 8: header declares %d bytes, more than a NumPy header holds (%d): %w", hlen, maxNPYHeader, ErrFormat)
	}
	hdr := make([]byte, hlen)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, fmt.Errorf("byte %d: %v: %w", start, err, ErrFormat)
	}
	m := npyHeaderRE.FindSubmatch(hdr)
	if m == nil {
		return nil, fmt.Errorf("byte %d: header %s is not a NumPy header dictionary: %w", start, quoteValue(string(hdr)), ErrFormat)
	}
	dtype, fortran := string(m[1]), string(m[2]) == "True"
	sz, ok := npyDtypes[dtype]
	if !ok {
		return nil, fmt.Errorf("dtype %q (want bool, intN, uintN, float32 or float64): %w", dtype, errNotNumeric)
	}
	shape, err := parseShape(string(m[3]))
	if err != nil {
		return nil, fmt.Errorf("byte %d: %w", start, err)
	}
	var numel int
	if size >= 0 {
		data := size - int64(start+hlen)
		if numel, ok = product(shape, int(data/int64(sz))); !ok {
			return nil, fmt.Errorf("shape %v needs more than the %d bytes of data present: %w", shape, data, errTooLarge)
		}
		if int64(numel)*int64(sz) != data {
			return nil, fmt.Errorf("shape %v of %s needs %d bytes of data, %d present: %w", shape, dtype, numel*sz, data, ErrFormat)
		}
	} else if numel, ok = product(shape, math.MaxInt/8); !ok {
		return nil, fmt.Errorf("shape %v: more values than can be held: %w", shape, errTooLarge)
	}
	width := int64(4)
	if wide {
		width = 8
	}
	if err := memory.Check(fmt.Sprintf("an array of shape %v", shape), tableBytes(int64(numel), width/4)); err != nil {
		return nil, err
	}
	if fortran && len(shape) > 2 {
		return nil, fmt.Errorf("%d-D array in Fortran order: %w", len(shape), ErrFormat)
	}
	// Element k of the file is row k/cols, column k%cols in C order; in Fortran order
	// (2-D) it is row k%rows, column k/rows, and lands at its row-major place.
	rows, cols := numel, 1
	if len(shape) == 2 {
		rows, cols = shape[0], shape[1]
	}
	place := func(k int) int { return k }
	if fortran && len(shape) == 2 {
		place = func(k int) int { return k%rows*cols + k/rows }
	}
	a := &npyArray{dtype: dtype, shape: shape}
	if code := dtype[1:]; wide && (code == "i8" || code == "u8") {
		a.wide = make([]float64, numel)
		a.ints = &exactInts{bits: make([]uint64, numel), signed: code == "i8"}
		order := npyOrder(dtype)
		err = npyRaw(r, dtype, numel, func(k int, p []byte) error {
			bits := order.Uint64(p)
			a.ints.bits[place(k)] = bits
			a.wide[place(k)] = a.ints.float(bits)
			return nil
		})
	} else if wide {
		a.wide = make([]float64, numel)
		err = npyValues(r, dtype, numel, func(k int, v float64) error { a.wide[place(k)] = v; return nil })
	} else if dtype == "<f8" || dtype == "<f4" || dtype == "<i8" {
		// The common cases, NumPy's float64, float32 or int64 from a little-endian writer,
		// in either order, read a block at a time without a call a value: the values and
		// the errors are those of the general loop below, in half its time or less
		// (InternetAds' 3.1 million values 31 -> 18 ms, unsw-nb15's 18.7 million 206 ->
		// 116 ms).
		a.x = make([]float32, numel)
		down := fortran && len(shape) == 2 // element k is row k%rows, column k/rows
		err = npyBlocks(r, sz, numel, func(k0 int, b []byte) error {
			row, col := k0/cols, k0%cols
			if down {
				row, col = k0%rows, k0/rows
			}
			for i := 0; i < len(b)/sz; i++ {
				var f float32
				if sz == 4 {
					f = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
				} else {
					bits := binary.LittleEndian.Uint64(b[8*i:])
					v := math.Float64frombits(bits)
					if dtype == "<i8" {
						v = float64(int64(bits))
					}
					var ok bool
					if f, ok = narrow32(v); !ok {
						return fmt.Errorf("row %d, column %d: %v: %w", row+1, col+1, v, errRange)
					}
				}
				a.x[row*cols+col] = f
				if down {
					if row++; row == rows {
						row, col = 0, col+1
					}
				} else if col++; col == cols {
					row, col = row+1, 0
				}
			}
			return nil
		})
	} else {
		a.x = make([]float32, numel)
		err = npyValues(r, dtype, numel, func(k int, v float64) error {
			f, ok := narrow32(v)
			if !ok {
				i := place(k)
				return fmt.Errorf("row %d, column %d: %v: %w", i/cols+1, i%cols+1, v, errRange)
			}
			a.x[place(k)] = f
			return nil
		})
	}
	if err != nil {
		return nil, err
	}
	if size < 0 {
		if n, _ := io.ReadFull(r, make([]byte, 1)); n > 0 {
			return nil, fmt.Errorf("shape %v of %s: more bytes follow its data: %w", shape, dtype, ErrFormat)
		}
	}
	return a, nil
}

// maxNPYHeader bounds the header of a .npy stream whose size is not known: NumPy
// writes headers of a few hundred bytes, and reads none above 10000 by default.
const maxNPYHeader = 1 << 16

// npyBlock is the bytes parseNPY reads at a time.
const npyBlock = 1 << 16

// npyValues reads n values of dtype from r, a block at a time, and hands each to put
// with its index, converted to float64 (exactly, but for 64-bit integers beyond 2^53,
// which round: npyRaw keeps them).
func npyValues(r io.Reader, dtype string, n int, put func(k int, v float64) error) error {
	conv := npyConv(dtype[1:], npyOrder(dtype))
	return npyRaw(r, dtype, n, func(k int, p []byte) error { return put(k, conv(p)) })
}

// npyOrder is the byte order of dtype.
func npyOrder(dtype string) binary.ByteOrder {
	if dtype[0] == '>' {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// npyRaw reads n values of dtype from r, a block at a time, and hands each to put with
// its index, as its bytes.
func npyRaw(r io.Reader, dtype string, n int, put func(k int, p []byte) error) error {
	sz := npyDtypes[dtype]
	return npyBlocks(r, sz, n, func(k int, b []byte) error {
		for ; len(b) > 0; b, k = b[sz:], k+1 {
			if dtype == "|b1" && b[0] > 1 {
				return fmt.Errorf("element %d: bool byte %d: %w", k, b[0], ErrFormat)
			}
			if err := put(k, b[:sz]); err != nil {
				return err
			}
		}
		return nil
	})
}

// npyBlocks reads n values of sz bytes from r, a block of at most npyBlock bytes at a
// time, and hands each block to put with the index of its first value.
func npyBlocks(r io.Reader, sz, n int, put func(k int, b []byte) error) error {
	buf := make([]byte, npyBlock/sz*sz)
	for k := 0; k < n; {
		b := buf[:min(len(buf), (n-k)*sz)]
		if _, err := io.ReadFull(r, b); err != nil {
			return fmt.Errorf("element %d: %v: %w", k, err, ErrFormat)
		}
		if err := put(k, b); err != nil {
			return err
		}
		k += len(b) / sz
	}
	return nil
}

// npyConv returns the decoder of one value of the NumPy kind+size code in order.
func npyConv(code string, order binary.ByteOrder) func(p []byte) float64 {
	switch code {
	case "b1", "u1":
		return func(p []byte) float64 { return float64(p[0]) }
	case "i1":
		return func(p []byte) float64 { return float64(int8(p[0])) }
	case "u2":
		return func(p []byte) float64 { return float64(order.Uint16(p)) }
	case "i2":
		return func(p []byte) float64 { return float64(int16(order.Uint16(p))) }
	case "u4":
		return func(p []byte) float64 { return float64(order.Uint32(p)) }
	case "i4":
		return func(p []byte) float64 { return float64(int32(order.Uint32(p))) }
	case "f4":
		return func(p []byte) float64 { return float64(math.Float32frombits(order.Uint32(p))) }
	case "u8":
		return func(p []byte) float64 { return float64(order.Uint64(p)) }
	case "i8":
		return func(p []byte) float64 { return float64(int64(order.Uint64(p))) }
	}
	return func(p []byte) float64 { return math.Float64frombits(order.Uint64(p)) }
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

// loadNPY reads a .npy file holding a 2-D X, streaming from the file; it has no labels.
// A pipe or a device, whose size is not known before it is read, is read as its header
// says, and refused if it ends early or goes on after.
func loadNPY(path string, opts LoadOptions) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	if !st.Mode().IsRegular() {
		size = -1
	}
	ds, err := decodeNPY(bufio.NewReaderSize(f, npyBlock), size, opts)
	if err != nil {
		return nil, err
	}
	return selectMatrix(ds, opts.Selection)
}

// decodeNPY reads a .npy file of size bytes from r holding a 2-D X; it has no labels.
func decodeNPY(r io.Reader, size int64, opts LoadOptions) (*Dataset, error) {
	a, err := parseNPY(r, size, opts.wide())
	if err != nil {
		return nil, err
	}
	return npyDataset(a, nil, "array", opts.Missing)
}

// decodeNPZ reads X and optional y arrays from a .npz archive (a zip of
// .npy files, as numpy.savez and ADBench write them).
func decodeNPZ(b []byte, opts LoadOptions) (*Dataset, error) {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, fmt.Errorf("zip: %v: %w", err, ErrFormat)
	}
	xName := opts.xVar()
	x, err := npzEntry(zr, xName, opts)
	if err != nil {
		return nil, err
	}
	if x == nil {
		return nil, fmt.Errorf("array %q: %w", xName, errMissingVariable)
	}
	yName, required := opts.yVar()
	var y *npyArray
	if yName != "" {
		if y, err = npzEntry(zr, yName, opts); err != nil {
			return nil, err
		}
		if y == nil && required {
			return nil, fmt.Errorf("array %q: %w", yName, errMissingVariable)
		}
	}
	return npyDataset(x, y, xName, opts.Missing)
}

// npzEntry decodes the array name ("name.npy" in the archive, or "name"),
// or returns nil if the archive has no such entry.
// An archive that holds the array twice is refused: NumPy reads the last, a reader
// that read the first would train on other numbers.
func npzEntry(zr *zip.Reader, name string, opts LoadOptions) (*npyArray, error) {
	wide := opts.wide()
	var entry *zip.File
	for _, f := range zr.File {
		if f.Name != name+".npy" && f.Name != name {
			continue
		}
		if entry != nil {
			return nil, fmt.Errorf("array %q: the archive holds it twice (%q and %q): %w", name, entry.Name, f.Name, ErrFormat)
		}
		entry = f
	}
	if f := entry; f != nil {
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("array %q: zip: %v: %w", name, err, ErrFormat)
		}
		defer rc.Close()
		// Read what the stream yields, never allocating from the declared
		// size, and check the two agree.
		b, n, err := readBlocks(io.LimitReader(rc, int64(min(f.UncompressedSize64, 1<<62))+1))
		if err != nil {
			return nil, fmt.Errorf("array %q: zip: %v: %w", name, err, ErrFormat)
		}
		if uint64(n) != f.UncompressedSize64 {
			return nil, fmt.Errorf("array %q: zip entry declares %d bytes, holds %d: %w", name, f.UncompressedSize64, n, ErrFormat)
		}
		a, err := parseNPY(b, n, wide || name != opts.xVar())
		if err != nil {
			return nil, fmt.Errorf("array %q: %w", name, err)
		}
		return a, nil
	}
	return nil, nil
}

// streamBlock is the size of the blocks readBlocks reads a stream into.
const streamBlock = 1 << 20

// readBlocks reads r to its end into blocks of streamBlock bytes, allocated as the bytes
// arrive, and returns a reader of them and their count. io.ReadAll would grow one
// buffer by copying it over and over (a quarter of a 63 MB npz's reading, and its
// collections); a block is written once.
func readBlocks(r io.Reader) (io.Reader, int64, error) {
	var blocks []io.Reader
	var n int64
	for {
		b := make([]byte, streamBlock)
		k, err := io.ReadFull(r, b)
		if k > 0 {
			blocks = append(blocks, bytes.NewReader(b[:k]))
			n += int64(k)
		}
		switch err {
		case nil:
			continue
		case io.EOF, io.ErrUnexpectedEOF:
			return io.MultiReader(blocks...), n, nil
		default:
			return nil, 0, err
		}
	}
}

// npyDataset checks shapes (X 2-D; y of shape (n,) or (n, 1)) and builds
// the Dataset.
func npyDataset(x, y *npyArray, xName string, missing Missing) (*Dataset, error) {
	if len(x.shape) != 2 {
		return nil, fmt.Errorf("array %q: shape %v, want 2-D (n, d): %w", xName, x.shape, ErrFormat)
	}
	var yv []float64
	if y != nil {
		if !(len(y.shape) == 1 || len(y.shape) == 2 && y.shape[1] == 1) {
			return nil, fmt.Errorf("labels: shape %v, want (n,) or (n, 1): %w", y.shape, ErrFormat)
		}
		yv = y.wide
	}
	if x.wide != nil {
		ds, err := newDatasetWide(x.shape[0], x.shape[1], x.wide, yv)
		if err != nil {
			return nil, err
		}
		ds.wideInts = x.ints
		return ds, nil
	}
	return newDataset(x.shape[0], x.shape[1], x.x, yv, nil, missing)
}

package data

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// parquet-go allocates what a file declares before it reads it: a list's length in the
// footer, a page's compressed and uncompressed sizes, a binary field's length in a page
// header. The checks here bound each declaration by the bytes present (or by limits)
// before parquet-go sees it, so that a corrupt file of a few bytes cannot make it
// allocate gigabytes. FuzzParquet found each of these.

// parquetLimits bound what a Parquet file may make the reader allocate.
type parquetLimits struct {
	values    int64 // rows × features
	pageBytes int64 // one page, uncompressed
}

// loadLimits are Load's: 2^32 values (32 GiB of float64) and pages of 1 GiB, far
// beyond what writers produce (about 1 MiB).
var loadLimits = parquetLimits{values: 1 << 32, pageBytes: 1 << 30}

// errTruncated reports a thrift value that runs past the bytes given.
var errTruncated = errors.New("truncated")

// checkThrift walks one compact-protocol struct at the start of b and returns its
// length in bytes. Every list, set, map and binary length must fit in the bytes that
// remain, since each element takes at least one.
func checkThrift(b []byte) (int, error) {
	w := thriftWalker{b: b}
	if err := w.value(12, 0); err != nil {
		return 0, err
	}
	return w.off, nil
}

type thriftWalker struct {
	b   []byte
	off int
}

func (w *thriftWalker) byte() (byte, error) {
	if w.off >= len(w.b) {
		return 0, errTruncated
	}
	w.off++
	return w.b[w.off-1], nil
}

func (w *thriftWalker) uvarint() (uint64, error) {
	v, n := binary.Uvarint(w.b[w.off:])
	if n <= 0 {
		if n == 0 {
			return 0, errTruncated
		}
		return 0, fmt.Errorf("varint overflows")
	}
	w.off += n
	return v, nil
}

// size reads a count of elements that must each take a byte of what remains.
func (w *thriftWalker) size() (int, error) {
	n, err := w.uvarint()
	if err != nil {
		return 0, err
	}
	if n > uint64(len(w.b)-w.off) {
		return 0, fmt.Errorf("%d elements declared with %d bytes left: %w", n, len(w.b)-w.off, errTruncated)
	}
	return int(n), nil
}

func (w *thriftWalker) skip(n int) error {
	if n > len(w.b)-w.off {
		return errTruncated
	}
	w.off += n
	return nil
}

// value skips one value of compact type t (for struct fields; list elements of
// booleans take a byte each).
func (w *thriftWalker) value(t byte, depth int) error {
	if depth > 64 {
		return fmt.Errorf("nested more than 64 deep")
	}
	switch t {
	case 1, 2: // boolean true, false: in the field header
		return nil
	case 3: // byte
		return w.skip(1)
	case 4, 5, 6: // i16, i32, i64: zigzag varints
		_, err := w.uvarint()
		return err
	case 7: // double
		return w.skip(8)
	case 8: // binary
		n, err := w.size()
		if err != nil {
			return err
		}
		return w.skip(n)
	case 9, 10: // list, set
		h, err := w.byte()
		if err != nil {
			return err
		}
		n := int(h >> 4)
		if n == 0xF {
			if n, err = w.size(); err != nil {
				return err
			}
		}
		et := h & 0xF
		for range n {
			if et == 1 || et == 2 {
				err = w.skip(1)
			} else {
				err = w.value(et, depth+1)
			}
			if err != nil {
				return err
			}
		}
		return nil
	case 11: // map
		n, err := w.size()
		if err != nil || n == 0 {
			return err
		}
		kv, err := w.byte()
		if err != nil {
			return err
		}
		for range n {
			for _, et := range []byte{kv >> 4, kv & 0xF} {
				if et == 1 || et == 2 {
					err = w.skip(1)
				} else {
					err = w.value(et, depth+1)
				}
				if err != nil {
					return err
				}
			}
		}
		return nil
	case 12: // struct: fields up to a stop byte
		for {
			h, err := w.byte()
			if err != nil {
				return err
			}
			if h == 0 {
				return nil
			}
			if h>>4 == 0 { // a field id that is not a delta follows
				if _, err := w.uvarint(); err != nil {
					return err
				}
			}
			if err := w.value(h&0xF, depth+1); err != nil {
				return err
			}
		}
	case 13: // uuid
		return w.skip(16)
	}
	return fmt.Errorf("thrift type %d", t)
}

// checkFooter checks the thrift of a Parquet footer of n bytes ending 8 bytes before
// size, so that its lists fit in it.
func checkFooter(r io.ReaderAt, size, n int64) error {
	b := make([]byte, n)
	if _, err := r.ReadAt(b, size-8-n); err != nil {
		return fmt.Errorf("parquet: footer: %v: %w", err, ErrFormat)
	}
	if _, err := checkThrift(b); err != nil {
		return fmt.Errorf("parquet: footer: %v: %w", err, ErrFormat)
	}
	return nil
}

// checkPages walks the page headers of a column chunk of rows rows before parquet-go
// reads it: the chunk must lie in the file, each page in the chunk, each page's
// uncompressed size be within the limit and its value count within the rows.
func checkPages(r io.ReaderAt, size int64, m *format.ColumnMetaData, rows int64, lim parquetLimits) error {
	start := m.DataPageOffset
	if m.DictionaryPageOffset != 0 {
		start = m.DictionaryPageOffset // as parquet-go reads it
	}
	end := start + m.TotalCompressedSize
	if start < 4 || m.TotalCompressedSize < 0 || end > size || end < start {
		return fmt.Errorf("a column chunk at bytes %d to %d of %d: %w", start, end, size, ErrFormat)
	}
	var proto thrift.CompactProtocol
	for off := start; off < end; {
		window := min(end-off, 1<<16)
		var h format.PageHeader
		for {
			b := make([]byte, window)
			if _, err := r.ReadAt(b, off); err != nil {
				return fmt.Errorf("page header at byte %d: %v: %w", off, err, ErrFormat)
			}
			n, err := checkThrift(b)
			if errors.Is(err, errTruncated) && window < end-off && window < 1<<26 {
				window = min(end-off, 4*window)
				continue
			}
			if err == nil {
				err = thrift.Unmarshal(&proto, b[:n], &h)
			}
			if err != nil {
				return fmt.Errorf("page header at byte %d: %v: %w", off, err, ErrFormat)
			}
			off += int64(n)
			break
		}
		c, u := int64(h.CompressedPageSize), int64(h.UncompressedPageSize)
		switch {
		case c < 0 || off+c > end:
			return fmt.Errorf("a page of %d bytes at byte %d, past its column chunk's end at %d: %w", c, off, end, ErrFormat)
		case u < 0 || u > lim.pageBytes:
			return fmt.Errorf("a page of %d bytes uncompressed at byte %d (at most %d read): %w", u, off, lim.pageBytes, errTooLarge)
		case h.DataPageHeader.Valid && int64(h.DataPageHeader.V.NumValues) > rows,
			h.DataPageHeaderV2.Valid && int64(h.DataPageHeaderV2.V.NumValues) > rows:
			return fmt.Errorf("a page at byte %d holds more values than its row group's %d rows: %w", off, rows, ErrFormat)
		case h.DictionaryPageHeader.Valid && int64(h.DictionaryPageHeader.V.NumValues) > max(u, 8*rows):
			return fmt.Errorf("a dictionary of %d values in %d bytes at byte %d: %w", h.DictionaryPageHeader.V.NumValues, u, off, ErrFormat)
		}
		off += c
	}
	return nil
}

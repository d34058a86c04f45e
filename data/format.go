package data

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"github.com/udocc/udocc/internal/memory"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Formats are the names LoadOptions.Format accepts: delimited text (its delimiter
// sniffed from the first line), the same gzipped, Parquet, and the matrix formats.
var Formats = []string{"csv", "tsv", "txt", "csv.gz", "tsv.gz", "txt.gz", "parquet", "mat", "npy", "npz"}

// formatOf is the format named, or else the one of path's extension.
func formatOf(path, named string) (string, error) {
	if named != "" {
		return named, nil
	}
	if path == "-" {
		return "", fmt.Errorf("data: reading stdin needs its format named (one of %s): %w", strings.Join(Formats, ", "), ErrOptions)
	}
	base := strings.ToLower(filepath.Base(path))
	ext := filepath.Ext(base)
	if ext == ".gz" {
		ext = filepath.Ext(strings.TrimSuffix(base, ext)) + ext
	}
	if f := strings.TrimPrefix(ext, "."); f != "" && slices.Contains(Formats, f) {
		return f, nil
	}
	return "", fmt.Errorf("data: %s: extension %q: %w", path, ext, ErrUnknownFormat)
}

// IsTable reports whether a file of format (or of path's extension, for "") is a table
// with named columns (CSV, Parquet). The others are matrices with labels in a variable
// (MAT, NPY, NPZ).
func IsTable(path, format string) bool {
	f, err := formatOf(path, format)
	return err == nil && !slices.Contains([]string{"mat", "npy", "npz"}, f)
}

// nameOf is a data set's name: the file name without its extensions ("pima" for
// pima.csv.gz), "stdin" for "-".
func nameOf(path string) string {
	if path == "-" {
		return "stdin"
	}
	base := filepath.Base(path)
	if strings.EqualFold(filepath.Ext(base), ".gz") {
		base = strings.TrimSuffix(base, filepath.Ext(base))
	}
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// maxGunzip bounds what a gzipped file may inflate to (64 GiB): past it the file is
// refused rather than exhausting memory.
const maxGunzip = 64 << 30

// gunzip inflates a gzip file, every member of it (as gzip -d does).
func gunzip(b []byte) ([]byte, error) {
	zr, err := newGzipMembers(bufio.NewReader(bytes.NewReader(b)))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	n, err := io.Copy(&out, io.LimitReader(zr, maxGunzip+1))
	if err != nil {
		return nil, fmt.Errorf("after %d bytes: %w", n, err)
	}
	if n > maxGunzip {
		return nil, fmt.Errorf("gzip: inflates past %d bytes: %w", int64(maxGunzip), errTooLarge)
	}
	return out.Bytes(), nil
}

// selectMatrix applies a Selection to a matrix read from MAT, NPY or NPZ, whose
// columns are named x1…xD: every column is numeric, and the id column's numbers
// become its text (read at full precision: LoadOptions.wide).
func selectMatrix(ds *Dataset, s Selection) (*Dataset, error) {
	if s.IsZero() {
		return ds, nil
	}
	numeric := make([]bool, ds.D)
	for j := range numeric {
		numeric[j] = true
	}
	r, err := resolveColumns(ds.Features, numeric, -1, s, func(int) string { return "" })
	if err != nil {
		return nil, err
	}
	out := &Dataset{N: ds.N, D: len(r.features), Y: ds.Y, Named: ds.Named}
	out.X = make([]float32, 0, out.N*out.D)
	for i := 0; i < ds.N; i++ {
		row := ds.Row(i)
		for _, j := range r.features {
			out.X = append(out.X, row[j])
		}
		if r.id >= 0 {
			out.IDs = append(out.IDs, ds.wideText(i*ds.D+r.id))
		}
	}
	for _, j := range r.features {
		out.Features = append(out.Features, ds.Features[j])
	}
	if r.id >= 0 {
		out.IDName = ds.Features[r.id]
	}
	return out, nil
}

// readWhole reads a file that is decoded whole (MAT, NPZ), refusing one larger than the
// memory available before reading it. A pipe or a device, whose size is not known,
// must start as its format does (so that /dev/zero is refused at once) and is
// refused when it outgrows the memory available.
func readWhole(path, format string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Mode().IsRegular() {
		if err := memory.Check("reading the file whole", st.Size()); err != nil {
			return nil, err
		}
		var b bytes.Buffer
		b.Grow(int(st.Size()) + bytes.MinRead) // one allocation, as os.ReadFile
		_, err := b.ReadFrom(f)
		return b.Bytes(), err
	}
	magic := map[string]string{"mat": "MATLAB ", "npz": "PK\x03\x04", "npy": "\x93NUMPY"}[format]
	br := bufio.NewReader(f)
	if head, _ := br.Peek(len(magic)); string(head) != magic {
		return nil, fmt.Errorf("does not start with %q, as a %s file does: %w", magic, format, ErrFormat)
	}
	var b []byte
	for {
		if len(b) == cap(b) {
			c := max(2*cap(b), 1<<20)
			if err := memory.Check("reading the stream whole", int64(c)); err != nil {
				return nil, err
			}
			b = slices.Grow(b, c-len(b))
		}
		n, err := br.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

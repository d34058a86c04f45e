package data

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strings"
)

// cutPart keeps block p of ds's rows (a no-op for a data set that loadNPYPart or
// loadCSVPart already cut).
func cutPart(ds *Dataset, p Part) (*Dataset, error) {
	if ds.partCut {
		return ds, nil
	}
	lo, hi := p.Index*ds.N/p.Of, (p.Index+1)*ds.N/p.Of
	if hi-lo < 1 {
		return nil, fmt.Errorf("part %d of %d of %d rows has no rows: %w", p.Index, p.Of, ds.N, errEmpty)
	}
	out := *ds
	out.N = hi - lo
	out.X = append([]float32(nil), ds.X[lo*ds.D:hi*ds.D]...)
	out.wide, out.wideInts = nil, nil
	if ds.Y != nil {
		out.Y = append([]int(nil), ds.Y[lo:hi]...)
	}
	if ds.IDs != nil {
		out.IDs = append([]string(nil), ds.IDs[lo:hi]...)
	}
	return &out, nil
}

// loadNPYPart reads block opts.Part of the rows of a 2-D NPY file in C order from that
// block's bytes only, through the whole-file decoder: the header is rewritten to the
// block's shape and the block's bytes, streamed from the file, follow it, so every
// check of parseNPY applies.
// Any other NPY layout is read whole (cutPart then cuts it).
func loadNPYPart(path string, opts LoadOptions) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, 12)
	if _, err := io.ReadFull(f, head); err != nil || head[6] != 1 {
		return loadBytes(path, "npy", opts) // short, or not format 1.0: the whole-file path says why
	}
	hlen := int(binary.LittleEndian.Uint16(head[8:10]))
	hdr := make([]byte, hlen)
	if _, err := f.ReadAt(hdr, 10); err != nil {
		return loadBytes(path, "npy", opts)
	}
	m := npyHeaderRE.FindSubmatch(hdr)
	if m == nil || string(m[2]) != "False" {
		return loadBytes(path, "npy", opts)
	}
	shape, err := parseShape(string(m[3]))
	size, ok := npyDtypes[string(m[1])]
	if err != nil || !ok || len(shape) != 2 {
		return loadBytes(path, "npy", opts)
	}
	n, d, p := shape[0], shape[1], opts.Part
	lo, hi := p.Index*n/p.Of, (p.Index+1)*n/p.Of
	if hi-lo < 1 {
		return nil, fmt.Errorf("part %d of %d of %d rows has no rows: %w", p.Index, p.Of, n, errEmpty)
	}
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if want := int64(10+hlen) + int64(n)*int64(d)*int64(size); st.Size() != want {
		return loadBytes(path, "npy", opts) // the whole-file path names the size mismatch
	}
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }", m[1], hi-lo, d)
	h += strings.Repeat(" ", (64-(10+len(h)+1)%64)%64) + "\n"
	var b bytes.Buffer
	b.Write(head[:8])
	_ = binary.Write(&b, binary.LittleEndian, uint16(len(h)))
	b.WriteString(h)
	block := int64(hi-lo) * int64(d) * int64(size)
	r := io.MultiReader(&b, bufio.NewReaderSize(io.NewSectionReader(f, int64(10+hlen)+int64(lo)*int64(d)*int64(size), block), npyBlock))
	ds, err := decodeNPY(r, int64(b.Len())+block, opts)
	if err != nil {
		return nil, err
	}
	if ds, err = selectMatrix(ds, opts.Selection); err != nil {
		return nil, err
	}
	ds.partCut = true
	return ds, nil
}

package mat5

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// Var is one real numeric matrix for Write.
type Var struct {
	// Name is the MATLAB variable name: a letter, then letters, digits or
	// underscores, at most 63 characters.
	Name string
	// Rows and Cols give the shape; Data holds Rows×Cols values row-major
	// (Write stores them column-major, as MATLAB does).
	Rows, Cols int
	Data       []float64
	// Class is the array class; 0 means ClassDouble.
	Class Class
	// Storage is the type the values are stored as; 0 means the class's own
	// type. MATLAB stores a double array whose values all fit a narrower
	// type (say uint8) in that type; every value must be exactly
	// representable in it.
	Storage Type
	// Logical marks the array as MATLAB logical (class uint8, values 0/1).
	Logical bool
}

// WriteOptions controls Write's encoding.
type WriteOptions struct {
	// Compress wraps each variable in a zlib miCOMPRESSED element, as
	// MATLAB's default "-v7" format does; false writes plain miMATRIX
	// elements ("-v6").
	Compress bool
	// BigEndian writes a big-endian ("MI") file instead of little-endian.
	BigEndian bool
}

// Order is a byte order that both reads and appends.
type Order interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// Write writes vars as a MAT v5 file (the format MATLAB's "-v6" and
// "-v7" saves produce and Load reads).
func Write(w io.Writer, vars []Var, opts WriteOptions) error {
	var order Order = binary.LittleEndian
	if opts.BigEndian {
		order = binary.BigEndian
	}
	var buf bytes.Buffer
	const text = "MATLAB 5.0 MAT-file, Platform: Go, Created by: udocc data.WriteMAT"
	buf.WriteString(text)
	buf.Write(bytes.Repeat([]byte{' '}, 116-len(text)))
	buf.Write(make([]byte, 8)) // no subsystem data
	buf.Write(order.AppendUint16(nil, 0x0100))
	buf.Write(order.AppendUint16(nil, 'M'<<8|'I'))
	for _, v := range vars {
		m, err := v.Encode(order)
		if err != nil {
			return fmt.Errorf("mat5: Write: variable %q: %w", v.Name, err)
		}
		if !opts.Compress {
			buf.Write(m)
			continue
		}
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write(m) // writes to a bytes.Buffer do not fail
		if err := zw.Close(); err != nil {
			return fmt.Errorf("mat5: Write: variable %q: %w", v.Name, err)
		}
		if z.Len() > math.MaxUint32 {
			return fmt.Errorf("mat5: Write: variable %q: compressed size %d exceeds 4 GiB: %w", v.Name, z.Len(), ErrTooLarge)
		}
		buf.Write(order.AppendUint32(nil, uint32(Compressed)))
		buf.Write(order.AppendUint32(nil, uint32(z.Len())))
		buf.Write(z.Bytes()) // miCOMPRESSED is not padded
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("mat5: Write: %w", err)
	}
	return nil
}

// encode returns v as a miMATRIX element, tag included.
func (v Var) Encode(order Order) ([]byte, error) {
	if err := checkMATName(v.Name); err != nil {
		return nil, err
	}
	class := v.Class
	if class == 0 {
		class = ClassDouble
	}
	switch {
	case !class.Numeric():
		return nil, fmt.Errorf("%v is not a numeric class: %w", class, ErrOptions)
	case v.Logical && class != ClassUint8:
		return nil, fmt.Errorf("logical array of class %v, want uint8: %w", class, ErrOptions)
	case v.Rows < 0 || v.Cols < 0 || v.Rows > math.MaxInt32 || v.Cols > math.MaxInt32:
		return nil, fmt.Errorf("shape %d×%d: %w", v.Rows, v.Cols, ErrOptions)
	case len(v.Data) != v.Rows*v.Cols:
		return nil, fmt.Errorf("%d values for %d×%d: %w", len(v.Data), v.Rows, v.Cols, ErrOptions)
	}
	storage := v.Storage
	if storage == 0 {
		storage = class.Storage()
	}
	if storage.Size() == 0 {
		return nil, fmt.Errorf("storage %v holds no numbers: %w", storage, ErrOptions)
	}
	flags := uint32(class)
	if v.Logical {
		flags |= FlagLogical
	}
	var body []byte
	body = appendSub(order, body, Uint32, order.AppendUint32(order.AppendUint32(nil, flags), 0))
	body = appendSub(order, body, Int32, order.AppendUint32(order.AppendUint32(nil, uint32(v.Rows)), uint32(v.Cols)))
	body = appendSub(order, body, Int8, []byte(v.Name))
	re := make([]byte, 0, len(v.Data)*storage.Size())
	for j := 0; j < v.Cols; j++ {
		for i := 0; i < v.Rows; i++ {
			x := v.Data[i*v.Cols+j]
			var ok bool
			if re, ok = storage.Encode(order, re, x); !ok {
				return nil, fmt.Errorf("row %d, column %d: %v is not representable as %v: %w", i+1, j+1, x, storage, ErrOptions)
			}
		}
	}
	body = appendSub(order, body, storage, re)
	if len(body) > math.MaxUint32 {
		return nil, fmt.Errorf("matrix of %d bytes exceeds 4 GiB: %w", len(body), ErrTooLarge)
	}
	m := order.AppendUint32(nil, uint32(Matrix))
	m = order.AppendUint32(m, uint32(len(body)))
	return append(m, body...), nil
}

// appendSub appends a sub-element: in the small data element format when
// data has 1 to 4 bytes, else with a full tag, padded to 8 bytes.
func appendSub(order Order, dst []byte, t Type, data []byte) []byte {
	if n := len(data); n > 0 && n <= 4 {
		dst = order.AppendUint32(dst, uint32(n)<<16|uint32(t))
		dst = append(dst, data...)
		return append(dst, make([]byte, 4-n)...)
	}
	dst = order.AppendUint32(dst, uint32(t))
	dst = order.AppendUint32(dst, uint32(len(data)))
	dst = append(dst, data...)
	return append(dst, make([]byte, Pad8(len(data))-len(data))...)
}

// checkMATName enforces MATLAB's variable-name rule (isvarname).
func checkMATName(s string) error {
	ok := len(s) > 0 && len(s) <= 63
	for i := 0; ok && i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		ok = letter || i > 0 && (c == '_' || c >= '0' && c <= '9')
	}
	if !ok {
		return fmt.Errorf("%q is not a MATLAB variable name: %w", s, ErrOptions)
	}
	return nil
}

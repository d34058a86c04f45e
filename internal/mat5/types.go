// Package mat5 holds the MAT v5 format's data types and array classes (MAT-File Format,
// MathWorks), which package data reads, and Write, which writes such a file: the tests'
// and the bench's fixtures.
package mat5

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Type is a MAT v5 data type: how the bytes of an element are stored
// (MAT-File Format, "MAT-File Data Types"). A numeric array of one class
// may be stored in a narrower type; ODDS stores double arrays as
// Double, Uint8 or Int16.
type Type uint32

// MAT v5 data types.
const (
	Int8       Type = 1
	Uint8      Type = 2
	Int16      Type = 3
	Uint16     Type = 4
	Int32      Type = 5
	Uint32     Type = 6
	Single     Type = 7
	Double     Type = 9
	Int64      Type = 12
	Uint64     Type = 13
	Matrix     Type = 14
	Compressed Type = 15
)

// Class is a MAT v5 array class (MAT-File Format, "MATLAB Array Types
// and Classes"): what MATLAB calls the array's type. Only the numeric
// classes are read.
type Class uint8

// MAT v5 numeric array classes.
const (
	ClassDouble Class = 6
	ClassSingle Class = 7
	ClassInt8   Class = 8
	ClassUint8  Class = 9
	ClassInt16  Class = 10
	ClassUint16 Class = 11
	ClassInt32  Class = 12
	ClassUint32 Class = 13
	ClassInt64  Class = 14
	ClassUint64 Class = 15
)

// Array flag bits of the first array-flags word.
const (
	FlagComplex = 0x0800
	FlagLogical = 0x0200
)

// HeaderLen is the fixed length of a MAT v5 file header.
const HeaderLen = 128

// HDF5Signature starts an HDF5 superblock, which a v7.3 MAT-file has at
// byte 512 after its 512-byte user block.
const HDF5Signature = "\x89HDF\r\n\x1a\n"

// numeric reports whether c is one of the numeric classes.
func (c Class) Numeric() bool { return c >= ClassDouble && c <= ClassUint64 }

// String returns MATLAB's name for the class.
func (c Class) String() string {
	names := [...]string{"double", "single", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"}
	if c.Numeric() {
		return names[c-ClassDouble]
	}
	return fmt.Sprintf("class %d", uint8(c))
}

// storage returns the data type a class is stored in when no narrower type
// is chosen.
func (c Class) Storage() Type {
	return [...]Type{Double, Single, Int8, Uint8, Int16, Uint16, Int32, Uint32, Int64, Uint64}[c-ClassDouble]
}

// size returns the byte size of one value of a numeric type, or 0 for a
// type that holds no numbers.
func (t Type) Size() int {
	switch t {
	case Int8, Uint8:
		return 1
	case Int16, Uint16:
		return 2
	case Int32, Uint32, Single:
		return 4
	case Double, Int64, Uint64:
		return 8
	}
	return 0
}

// String returns the MAT-File Format name of the type.
func (t Type) String() string {
	switch t {
	case Int8:
		return "miINT8"
	case Uint8:
		return "miUINT8"
	case Int16:
		return "miINT16"
	case Uint16:
		return "miUINT16"
	case Int32:
		return "miINT32"
	case Uint32:
		return "miUINT32"
	case Single:
		return "miSINGLE"
	case Double:
		return "miDOUBLE"
	case Int64:
		return "miINT64"
	case Uint64:
		return "miUINT64"
	case Matrix:
		return "miMATRIX"
	case Compressed:
		return "miCOMPRESSED"
	}
	return fmt.Sprintf("type %d", uint32(t))
}

// decode converts len(b)/t.Size() values stored as t into float64, as
// MATLAB does on load. len(b) must be a multiple of t.Size().
func (t Type) Decode(order binary.ByteOrder, b []byte) []float64 {
	sz := t.Size()
	out := make([]float64, len(b)/sz)
	for i := range out {
		p := b[i*sz:]
		switch t {
		case Int8:
			out[i] = float64(int8(p[0]))
		case Uint8:
			out[i] = float64(p[0])
		case Int16:
			out[i] = float64(int16(order.Uint16(p)))
		case Uint16:
			out[i] = float64(order.Uint16(p))
		case Int32:
			out[i] = float64(int32(order.Uint32(p)))
		case Uint32:
			out[i] = float64(order.Uint32(p))
		case Single:
			out[i] = float64(math.Float32frombits(order.Uint32(p)))
		case Double:
			out[i] = math.Float64frombits(order.Uint64(p))
		case Int64:
			out[i] = float64(int64(order.Uint64(p)))
		case Uint64:
			out[i] = float64(order.Uint64(p))
		}
	}
	return out
}

// encode appends v stored as t. It reports false when v is not exactly
// representable in t (a fraction or out of range for an integer type, a
// double that single precision rounds).
func (t Type) Encode(order binary.AppendByteOrder, dst []byte, v float64) ([]byte, bool) {
	integral := v == math.Trunc(v) && !math.IsInf(v, 0)
	inRange := func(lo, hi float64) bool { return integral && v >= lo && v <= hi }
	switch t {
	case Int8:
		return append(dst, byte(int8(v))), inRange(math.MinInt8, math.MaxInt8)
	case Uint8:
		return append(dst, byte(v)), inRange(0, math.MaxUint8)
	case Int16:
		return order.AppendUint16(dst, uint16(int16(v))), inRange(math.MinInt16, math.MaxInt16)
	case Uint16:
		return order.AppendUint16(dst, uint16(v)), inRange(0, math.MaxUint16)
	case Int32:
		return order.AppendUint32(dst, uint32(int32(v))), inRange(math.MinInt32, math.MaxInt32)
	case Uint32:
		return order.AppendUint32(dst, uint32(v)), inRange(0, math.MaxUint32)
	case Single:
		f := float32(v)
		return order.AppendUint32(dst, math.Float32bits(f)), float64(f) == v || math.IsNaN(v)
	case Double:
		return order.AppendUint64(dst, math.Float64bits(v)), true
	case Int64:
		// 2^63 itself is out of range; -2^63 is in.
		ok := integral && v >= -(1<<63) && v < 1<<63
		if !ok {
			return dst, false
		}
		return order.AppendUint64(dst, uint64(int64(v))), true
	case Uint64:
		ok := integral && v >= 0 && v < 1<<64
		if !ok {
			return dst, false
		}
		return order.AppendUint64(dst, uint64(v)), true
	}
	return dst, false
}

// Errors of Write.
var (
	// ErrOptions reports a variable that cannot be written as given.
	ErrOptions = errors.New("invalid MAT variable")
	// ErrTooLarge reports a variable beyond the format's 4 GiB element size.
	ErrTooLarge = errors.New("variable exceeds 4 GiB")
)

// Pad8 rounds n up to a multiple of 8: elements are 8-byte aligned.
func Pad8(n int) int { return (n + 7) &^ 7 }

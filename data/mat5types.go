package data

import (
	"encoding/binary"
	"fmt"
	"math"
)

// MATType is a MAT v5 data type: how the bytes of an element are stored
// (MAT-File Format, "MAT-File Data Types"). A numeric array of one class
// may be stored in a narrower type; ODDS stores double arrays as
// MATDouble, MATUint8 or MATInt16.
type MATType uint32

// MAT v5 data types.
const (
	MATInt8       MATType = 1
	MATUint8      MATType = 2
	MATInt16      MATType = 3
	MATUint16     MATType = 4
	MATInt32      MATType = 5
	MATUint32     MATType = 6
	MATSingle     MATType = 7
	MATDouble     MATType = 9
	MATInt64      MATType = 12
	MATUint64     MATType = 13
	matMatrix     MATType = 14
	matCompressed MATType = 15
)

// MATClass is a MAT v5 array class (MAT-File Format, "MATLAB Array Types
// and Classes"): what MATLAB calls the array's type. Only the numeric
// classes are read.
type MATClass uint8

// MAT v5 numeric array classes.
const (
	MATClassDouble MATClass = 6
	MATClassSingle MATClass = 7
	MATClassInt8   MATClass = 8
	MATClassUint8  MATClass = 9
	MATClassInt16  MATClass = 10
	MATClassUint16 MATClass = 11
	MATClassInt32  MATClass = 12
	MATClassUint32 MATClass = 13
	MATClassInt64  MATClass = 14
	MATClassUint64 MATClass = 15
)

// Array flag bits of the first array-flags word.
const (
	matFlagComplex = 0x0800
	matFlagLogical = 0x0200
)

// matHeaderLen is the fixed length of a MAT v5 file header.
const matHeaderLen = 128

// hdf5Signature starts an HDF5 superblock, which a v7.3 MAT-file has at
// byte 512 after its 512-byte user block.
const hdf5Signature = "\x89HDF\r\n\x1a\n"

// numeric reports whether c is one of the numeric classes.
func (c MATClass) numeric() bool { return c >= MATClassDouble && c <= MATClassUint64 }

// String returns MATLAB's name for the class.
func (c MATClass) String() string {
	names := [...]string{"double", "single", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"}
	if c.numeric() {
		return names[c-MATClassDouble]
	}
	return fmt.Sprintf("class %d", uint8(c))
}

// storage returns the data type a class is stored in when no narrower type
// is chosen.
func (c MATClass) storage() MATType {
	return [...]MATType{MATDouble, MATSingle, MATInt8, MATUint8, MATInt16, MATUint16, MATInt32, MATUint32, MATInt64, MATUint64}[c-MATClassDouble]
}

// size returns the byte size of one value of a numeric type, or 0 for a
// type that holds no numbers.
func (t MATType) size() int {
	switch t {
	case MATInt8, MATUint8:
		return 1
	case MATInt16, MATUint16:
		return 2
	case MATInt32, MATUint32, MATSingle:
		return 4
	case MATDouble, MATInt64, MATUint64:
		return 8
	}
	return 0
}

// String returns the MAT-File Format name of the type.
func (t MATType) String() string {
	switch t {
	case MATInt8:
		return "miINT8"
	case MATUint8:
		return "miUINT8"
	case MATInt16:
		return "miINT16"
	case MATUint16:
		return "miUINT16"
	case MATInt32:
		return "miINT32"
	case MATUint32:
		return "miUINT32"
	case MATSingle:
		return "miSINGLE"
	case MATDouble:
		return "miDOUBLE"
	case MATInt64:
		return "miINT64"
	case MATUint64:
		return "miUINT64"
	case matMatrix:
		return "miMATRIX"
	case matCompressed:
		return "miCOMPRESSED"
	}
	return fmt.Sprintf("type %d", uint32(t))
}

// decode converts len(b)/t.size() values stored as t into float64, as
// MATLAB does on load. len(b) must be a multiple of t.size().
func (t MATType) decode(order binary.ByteOrder, b []byte) []float64 {
	sz := t.size()
	out := make([]float64, len(b)/sz)
	for i := range out {
		p := b[i*sz:]
		switch t {
		case MATInt8:
			out[i] = float64(int8(p[0]))
		case MATUint8:
			out[i] = float64(p[0])
		case MATInt16:
			out[i] = float64(int16(order.Uint16(p)))
		case MATUint16:
			out[i] = float64(order.Uint16(p))
		case MATInt32:
			out[i] = float64(int32(order.Uint32(p)))
		case MATUint32:
			out[i] = float64(order.Uint32(p))
		case MATSingle:
			out[i] = float64(math.Float32frombits(order.Uint32(p)))
		case MATDouble:
			out[i] = math.Float64frombits(order.Uint64(p))
		case MATInt64:
			out[i] = float64(int64(order.Uint64(p)))
		case MATUint64:
			out[i] = float64(order.Uint64(p))
		}
	}
	return out
}

// encode appends v stored as t. It reports false when v is not exactly
// representable in t (a fraction or out of range for an integer type, a
// double that single precision rounds).
func (t MATType) encode(order binary.AppendByteOrder, dst []byte, v float64) ([]byte, bool) {
	integral := v == math.Trunc(v) && !math.IsInf(v, 0)
	inRange := func(lo, hi float64) bool { return integral && v >= lo && v <= hi }
	switch t {
	case MATInt8:
		return append(dst, byte(int8(v))), inRange(math.MinInt8, math.MaxInt8)
	case MATUint8:
		return append(dst, byte(v)), inRange(0, math.MaxUint8)
	case MATInt16:
		return order.AppendUint16(dst, uint16(int16(v))), inRange(math.MinInt16, math.MaxInt16)
	case MATUint16:
		return order.AppendUint16(dst, uint16(v)), inRange(0, math.MaxUint16)
	case MATInt32:
		return order.AppendUint32(dst, uint32(int32(v))), inRange(math.MinInt32, math.MaxInt32)
	case MATUint32:
		return order.AppendUint32(dst, uint32(v)), inRange(0, math.MaxUint32)
	case MATSingle:
		f := float32(v)
		return order.AppendUint32(dst, math.Float32bits(f)), float64(f) == v || math.IsNaN(v)
	case MATDouble:
		return order.AppendUint64(dst, math.Float64bits(v)), true
	case MATInt64:
		// 2^63 itself is out of range; -2^63 is in.
		ok := integral && v >= -(1<<63) && v < 1<<63
		if !ok {
			return dst, false
		}
		return order.AppendUint64(dst, uint64(int64(v))), true
	case MATUint64:
		ok := integral && v >= 0 && v < 1<<64
		if !ok {
			return dst, false
		}
		return order.AppendUint64(dst, uint64(v)), true
	}
	return dst, false
}

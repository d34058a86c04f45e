package data

import (
	"math"
	"math/big"
	"strconv"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// flat reports whether a column holds at most one value a row (a leaf, not repeated).
func flat(c *parquet.Column) bool { return c.Leaf() && !c.Repeated() }

// typeName is a column's type as a message names it: its physical type, and its
// logical type where it has one.
func typeName(c *parquet.Column) string {
	if !flat(c) {
		return "a nested or repeated column"
	}
	s := c.Type().Kind().String()
	if lt := c.Type().LogicalType(); lt != nil && lt.Value != nil {
		s += " (" + lt.String() + ")"
	}
	return s
}

// toFloat returns the conversion of a numeric column's values to float64, and false
// for a column that holds no numbers.
func toFloat(c *parquet.Column) (func(parquet.Value) float64, bool) {
	if !flat(c) {
		return nil, false
	}
	var lv format.LogicalTypeValue
	if lt := c.Type().LogicalType(); lt != nil {
		lv = lt.Value
	}
	switch t := lv.(type) {
	case nil:
	case *format.IntType:
		if !t.IsSigned {
			switch c.Type().Kind() {
			case parquet.Int32:
				return func(v parquet.Value) float64 { return float64(v.Uint32()) }, true
			case parquet.Int64:
				return func(v parquet.Value) float64 { return float64(v.Uint64()) }, true
			}
		}
	case *format.DecimalType:
		return decimalFloat(c.Type().Kind(), t.Scale)
	case *format.Float16Type:
		if c.Type().Kind() == parquet.FixedLenByteArray && c.Type().Length() == 2 {
			return func(v parquet.Value) float64 { return float16(v.ByteArray()) }, true
		}
		return nil, false
	default:
		return nil, false // strings, dates, times, timestamps, UUIDs, JSON, …
	}
	switch c.Type().Kind() {
	case parquet.Boolean:
		return func(v parquet.Value) float64 {
			if v.Boolean() {
				return 1
			}
			return 0
		}, true
	case parquet.Int32:
		return func(v parquet.Value) float64 { return float64(v.Int32()) }, true
	case parquet.Int64:
		return func(v parquet.Value) float64 { return float64(v.Int64()) }, true
	case parquet.Float:
		return func(v parquet.Value) float64 { return float64(v.Float()) }, true
	case parquet.Double:
		return func(v parquet.Value) float64 { return v.Double() }, true
	}
	return nil, false // INT96 (a legacy timestamp), byte arrays without a numeric type
}

// decimalFloat converts DECIMAL values (unscaled integer × 10^-scale) to the float64
// nearest to them, as strconv.ParseFloat reads the same number written out, so that a
// Parquet decimal and its CSV text give the same bits.
func decimalFloat(kind parquet.Kind, scale int32) (func(parquet.Value) float64, bool) {
	if scale < 0 || scale > 38 {
		return nil, false
	}
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
	var unscaled func(parquet.Value) *big.Int
	switch kind {
	case parquet.Int32:
		unscaled = func(v parquet.Value) *big.Int { return big.NewInt(int64(v.Int32())) }
	case parquet.Int64:
		unscaled = func(v parquet.Value) *big.Int { return big.NewInt(v.Int64()) }
	case parquet.FixedLenByteArray, parquet.ByteArray:
		unscaled = func(v parquet.Value) *big.Int { return twosComplement(v.ByteArray()) }
	default:
		return nil, false
	}
	return func(v parquet.Value) float64 {
		f, _ := new(big.Rat).SetFrac(unscaled(v), den).Float64()
		return f
	}, true
}

// decimalText writes a DECIMAL value as its exact decimal text.
func decimalText(kind parquet.Kind, scale int32, v parquet.Value) string {
	var u *big.Int
	switch kind {
	case parquet.Int32:
		u = big.NewInt(int64(v.Int32()))
	case parquet.Int64:
		u = big.NewInt(v.Int64())
	default:
		u = twosComplement(v.ByteArray())
	}
	if scale <= 0 || scale > 38 {
		return u.String()
	}
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
	return new(big.Rat).SetFrac(u, den).FloatString(int(scale))
}

// twosComplement reads a big-endian two's-complement integer, as DECIMAL stores it in
// byte arrays.
func twosComplement(b []byte) *big.Int {
	u := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		u.Sub(u, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return u
}

// float16 decodes an IEEE 754 half-precision number stored little-endian, as the
// FLOAT16 logical type lays it out.
func float16(b []byte) float64 {
	if len(b) != 2 {
		return math.NaN()
	}
	h := uint16(b[0]) | uint16(b[1])<<8
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp, frac := int(h>>10&0x1f), float64(h&0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	}
	return sign * math.Ldexp(1024+frac, exp-25)
}

// toText writes a value of any flat column as text, for ids and labels: strings as
// they are, numbers as strconv writes them, DECIMAL exactly, booleans as true/false.
func toText(c *parquet.Column, v parquet.Value) string {
	if lt := c.Type().LogicalType(); lt != nil {
		switch t := lt.Value.(type) {
		case *format.DecimalType:
			return decimalText(c.Type().Kind(), t.Scale, v)
		case *format.IntType:
			if !t.IsSigned {
				return strconv.FormatUint(v.Uint64()&uintMask(c.Type().Kind()), 10)
			}
		}
	}
	switch c.Type().Kind() {
	case parquet.Boolean:
		return strconv.FormatBool(v.Boolean())
	case parquet.Int32:
		return strconv.FormatInt(int64(v.Int32()), 10)
	case parquet.Int64:
		return strconv.FormatInt(v.Int64(), 10)
	case parquet.Float:
		return strconv.FormatFloat(float64(v.Float()), 'g', -1, 32)
	case parquet.Double:
		return strconv.FormatFloat(v.Double(), 'g', -1, 64)
	case parquet.ByteArray, parquet.FixedLenByteArray:
		return string(v.ByteArray())
	}
	return v.String()
}

func uintMask(k parquet.Kind) uint64 {
	if k == parquet.Int32 {
		return math.MaxUint32
	}
	return math.MaxUint64
}

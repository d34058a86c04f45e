package rowbody

import (
	"math"
	"math/big"
	"math/bits"
	"sync"
)

// The Eisel–Lemire algorithm (Daniel Lemire, "Number Parsing at a Gigabyte per Second",
// Software: Practice and Experience 51(8), 2021), as Go's strconv runs it after its own
// general reader: a decimal of at most 19 digits, man × 10^exp10, to the correctly rounded
// float64, or ok false in the rare cases it cannot decide (the caller then asks strconv).
// The function follows strconv's eiselLemire64 (Go's BSD licence); its table of powers
// of ten is computed here, not copied.

const (
	pow10MinExp = -348
	pow10MaxExp = 347
)

// pow10Mant()[e−pow10MinExp] is 10^e's 128-bit mantissa, {low, high}: the 128 leading
// bits of its binary expansion, rounded down, the highest bit set. The table is computed
// on the first number that needs it (0.4 ms), not at the start of every process that
// links the package.
var pow10Mant = sync.OnceValue(func() [][2]uint64 {
	out := make([][2]uint64, pow10MaxExp-pow10MinExp+1)
	ten := big.NewInt(10)
	for e := pow10MinExp; e <= pow10MaxExp; e++ {
		var m big.Int
		if e >= 0 {
			m.Exp(ten, big.NewInt(int64(e)), nil)
			if s := m.BitLen() - 128; s > 0 {
				m.Rsh(&m, uint(s))
			} else {
				m.Lsh(&m, uint(-s))
			}
		} else {
			// floor(2^k / 10^−e) with k such that the quotient has 128 bits.
			var p big.Int
			p.Exp(ten, big.NewInt(int64(-e)), nil)
			k := p.BitLen() + 127
			var num big.Int
			num.Lsh(big.NewInt(1), uint(k))
			m.Quo(&num, &p)
			if m.BitLen() > 128 {
				m.Rsh(&m, uint(m.BitLen()-128))
			}
		}
		var lo, hi big.Int
		lo.And(&m, new(big.Int).SetUint64(math.MaxUint64))
		hi.Rsh(&m, 64)
		out[e-pow10MinExp] = [2]uint64{lo.Uint64(), hi.Uint64()}
	}
	return out
})

// eiselLemire64 is man × 10^exp10, negated where neg, correctly rounded to a float64;
// ok false where the algorithm cannot decide, or the value is subnormal, infinite or out
// of the table's range.
func eiselLemire64(man uint64, exp10 int, neg bool) (f float64, ok bool) {
	if man == 0 {
		if neg {
			f = math.Copysign(0, -1)
		}
		return f, true
	}
	if exp10 < pow10MinExp || exp10 > pow10MaxExp {
		return 0, false
	}
	// Normalization.
	clz := bits.LeadingZeros64(man)
	man <<= uint(clz)
	const bias = 1023
	retExp2 := uint64(217706*exp10>>16+64+bias) - uint64(clz)
	// Multiplication.
	p := pow10Mant()[exp10-pow10MinExp]
	xHi, xLo := bits.Mul64(man, p[1])
	// Wider approximation.
	if xHi&0x1FF == 0x1FF && xLo+man < man {
		yHi, yLo := bits.Mul64(man, p[0])
		mergedHi, mergedLo := xHi, xLo+yHi
		if mergedLo < xLo {
			mergedHi++
		}
		if mergedHi&0x1FF == 0x1FF && mergedLo+1 == 0 && yLo+man < man {
			return 0, false
		}
		xHi, xLo = mergedHi, mergedLo
	}
	// Shifting to 54 bits.
	msb := xHi >> 63
	retMantissa := xHi >> (msb + 9)
	retExp2 -= 1 ^ msb
	// Half-way ambiguity.
	if xLo == 0 && xHi&0x1FF == 0 && retMantissa&3 == 1 {
		return 0, false
	}
	// From 54 to 53 bits.
	retMantissa += retMantissa & 1
	retMantissa >>= 1
	if retMantissa>>53 > 0 {
		retMantissa >>= 1
		retExp2++
	}
	// Zero or an underflow: subnormal; 0x7FF and above: infinite.
	if retExp2-1 >= 0x7FF-1 {
		return 0, false
	}
	retBits := retExp2<<52 | retMantissa&0x000FFFFFFFFFFFFF
	if neg {
		retBits |= 0x8000000000000000
	}
	return math.Float64frombits(retBits), true
}

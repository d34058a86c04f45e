// Package decimal reads a table cell's number in the decimal grammar that pandas and
// NumPy read: an optional sign, digits with an optional point, an optional exponent.
// strconv.ParseFloat also reads Go's literals (0x1p3, 1_000), which a table never
// means: here they are not numbers. NaN and Inf spelt out are passed through, so
// that callers refuse them as non-finite rather than as text.
package decimal

import (
	"strconv"
	"strings"
)

// Parse is s as a float64, as strconv.ParseFloat reads it, where s is a decimal number
// or a spelt-out NaN or infinity; otherwise a *strconv.NumError of strconv.ErrSyntax.
func Parse(s string) (float64, error) {
	if !IsDecimal(s) && !nonFinite(s) {
		return 0, &strconv.NumError{Func: "ParseFloat", Num: s, Err: strconv.ErrSyntax}
	}
	return strconv.ParseFloat(s, 64)
}

// IsDecimal reports whether s is [+-] digits [. digits] [(e|E) [+-] digits], with a
// digit on one side of the point at least.
func IsDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for ; i < len(s) && isDigit(s[i]); i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for ; i < len(s) && isDigit(s[i]); i++ {
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for ; i < len(s) && isDigit(s[i]); i++ {
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// nonFinite reports whether s spells NaN or an infinity, as strconv.ParseFloat reads them.
func nonFinite(s string) bool {
	t := strings.ToLower(strings.TrimLeft(s, "+-"))
	if len(s)-len(t) > 1 {
		return false
	}
	return t == "nan" || t == "inf" || t == "infinity"
}

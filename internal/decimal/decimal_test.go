package decimal

import (
	"strconv"
	"testing"
)

// TestParse checks the decimal grammar against strconv.ParseFloat: the same value where
// both read a number, and Go's own literals refused (hostile round 4, L14).
func TestParse(t *testing.T) {
	for _, s := range []string{"0", "-0", "+1", "1.", ".5", "-.5e-3", "1E+2", "3.4e38", "1e999", "007", "NaN", "-Inf", "+infinity"} {
		v, err := Parse(s)
		w, werr := strconv.ParseFloat(s, 64)
		if (err == nil) != (werr == nil) || err == nil && v != w && v == v {
			t.Errorf("Parse(%q) = %v, %v; ParseFloat %v, %v", s, v, err, w, werr)
		}
	}
	for _, s := range []string{"0x1p3", "0X1P-2", "1_0", "1e1_0", "0b1", "0o7", "", ".", "-", "e5", "1e", "1e+", "1.2.3", "--1", "+-inf", " 1", "1 ", "nan1"} {
		if v, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) = %v, want a syntax error", s, v)
		}
	}
}

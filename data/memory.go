package data

import "math"

// Limits on one row of delimited text, which is read whole before it is parsed: a line
// (a record, quoted newlines included) of at most maxLine bytes, holding at most
// maxCells cells. A row of 2^20 full-precision float64 cells ("-1.2345678901234567e-123,")
// is 26 MiB, within both.
const (
	maxLine  = 32 << 20
	maxCells = 1 << 20
)

// tableBytes is n×d float32 values, saturating at MaxInt64.
func tableBytes(n, d int64) int64 {
	if n < 0 || d < 0 || d > 0 && n > math.MaxInt64/4/d {
		return math.MaxInt64
	}
	return 4 * n * d
}

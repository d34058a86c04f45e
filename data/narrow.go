package data

import (
	"fmt"
	"math"
	"strconv"
)

// newDatasetWide is newDataset for a matrix read at full precision: X is x narrowed,
// and x is kept as the data set's wide values.
func newDatasetWide(n, d int, x []float64, y []float64) (*Dataset, error) {
	if n <= 0 || d <= 0 {
		return nil, fmt.Errorf("%d rows, %d columns: %w", n, d, errEmpty)
	}
	x32 := make([]float32, len(x))
	for k, v := range x {
		f, err := toFloat32(v)
		if err != nil {
			return nil, fmt.Errorf("row %d, column %d: %w", k/d+1, k%d+1, err)
		}
		x32[k] = f
	}
	ds, err := newDataset(n, d, x32, y, nil, MissingError)
	if err != nil {
		return nil, err
	}
	ds.wide = x
	return ds, nil
}

// exactInts are the values of a 64-bit integer matrix (NPY or NPZ dtype i8 or u8) as
// their bits, beside the float64 values that round those beyond 2^53: an id column's
// numbers become their text exactly (Dataset.wideText).
type exactInts struct {
	bits   []uint64
	signed bool
}

// float is bits as a number, rounded to float64 where it must be.
func (e *exactInts) float(bits uint64) float64 {
	if e.signed {
		return float64(int64(bits))
	}
	return float64(bits)
}

// text is bits as the integer's decimal text.
func (e *exactInts) text(bits uint64) string {
	if e.signed {
		return strconv.FormatInt(int64(bits), 10)
	}
	return strconv.FormatUint(bits, 10)
}

// wideText is the value at k (row-major) of a matrix read at full precision, as text
// that reads back to it exactly: a 64-bit integer's digits, a float's shortest spelling.
func (ds *Dataset) wideText(k int) string {
	if ds.wideInts != nil {
		return ds.wideInts.text(ds.wideInts.bits[k])
	}
	return strconv.FormatFloat(ds.wide[k], 'g', -1, 64)
}

// isNonFinite reports a NaN or ±Inf.
func isNonFinite(v float32) bool { return v != v || v > math.MaxFloat32 || v < -math.MaxFloat32 }

// narrow32 is v as float32, and false where v is finite but beyond float32's range (it
// would become an infinity): a NaN or an infinity stays one, as a missing cell or the
// caller's to refuse. The matrix formats' readers refuse the false case with errRange.
func narrow32(v float64) (float32, bool) {
	f := float32(v)
	return f, !isNonFinite(f) || math.IsNaN(v) || math.IsInf(v, 0)
}

// toFloat32 is v as the table holds it, or an error for a NaN, an infinity, or a finite
// value beyond float32's range (which would become one).
func toFloat32(v float64) (float32, error) {
	f := float32(v)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return 0, fmt.Errorf("%v: %w", v, errNonFinite)
	case isNonFinite(f):
		return 0, fmt.Errorf("%v: %w", v, errRange)
	}
	return f, nil
}

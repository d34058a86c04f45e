// Package scale standardises a table's columns as the networks see them (Scaler), fitted on
// the training rows and saved with a model.
package scale

import (
	"errors"
	"fmt"
	"math"

	"github.com/udocc/udocc/data"
)

// ErrColumns reports data whose column count differs from the Scaler's.
var ErrColumns = errors.New("column count differs from the fitted scaler")

// ErrScale reports a scaler's scale that is zero or negative.
var ErrScale = errors.New("scale is not positive")

// ErrEmpty reports a table without rows or columns to fit on.
var ErrEmpty = errors.New("no rows or no columns")

// ErrNonFinite reports a mean or scale that is NaN or infinite.
var ErrNonFinite = errors.New("value is NaN or infinite")

// Scaler standardises columns to zero mean and unit variance, the paper's
// preprocessing, exactly as scikit-learn's StandardScaler does: the scale
// is the population standard deviation (ddof = 0, divide by n), and a
// constant column keeps scale 1, so it transforms to exactly zero.
//
// The fields are exported and JSON-tagged so a Scaler fitted on training
// data can be saved with a model and applied to new data.
type Scaler struct {
	// Mean holds the fitted mean of each column.
	Mean []float64 `json:"mean"`
	// Scale holds the divisor of each column: the population standard
	// deviation, or 1 for a constant column.
	Scale []float64 `json:"scale"`
	// ConstantColumns lists the 0-based columns whose values were all
	// equal when fitted (nil if none).
	ConstantColumns []int `json:"constant_columns,omitempty"`
}

// Fit fits a Scaler to the columns of ds.
func Fit(ds *data.Dataset) (*Scaler, error) {
	if ds.N <= 0 || ds.D <= 0 || len(ds.X) != ds.N*ds.D {
		return nil, fmt.Errorf("scale: Fit: %s: %d×%d with %d values: %w", ds.Name, ds.N, ds.D, len(ds.X), ErrEmpty)
	}
	s := &Scaler{Mean: make([]float64, ds.D), Scale: make([]float64, ds.D)}
	for j := 0; j < ds.D; j++ {
		first, constant := float64(ds.X[j]), true
		sum := 0.0
		for i := 0; i < ds.N; i++ {
			v := float64(ds.X[i*ds.D+j])
			sum += v
			constant = constant && v == first
		}
		if constant {
			// The mean of equal values is that value; summing could round it.
			s.Mean[j], s.Scale[j] = first, 1
			s.ConstantColumns = append(s.ConstantColumns, j)
			continue
		}
		mean := sum / float64(ds.N)
		// Two-pass variance: the centred sum of squares keeps precision
		// where E[x²] − E[x]² would cancel.
		ss := 0.0
		for i := 0; i < ds.N; i++ {
			dv := float64(ds.X[i*ds.D+j]) - mean
			ss += dv * dv
		}
		s.Mean[j], s.Scale[j] = mean, math.Sqrt(ss/float64(ds.N))
		if s.Scale[j] == 0 || math.IsInf(s.Scale[j], 0) || math.IsNaN(s.Scale[j]) {
			return nil, fmt.Errorf("scale: Fit: %s: column %d: standard deviation %v: %w", ds.Name, j+1, s.Scale[j], ErrNonFinite)
		}
	}
	return s, nil
}

// Validate checks a Scaler read back from JSON: equal, non-zero lengths,
// finite means and finite positive scales.
func (s *Scaler) Validate() error {
	if len(s.Mean) == 0 || len(s.Mean) != len(s.Scale) {
		return fmt.Errorf("scale: %d means, %d scales: %w", len(s.Mean), len(s.Scale), ErrColumns)
	}
	for j := range s.Mean {
		m, sc := s.Mean[j], s.Scale[j]
		switch {
		case math.IsNaN(m) || math.IsInf(m, 0):
			return fmt.Errorf("scale: mean[%d] (column %d) is %v: want a finite number: %w", j, j+1, m, ErrNonFinite)
		case math.IsNaN(sc) || math.IsInf(sc, 0):
			return fmt.Errorf("scale: scale[%d] (column %d) is %v: want a finite number > 0: %w", j, j+1, sc, ErrNonFinite)
		case sc <= 0:
			return fmt.Errorf("scale: scale[%d] (column %d) is %v: want a number > 0 (a column's spread, which divides it): %w", j, j+1, sc, ErrScale)
		}
	}
	return nil
}

// Transform returns a copy of ds with each column standardised as
// (x − Mean[j]) / Scale[j] (Standardise). Labels and names are copied. ds must have as
// many columns as the data the Scaler was fitted on.
func (s *Scaler) Transform(ds *data.Dataset) (*data.Dataset, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if ds.D != len(s.Mean) || len(ds.X) != ds.N*ds.D {
		return nil, fmt.Errorf("scale: %s has %d columns, fitted on %d: %w", ds.Name, ds.D, len(s.Mean), ErrColumns)
	}
	out := *ds
	out.X = make([]float32, len(ds.X))
	s.Standardise(out.X, ds.X)
	out.Y = append([]int(nil), ds.Y...)
	out.Features = append([]string(nil), ds.Features...)
	return &out, nil
}

// Standardise writes the row-major rows x, of as many columns as the Scaler's,
// standardised into dst of the same length: column j as (x − Mean[j]) / Scale[j] in
// float64, rounded to float32. It is Transform into a buffer the caller owns, such as
// one chunk of a table at a time.
func (s *Scaler) Standardise(dst, x []float32) {
	d := len(s.Mean)
	if len(dst) != len(x) || len(x)%d != 0 {
		panic(fmt.Sprintf("data: Standardise: %d values into %d, %d columns", len(x), len(dst), d))
	}
	for k := 0; k < len(x); k += d {
		for j, v := range x[k : k+d] {
			dst[k+j] = float32((float64(v) - s.Mean[j]) / s.Scale[j])
		}
	}
}

// Reduce replaces buf by its element-wise sum over the parts of a table that different
// processes hold (a data-parallel run's all-reduce). Every part calls it with buffers of
// the same lengths in the same order.
type Reduce func(buf []float64) error

// FitParts fits the Scaler of a table split by rows into parts, one per process:
// ds is this process's part and first says whether it is the part that starts the
// table. Column sums, counts and centred sums of squares are summed over the parts with
// reduce, so the Scaler is Fit's of the whole table (up to the order of the sums'
// float additions). A constant column is one whose every value equals the table's first.
func FitParts(ds *data.Dataset, first bool, reduce Reduce) (*Scaler, error) {
	if ds.D <= 0 || ds.N < 0 || len(ds.X) != ds.N*ds.D || (first && ds.N == 0) {
		return nil, fmt.Errorf("scale: FitParts: %s: %d×%d with %d values: %w", ds.Name, ds.N, ds.D, len(ds.X), ErrEmpty)
	}
	d := ds.D
	// One buffer per pass: the first row (from the first part), then per column the sum
	// and the count of values unlike the first row's, then the row count.
	buf := make([]float64, 2*d+1)
	if first {
		for j, v := range ds.X[:d] {
			buf[j] = float64(v)
		}
	}
	if err := reduce(buf[:d]); err != nil {
		return nil, err
	}
	firstRow := append([]float64(nil), buf[:d]...)
	for j := range buf {
		buf[j] = 0
	}
	for i := 0; i < ds.N; i++ {
		for j := 0; j < d; j++ {
			v := float64(ds.X[i*d+j])
			buf[j] += v
			if v != firstRow[j] {
				buf[d+j]++
			}
		}
	}
	buf[2*d] = float64(ds.N)
	if err := reduce(buf); err != nil {
		return nil, err
	}
	n := buf[2*d]
	if n < 1 {
		return nil, fmt.Errorf("scale: FitParts: %s: no rows: %w", ds.Name, ErrEmpty)
	}
	s := &Scaler{Mean: make([]float64, d), Scale: make([]float64, d)}
	for j := 0; j < d; j++ {
		s.Mean[j] = buf[j] / n
	}
	ss := make([]float64, d)
	for i := 0; i < ds.N; i++ {
		for j := 0; j < d; j++ {
			dv := float64(ds.X[i*d+j]) - s.Mean[j]
			ss[j] += dv * dv
		}
	}
	if err := reduce(ss); err != nil {
		return nil, err
	}
	for j := 0; j < d; j++ {
		if buf[d+j] == 0 {
			s.Mean[j], s.Scale[j] = firstRow[j], 1
			s.ConstantColumns = append(s.ConstantColumns, j)
			continue
		}
		s.Scale[j] = math.Sqrt(ss[j] / n)
		if s.Scale[j] == 0 || math.IsInf(s.Scale[j], 0) || math.IsNaN(s.Scale[j]) {
			return nil, fmt.Errorf("scale: FitParts: %s: column %d: standard deviation %v: %w", ds.Name, j+1, s.Scale[j], ErrNonFinite)
		}
	}
	return s, nil
}

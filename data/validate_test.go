package data

import (
	"errors"
	"math"
	"testing"
)

func TestDatasetValidate(t *testing.T) {
	ok := func() *Dataset {
		return &Dataset{Name: "v", N: 2, D: 1, X: []float32{1, 2}, Y: []int{0, 1}, Features: []string{"a"}}
	}
	tests := []struct {
		name   string
		change func(*Dataset)
		want   error
	}{
		{"valid", func(*Dataset) {}, nil},
		{"zero rows", func(d *Dataset) { d.N, d.X, d.Y = 0, nil, nil }, errEmpty},
		{"values short", func(d *Dataset) { d.X = d.X[:1] }, ErrFormat},
		{"names short", func(d *Dataset) { d.Features = nil }, ErrFormat},
		{"labels short", func(d *Dataset) { d.Y = d.Y[:1] }, errLengthMismatch},
		{"label 2", func(d *Dataset) { d.Y[1] = 2 }, ErrLabel},
		{"infinite value", func(d *Dataset) { d.X[1] = float32(math.Inf(-1)) }, errNonFinite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := ok()
			tc.change(d)
			if err := d.Validate(); !errors.Is(err, tc.want) || (err == nil) != (tc.want == nil) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
		})
	}
}

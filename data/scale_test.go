package data

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"testing"
)

func TestScalerMatchesSklearn(t *testing.T) {
	ds := &Dataset{Name: "m", N: 4, D: 3, X: []float32{
		1, 5, -2,
		2, 5, 0.5,
		4, 5, 3.25,
		10, 5, 0.125,
	}, Y: []int{0, 0, 1, 0}, Features: []string{"a", "b", "c"}}
	// Made with scikit-learn 1.2.1 (Debian bookworm python3-sklearn):
	// s = StandardScaler().fit(X); s.mean_, s.scale_, s.transform(X),
	// s.transform([[0, 6, 1]]), printed with repr.
	wantMean := []float64{4.25, 5.0, 0.46875}
	wantScale := []float64{3.491060010942235, 1.0, 1.8674326460410828}
	wantX := []float64{-0.9309493362512627, 0.0, -1.322002164433452, -0.6445033866354896, 0.0, 0.01673420461308167,
		-0.0716114874039433, 0.0, 1.4893442105642687, 1.6470642102906956, 0.0, -0.18407625074389838}
	wantNew := []float64{-1.217395285867036, 1.0, 0.2844814784223884}

	s, err := FitScaler(ds)
	if err != nil {
		t.Fatal(err)
	}
	near := func(what string, got, want []float64) {
		t.Helper()
		for j := range want {
			if math.Abs(got[j]-want[j]) > 1e-12 {
				t.Errorf("%s[%d] = %.17g, scikit-learn %.17g", what, j, got[j], want[j])
			}
		}
	}
	// Transform rounds its float64 result to the float32 a Dataset holds: within half
	// a float32 ulp of scikit-learn's, |want|·2^-24.
	near32 := func(what string, got []float32, want []float64) {
		t.Helper()
		for j := range want {
			if math.Abs(float64(got[j])-want[j]) > math.Abs(want[j])*0x1p-24 {
				t.Errorf("%s[%d] = %.9g, scikit-learn %.17g", what, j, got[j], want[j])
			}
		}
	}
	near("Mean", s.Mean, wantMean)
	near("Scale", s.Scale, wantScale)
	if !slices.Equal(s.ConstantColumns, []int{1}) {
		t.Errorf("ConstantColumns %v, want [1]", s.ConstantColumns)
	}
	z, err := s.Transform(ds)
	if err != nil {
		t.Fatal(err)
	}
	near32("Transform", z.X, wantX)
	if z.X[1] != 0 || z.X[4] != 0 {
		t.Error("constant column not exactly zero")
	}
	if ds.X[0] != 1 || !slices.Equal(z.Y, ds.Y) {
		t.Error("Transform changed its input or lost the labels")
	}

	// A scaler saved as JSON transforms new data the same way.
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Scaler
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	z2, err := back.Transform(&Dataset{N: 1, D: 3, X: []float32{0, 6, 1}})
	if err != nil {
		t.Fatal(err)
	}
	near32("Transform(new)", z2.X, wantNew)
}

func TestScalerErrors(t *testing.T) {
	s := &Scaler{Mean: []float64{0, 0}, Scale: []float64{1, 1}}
	tests := []struct {
		name string
		err  func() error
		want error
	}{
		{"wrong column count", func() error {
			_, err := s.Transform(&Dataset{N: 1, D: 3, X: []float32{1, 2, 3}})
			return err
		}, ErrColumns},
		{"empty data set", func() error { _, err := FitScaler(&Dataset{}); return err }, ErrEmpty},
		{"zero scale from JSON", func() error {
			_, err := (&Scaler{Mean: []float64{0}, Scale: []float64{0}}).Transform(&Dataset{N: 1, D: 1, X: []float32{1}})
			return err
		}, ErrScale},
		{"infinite scale from JSON", func() error {
			return (&Scaler{Mean: []float64{0}, Scale: []float64{math.Inf(1)}}).Validate()
		}, ErrNonFinite},
		{"lengths differ", func() error { return (&Scaler{Mean: []float64{0}}).Validate() }, ErrColumns},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.err(); !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
		})
	}
}

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
		{"zero rows", func(d *Dataset) { d.N, d.X, d.Y = 0, nil, nil }, ErrEmpty},
		{"values short", func(d *Dataset) { d.X = d.X[:1] }, ErrFormat},
		{"names short", func(d *Dataset) { d.Features = nil }, ErrFormat},
		{"labels short", func(d *Dataset) { d.Y = d.Y[:1] }, ErrLengthMismatch},
		{"label 2", func(d *Dataset) { d.Y[1] = 2 }, ErrLabel},
		{"infinite value", func(d *Dataset) { d.X[1] = float32(math.Inf(-1)) }, ErrNonFinite},
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

package scale

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/udocc/udocc/data"
)

func TestScalerMatchesSklearn(t *testing.T) {
	ds := &data.Dataset{Name: "m", N: 4, D: 3, X: []float32{
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

	s, err := Fit(ds)
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
	z2, err := back.Transform(&data.Dataset{N: 1, D: 3, X: []float32{0, 6, 1}})
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
			_, err := s.Transform(&data.Dataset{N: 1, D: 3, X: []float32{1, 2, 3}})
			return err
		}, ErrColumns},
		{"empty data set", func() error { _, err := Fit(&data.Dataset{}); return err }, ErrEmpty},
		{"zero scale from JSON", func() error {
			_, err := (&Scaler{Mean: []float64{0}, Scale: []float64{0}}).Transform(&data.Dataset{N: 1, D: 1, X: []float32{1}})
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

// TestFitParts splits a table with a constant column into 1 and 3 parts, whose
// reduce sums the parts' buffers: the Scaler is Fit's of the whole table.
func TestFitParts(t *testing.T) {
	const n, d = 50, 3
	ds := &data.Dataset{Name: "t", N: n, D: d, X: make([]float32, n*d)}
	for i := 0; i < n; i++ {
		ds.X[i*d], ds.X[i*d+1], ds.X[i*d+2] = float32(i*i%17)+0.1, 2.5, float32(math.Sin(float64(i)))
	}
	want, err := Fit(ds)
	if err != nil {
		t.Fatal(err)
	}
	for _, parts := range []int{1, 3} {
		t.Run(fmt.Sprintf("%d parts", parts), func(t *testing.T) {
			got := make([]*Scaler, parts)
			red := newSumReducer(parts)
			var wg sync.WaitGroup
			for p := 0; p < parts; p++ {
				wg.Add(1)
				go func(p int) {
					defer wg.Done()
					lo, hi := p*n/parts, (p+1)*n/parts
					part := &data.Dataset{Name: "t", N: hi - lo, D: d, X: ds.X[lo*d : hi*d]}
					s, err := FitParts(part, p == 0, func(buf []float64) error { return red.reduce(buf) })
					if err != nil {
						t.Error(err)
					}
					got[p] = s
				}(p)
			}
			wg.Wait()
			for p, s := range got {
				if s == nil {
					continue
				}
				if !slices.Equal(s.ConstantColumns, want.ConstantColumns) {
					t.Errorf("part %d: constant columns %v, want %v", p, s.ConstantColumns, want.ConstantColumns)
				}
				for j := 0; j < d; j++ {
					if math.Abs(s.Mean[j]-want.Mean[j]) > 1e-12 || math.Abs(s.Scale[j]/want.Scale[j]-1) > 1e-12 {
						t.Errorf("part %d column %d: %g/%g, want %g/%g", p, j, s.Mean[j], s.Scale[j], want.Mean[j], want.Scale[j])
					}
				}
			}
		})
	}
}

// sumReducer sums the buffers of parts goroutines, call by call, as an all-reduce does.
type sumReducer struct {
	mu    sync.Mutex
	cond  *sync.Cond
	parts int
	sum   []float64
	in    int   // parts that added their buffer to this round's sum
	out   int   // parts that copied this round's result
	round int64 // completed rounds
}

func newSumReducer(parts int) *sumReducer {
	r := &sumReducer{parts: parts}
	r.cond = sync.NewCond(&r.mu)
	return r
}

func (r *sumReducer) reduce(buf []float64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.in == r.parts { // the previous round is still being read
		r.cond.Wait()
	}
	if r.in == 0 {
		r.sum = make([]float64, len(buf))
	}
	for i, v := range buf {
		r.sum[i] += v
	}
	r.in++
	round := r.round
	if r.in == r.parts {
		r.round++
		r.cond.Broadcast()
	}
	for r.round == round {
		r.cond.Wait()
	}
	copy(buf, r.sum)
	r.out++
	if r.out == r.parts {
		r.in, r.out = 0, 0
		r.cond.Broadcast()
	}
	return nil
}

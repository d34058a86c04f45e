package method

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// TestCombination works a two-member ensemble by hand and checks that new rows are scored
// with the scales learnt on the training rows.
func TestCombination(t *testing.T) {
	// member 1: median 2, MAD 1 → z = −1, 0, 1; member 2: median 4, MAD 2 → z = −1, 0, 1
	dist := [][]float64{{1, 2, 3}, {2, 4, 6}}
	// reconstruction: member 1 median 10, MAD 10 → −1, 0, 2; member 2 median 1, MAD 1 → 0, −1, 1
	rec := [][]float64{{0, 10, 30}, {1, 0, 2}}
	// distance mean −1, 0, 1 (median 0, MAD 1); reconstruction mean −0.5, −0.5, 1.5
	// (median −0.5, MAD 0 → mean deviation 2/3) → −0, −0, 3
	e, s, err := FitCombination(dist, rec, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.5 * -1, 0, 0.5*1 + 0.5*3}
	for i := range want {
		if math.Abs(s[i]-want[i]) > 1e-12 {
			t.Fatalf("training scores %v, want %v", s, want)
		}
	}
	// new row: distances 4 and 8 → z 2 and 2 → mean 2 → 2; reconstruction 10 and 1 → 0 and 0
	// → mean 0 → (0 + 0.5) / (2/3) = 0.75
	got, err := scoreCombined(e, [][]float64{{4}, {8}}, [][]float64{{10}, {1}})
	if err != nil {
		t.Fatal(err)
	}
	if w := 0.5*2 + 0.5*0.75; math.Abs(got[0]-w) > 1e-12 {
		t.Errorf("new row scored %v, want %v", got[0], w)
	}
	again, err := scoreCombined(e, dist, rec)
	if err != nil {
		t.Fatal(err)
	}
	for i := range s {
		if again[i] != s[i] {
			t.Fatalf("rescoring the training rows gave %v, fit gave %v", again, s)
		}
	}
	if _, s1, err := FitCombination(dist, nil, 1); err != nil || s1[2] != 1 {
		t.Errorf("distances alone: %v, %v", s1, err)
	}
}

func TestCombinationErrors(t *testing.T) {
	d := [][]float64{{1, 2, 3}}
	for _, c := range []struct {
		name string
		f    func() error
	}{
		{"weight above 1", func() error { _, _, err := FitCombination(d, d, 1.5); return err }},
		{"weight NaN", func() error { _, _, err := FitCombination(d, d, math.NaN()); return err }},
		{"no members", func() error { _, _, err := FitCombination(nil, nil, 1); return err }},
		{"reconstruction missing", func() error { _, _, err := FitCombination(d, nil, 0.5); return err }},
		{"score with another member count", func() error {
			e, _, _ := FitCombination(d, d, 0.5)
			_, err := scoreCombined(e, [][]float64{{1}, {2}}, [][]float64{{1}, {2}})
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.f() == nil {
				t.Error("no error")
			}
		})
	}
}

// TestCombinationOfFloat32 checks that reconstruction errors given as float32 combine to
// the numbers of their float64 widening, to the bit: the scales learnt and the scores of
// the training rows and of new rows.
func TestCombinationOfFloat32(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const k, n = 3, 1001
	dist := make([][]float64, k)
	rec32 := make([][]float32, k)
	rec64 := make([][]float64, k)
	for m := range k {
		dist[m] = make([]float64, n)
		rec32[m] = make([]float32, n)
		rec64[m] = make([]float64, n)
		for i := range n {
			dist[m][i] = float64(float32(r.ExpFloat64()))
			rec32[m][i] = float32(r.ExpFloat64() * float64(m+1))
			rec64[m][i] = float64(rec32[m][i])
		}
	}
	e64, s64, err := FitCombination(dist, rec64, 0.3)
	if err != nil {
		t.Fatal(err)
	}
	// FitEnsembleTaking fits the float32 errors (through a copy of the outer slice, which
	// it clears) and lets them go.
	taken := slices.Clone(rec32)
	e32, s32, err := fitCombinationTaking(dist, taken, 0.3)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(e32, e64) || !slices.Equal(s32, s64) {
		t.Fatal("float32 reconstruction errors fit another ensemble than their float64 widening")
	}
	for m, r := range taken {
		if r != nil {
			t.Errorf("FitEnsembleTaking kept member %d's reconstruction errors", m)
		}
	}
	new64, err := scoreCombined(e64, dist, rec64)
	if err != nil {
		t.Fatal(err)
	}
	new32, err := scoreCombined(e64, dist, rec32)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(new32, new64) || !slices.Equal(new64, s64) {
		t.Error("float32 reconstruction errors score rows differently")
	}
}

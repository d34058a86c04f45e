package stats

import (
	"slices"
	"testing"
)

func TestWiden(t *testing.T) {
	xs := []float32{1.5, 0.1, -3}
	want := []float64{1.5, float64(float32(0.1)), -3} // 0.1 as float32 holds it: 0.10000000149011612
	t.Run("into a new array", func(t *testing.T) {
		if got := Widen(nil, xs); !slices.Equal(got, want) {
			t.Errorf("Widen(nil, %v) = %v, want %v", xs, got, want)
		}
	})
	t.Run("into dst's array when it is large enough", func(t *testing.T) {
		dst := make([]float64, 1, 8)
		got := Widen(dst, xs)
		if !slices.Equal(got, want) || &got[0] != &dst[0] {
			t.Errorf("Widen(dst, %v) = %v in a new array: %v", xs, got, &got[0] != &dst[0])
		}
	})
	t.Run("float64 values unchanged", func(t *testing.T) {
		if got := Widen(nil, want); !slices.Equal(got, want) {
			t.Errorf("Widen(nil, %v) = %v", want, got)
		}
	})
}

package stats

// Real is a float type whose values widen exactly to float64.
type Real interface{ ~float32 | ~float64 }

// Widen returns xs as float64 values, exactly, in dst's array when its capacity holds
// len(xs) values and in a new one otherwise.
func Widen[R Real](dst []float64, xs []R) []float64 {
	if cap(dst) < len(xs) {
		dst = make([]float64, len(xs))
	}
	dst = dst[:len(xs)]
	for i, v := range xs {
		dst[i] = float64(v)
	}
	return dst
}

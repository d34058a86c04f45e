package data

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestNPYFastPath: a little-endian float64, float32 or int64 array, in C or Fortran order, which parseNPY
// reads a block at a time, gives the values the general loop gives the same numbers
// stored big-endian, for lengths around the read's block; and a float64 beyond
// float32's range is refused naming its row and column, as the general loop does.
func TestNPYFastPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 7, npyBlock/8 - 1, npyBlock / 8, npyBlock/8 + 3, 3*npyBlock/4 + 5} {
		cols := 3
		rows := (n + cols - 1) / cols
		n = rows * cols
		for _, code := range []string{"f8", "f4", "i8"} {
			sz := map[string]int{"f8": 8, "f4": 4, "i8": 8}[code]
			le, be := make([]byte, n*sz), make([]byte, n*sz)
			for i := 0; i < n; i++ {
				v := rng.NormFloat64() * math.Pow(10, float64(rng.IntN(60)-30))
				switch {
				case i%11 == 0:
					v = math.NaN()
				case i%13 == 0:
					v = math.Inf(-1)
				}
				switch code {
				case "i8":
					w := int64(rng.Uint64() >> rng.IntN(64))
					binary.LittleEndian.PutUint64(le[8*i:], uint64(w))
					binary.BigEndian.PutUint64(be[8*i:], uint64(w))
				case "f8":
					binary.LittleEndian.PutUint64(le[8*i:], math.Float64bits(v))
					binary.BigEndian.PutUint64(be[8*i:], math.Float64bits(v))
				default:
					binary.LittleEndian.PutUint32(le[4*i:], math.Float32bits(float32(v)))
					binary.BigEndian.PutUint32(be[4*i:], math.Float32bits(float32(v)))
				}
			}
			for _, fortran := range []bool{false, true} {
				fast, err := parseNPY(bytes.NewReader(npyBytes("<"+code, fortran, []int{rows, cols}, le)), -1, false)
				if err != nil {
					t.Fatal(err)
				}
				slow, err := parseNPY(bytes.NewReader(npyBytes(">"+code, fortran, []int{rows, cols}, be)), -1, false)
				if err != nil {
					t.Fatal(err)
				}
				for i := range slow.x {
					if math.Float32bits(fast.x[i]) != math.Float32bits(slow.x[i]) {
						t.Fatalf("%d values of %s, Fortran order %v: value %d is %v, the general loop's %v", n, code, fortran, i, fast.x[i], slow.x[i])
					}
				}
			}
		}
	}
	raw := make([]byte, 6*8)
	for i := range 6 {
		v := 1.0
		if i == 4 {
			v = 1e300
		}
		binary.LittleEndian.PutUint64(raw[8*i:], math.Float64bits(v))
	}
	// Element 4 is row 2, column 2 in C order; row 1, column 3 in Fortran order.
	for fortran, want := range map[bool]string{false: "row 2, column 2", true: "row 1, column 3"} {
		_, err := parseNPY(bytes.NewReader(npyBytes("<f8", fortran, []int{2, 3}, raw)), -1, false)
		if !errors.Is(err, errRange) || !strings.Contains(err.Error(), want) {
			t.Fatalf("1e300 at %s (Fortran order %v): error %v", want, fortran, err)
		}
	}
}

// BenchmarkParseNPY reads a 20,000 × 100 array of NumPy's float64, in C and in Fortran
// order (ADBench's .npz files are mostly Fortran): the block-at-a-time conversion.
func BenchmarkParseNPY(b *testing.B) {
	const rows, cols = 20000, 100
	raw := make([]byte, rows*cols*8)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < rows*cols; i++ {
		binary.LittleEndian.PutUint64(raw[8*i:], math.Float64bits(rng.NormFloat64()))
	}
	for _, fortran := range []bool{false, true} {
		file := npyBytes("<f8", fortran, []int{rows, cols}, raw)
		b.Run(map[bool]string{false: "C", true: "Fortran"}[fortran], func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for i := 0; i < b.N; i++ {
				if _, err := parseNPY(bytes.NewReader(file), int64(len(file)), false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

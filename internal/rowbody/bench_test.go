package rowbody

import (
	"bytes"
	"io"
	"math/rand/v2"
	"strconv"
	"testing"
)

// BenchmarkJSON reads 1,000 rows of 21 columns (cardio's width) sent as JSON arrays of
// float32 values written as float64s (17 digits: strconv's general reader) and as
// float32s (the shortest digits that give the value back: the exact fast path).
func BenchmarkJSON(b *testing.B) {
	b.Run("digits=64", func(b *testing.B) { benchJSON(b, 64) })
	b.Run("digits=32", func(b *testing.B) { benchJSON(b, 32) })
}

func benchJSON(b *testing.B, bits int) {
	const n, d = 1000, 21
	rng := rand.New(rand.NewPCG(1, 1))
	var body bytes.Buffer
	body.WriteString(`{"rows":[`)
	for i := range n {
		if i > 0 {
			body.WriteByte(',')
		}
		body.WriteByte('[')
		for j := range d {
			if j > 0 {
				body.WriteByte(',')
			}
			body.Write(strconv.AppendFloat(nil, float64(float32(rng.NormFloat64())), 'g', -1, bits))
		}
		body.WriteByte(']')
	}
	body.WriteString("]}")
	buf := make([]float32, 4096*d)
	for b.Loop() {
		r := NewJSON(bytes.NewReader(body.Bytes()), Columns{D: d})
		for {
			_, err := r.Next(buf)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.SetBytes(int64(body.Len()))
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "rows/s")
}

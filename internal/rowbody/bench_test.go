package rowbody

import (
	"bytes"
	"io"
	"math/rand/v2"
	"strconv"
	"testing"
)

// BenchmarkJSON reads 1,000 rows of 21 columns (cardio's width) sent as JSON arrays.
func BenchmarkJSON(b *testing.B) {
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
			body.Write(strconv.AppendFloat(nil, float64(float32(rng.NormFloat64())), 'g', -1, 64))
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

package detector_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/udocc/udocc/internal/detector"
)

// BenchmarkHandlerScore is the handler's cost of a score request of 1 and of 1,000
// rows of cardio (the default model fitted on it, saved and loaded), without the network: parsing, scoring
// and the response. bench/serveload measures the server over HTTP.
func BenchmarkHandlerScore(b *testing.B) {
	ds, m := oddsFit(b, "cardio.mat")
	model := filepath.Join(b.TempDir(), "model")
	err := m.Save(model)
	m.Close()
	if err != nil {
		b.Fatal(err)
	}
	h, err := loadHandler(detector.HandlerOptions{Dir: model, Logger: quietLog()}) // as udocc serve
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	for _, n := range []int{1, 1000} {
		var body bytes.Buffer
		body.WriteString(`{"rows":[`)
		for i := range n {
			if i > 0 {
				body.WriteByte(',')
			}
			body.WriteByte('[')
			for j, v := range ds.Row(i % ds.N) {
				if j > 0 {
					body.WriteByte(',')
				}
				body.Write(strconv.AppendFloat(nil, float64(v), 'g', -1, 64))
			}
			body.WriteByte(']')
		}
		body.WriteString("]}")
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, "/v1/score", bytes.NewReader(body.Bytes()))
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

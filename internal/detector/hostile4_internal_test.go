package detector

import (
	"context"
	"math/rand/v2"
	"testing"
)

// TestScoredJSONSizedByRows checks that the score response's buffer grows with the
// rows times the explained features, not with the rows squared (hostile round 4, B1:
// 100,000 rows with ?explain=1 asked for 400 GB).
func TestScoredJSONSizedByRows(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 1))
	rows := make([][]float64, 40)
	for i := range rows {
		rows[i] = []float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
	}
	m, err := Fit(context.Background(), rows, Ensemble{ScreenEpochs: 1}, Options{Members: 1, PretrainEpochs: 1, Epochs: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	s := &served{m: m, info: ModelInfo{Version: "v", Columns: []string{"a", "b", "c"}}}
	const n = 2000
	res := &scored{scores: make([]float64, n), top: make([][]int, n), parts: make([][]float64, n), shares: make([][]float64, n)}
	for i := range n {
		res.scores[i] = float64(i)
		res.top[i], res.parts[i], res.shares[i] = []int{i % 3}, []float64{0.5}, []float64{1}
	}
	b := res.json(s)
	if cap(b) > 2*len(b)+4096 {
		t.Fatalf("a %d-byte response in a %d-byte buffer", len(b), cap(b))
	}
}

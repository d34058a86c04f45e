package torch

import (
	"math/rand/v2"
	"testing"
)

// TestDeepSAD checks Deep SAD's loss (Group.SetLabels): labelled anomalies end farther
// from the center, relative to the other rows, than the one-class loss leaves them, and
// the fast path and libtorch's give the same numbers.
func TestDeepSAD(t *testing.T) {
	const n, d, k = 200, 5, 2
	r := rand.New(rand.NewPCG(7, 1))
	x := make([]float32, n*d)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	labels := make([]int8, n)
	for i := 0; i < 40; i += 10 {
		labels[i+9] = -1 // ordinary rows answered as anomalies
		labels[i] = 1
	}
	run := func(reference, labelled bool) []float32 {
		g, err := NewGroup([]int{d, 16, 8}, k, false, "cpu", []uint64{3, 4})
		must(t, err)
		defer g.Close()
		g.SetReference(reference)
		must(t, g.SetData(x, n, d))
		must(t, g.InitCenter(0.1))
		must(t, g.ResetAdam(Encoder, []float64{1e-2, 1e-2}, []float64{0, 0}))
		if labelled {
			must(t, g.SetLabels(labels, 1))
		}
		obj := Objective{Soft: make([]uint8, k), Nu: make([]float64, k), UpdateR: make([]uint8, k)}
		pr := rand.New(rand.NewPCG(1, 2))
		for e := 0; e < 10; e++ {
			_, err := g.TrainEpoch(maskedPlan(pr, k, n, 32, false, false), obj, nil)
			must(t, err)
		}
		dist, err := g.Distances()
		must(t, err)
		return dist
	}
	ratio := func(dist []float32) float64 {
		var a, o float64
		for i := 0; i < k*n; i++ {
			if labels[i%n] < 0 {
				a += float64(dist[i])
			} else {
				o += float64(dist[i])
			}
		}
		return (a / 8) / (o / float64(k*n-8))
	}
	plain, sad := run(false, false), run(false, true)
	t.Logf("answered anomalies' distance over the others': %.3g with Deep SAD, %.3g without", ratio(sad), ratio(plain))
	if ratio(sad) <= 2*ratio(plain) {
		t.Errorf("answered anomalies' distance over the others': %.3g with Deep SAD, %.3g without", ratio(sad), ratio(plain))
	}
	if ref := run(true, true); relDiff32(sad, ref) > 1e-3 {
		t.Errorf("fast and libtorch paths differ by %.3g", relDiff32(sad, ref))
	}
	g, err := NewGroup([]int{d, 8}, 1, false, "cpu", []uint64{1})
	must(t, err)
	defer g.Close()
	must(t, g.SetData(x, n, d))
	if err := g.SetLabels(labels[:10], 1); err == nil {
		t.Error("labels of 10 rows for 200: no error")
	}
	if err := g.SetLabels([]int8{2}, 1); err == nil {
		t.Error("a label of 2: no error")
	}
}

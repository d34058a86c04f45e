package detector_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/udocc/udocc/internal/detector"
)

// TestConcurrentCalls checks the concurrency contract Model states: Score and Explain
// (Shapley values and integrated gradients) run from several goroutines at once on one
// model give, to the bit, what they give one at a time.
func TestConcurrentCalls(t *testing.T) {
	ctx := context.Background()
	m := fitted(t, detector.Ensemble{}, table(200, 4, 3))
	rows := table(150, 4, 4)
	want, err := m.Score(ctx, rows)
	if err != nil {
		t.Fatal(err)
	}
	explain := func(meth detector.ExplainMethod) [][]float64 {
		atts, err := m.ExplainDataset(ctx, dataset(t, rows), []int{9, 19, 29}, detector.ExplainOptions{Method: meth})
		if err != nil {
			t.Error(err)
			return nil
		}
		var out [][]float64
		for _, a := range atts {
			out = append(out, a.Features)
		}
		return out
	}
	wantShap, wantIG := explain(detector.Shapley), explain(detector.IntegratedGradients)
	var wg sync.WaitGroup
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 4 {
				got, err := m.Score(ctx, rows)
				if err != nil || !slices.Equal(got, want) {
					t.Errorf("goroutine %d: Score differs from the serial call (err %v)", g, err)
					return
				}
				for _, c := range []struct {
					meth detector.ExplainMethod
					want [][]float64
				}{{detector.Shapley, wantShap}, {detector.IntegratedGradients, wantIG}} {
					got := explain(c.meth)
					if !slices.EqualFunc(got, c.want, slices.Equal[[]float64]) {
						t.Errorf("goroutine %d: %s differs from the serial call", g, c.meth)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

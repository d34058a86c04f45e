package method

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/udocc/udocc/internal/scale"
	"github.com/udocc/udocc/internal/torch"
)

// TestFineTuneKeptRecon fine-tunes two fits of one table alike: one scores the rows again
// through the encoders alone, with the reconstruction errors its fit kept; the other,
// which lost them, through every network. The scores and the combination are the same
// bits, and the same again on three threads.
func TestFineTuneKeptRecon(t *testing.T) {
	ds := testTable(200, 3, 4)
	sc, err := scale.Fit(ds)
	if err != nil {
		t.Fatal(err)
	}
	labels := make([]int8, ds.N)
	for i := 0; i < 40; i++ {
		labels[i] = 1
	}
	for _, i := range []int{190, 195, 199} {
		labels[i] = -1
	}
	o := SAD{Eta: 30, Epochs: 3, LR: 0.01, Rows: 64, Seed: 5}
	tune := func(keep bool) ([]float64, any) {
		cfg := testConfig(t, Ensemble, []uint64{0, 1, 2}, false)
		fit, _, err := Fit(context.Background(), Table{DS: ds, Scaler: sc}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer fit.Close()
		if len(fit.(*ensemble).recon) != ds.N {
			t.Fatalf("the fit kept %d reconstruction errors of %d rows", len(fit.(*ensemble).recon), ds.N)
		}
		if !keep {
			fit.(*ensemble).recon = nil
		}
		s, comb, err := FineTune(context.Background(), fit, ds, nil, labels, o)
		if err != nil {
			t.Fatal(err)
		}
		if fit.(*ensemble).recon != nil {
			t.Error("the kept reconstruction outlives the fine-tuning")
		}
		return s, *comb
	}
	fast, fc := tune(true)
	full, uc := tune(false)
	if !slices.Equal(fast, full) || !reflect.DeepEqual(fc, uc) {
		t.Errorf("the encoders-only rescoring differs from the full one (combinations equal: %v)", reflect.DeepEqual(fc, uc))
	}
	// The encoders fine-tune on the fit's threads, one a task: three threads give the
	// scores and combination of one.
	defer torch.SetNumThreads(torch.NumThreads())
	torch.SetNumThreads(3)
	three, tc := tune(true)
	if !slices.Equal(fast, three) || !reflect.DeepEqual(fc, tc) {
		t.Errorf("fine-tuned on 3 threads, the scores differ from 1 thread's (combinations equal: %v)", reflect.DeepEqual(fc, tc))
	}
}

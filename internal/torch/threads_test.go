package torch

import (
	"fmt"
	"slices"
	"testing"
)

// TestThreadCountsBitIdentical runs the fast path's short fit (runPath: pretraining and
// fine-tuning over plans whose members end at different steps, with passengers and a
// step that only scores) at 1, 2, 3, 4 and 8 threads, with 5 and 7 members: losses,
// distances, train-mode distances, reconstructions, centers, radii and weights must be
// the same bits at every thread count. Members are dealt to the threads in pieces
// (parallel_chains), so this covers chains cut between threads, a thread per chain and
// threads left idle.
func TestThreadCountsBitIdentical(t *testing.T) {
	const n, d = 700, 6
	x := synth(n, d, 5)
	defer SetNumThreads(NumThreads())
	for _, k := range []int{5, 7} {
		SetNumThreads(1)
		want := runPath(t, false, k, x, n, d)
		for _, threads := range []int{2, 3, 4, 8} {
			SetNumThreads(threads)
			got := runPath(t, false, k, x, n, d)
			what := fmt.Sprintf("K=%d, %d threads", k, threads)
			for name, pair := range map[string][2][]float64{
				"pretraining losses": {want.preLoss, got.preLoss},
				"fine-tuning losses": {want.loss, got.loss},
			} {
				if !slices.Equal(pair[0], pair[1]) {
					t.Errorf("%s: %s differ from 1 thread's", what, name)
				}
			}
			for name, pair := range map[string][2][]float32{
				"distances": {want.dist, got.dist}, "train-mode distances": {want.trainDist, got.trainDist},
				"reconstructions": {want.recon, got.recon}, "centers": {want.center, got.center},
				"radii": {want.rad, got.rad},
			} {
				if !slices.Equal(pair[0], pair[1]) {
					t.Errorf("%s: %s differ from 1 thread's", what, name)
				}
			}
			for name, w := range want.params {
				if !slices.Equal(w, got.params[name]) {
					t.Errorf("%s: %s differs from 1 thread's", what, name)
				}
			}
		}
	}
}

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

// TestWithThreadsScoped checks that a call's thread count holds during the call only:
// overlapping scopes run on the largest count among them, and when the last ends the
// count is the one from before the first began, whatever order they end in.
func TestWithThreadsScoped(t *testing.T) {
	SetNumThreads(3)
	defer SetNumThreads(1)
	endA := WithThreads(2)
	if got := NumThreads(); got != 2 {
		t.Errorf("in one scope of 2: %d threads", got)
	}
	endB := WithThreads(5)
	if got := NumThreads(); got != 5 {
		t.Errorf("in scopes of 2 and 5: %d threads, want 5", got)
	}
	endB()
	endB() // ending twice ends once
	if got := NumThreads(); got != 2 {
		t.Errorf("after the scope of 5 ended: %d threads, want 2", got)
	}
	endC := WithThreads(4)
	endA()
	if got := NumThreads(); got != 4 {
		t.Errorf("the scope of 4 alone: %d threads, want 4", got)
	}
	endC()
	if got := NumThreads(); got != 3 {
		t.Errorf("after every scope: %d threads, want the 3 set before them", got)
	}
}

// Package fitrecord carries, through a fit's context, a place for the default
// detector's intermediate per-row scores: the screening fit's scores and each
// member's distances and reconstruction errors on every row. The library fills it
// when the context passed to udocc.FitDataset holds one; the score and threshold
// study (package bench) reads it, so that what it measures is what `udocc fit` and
// the library's Fit compute, not a copy of them. A fit without one keeps nothing.
package fitrecord

import "context"

// Record is what a fit of the ensemble method leaves in it; fields a fit does not
// produce stay nil.
type Record struct {
	// Screen are the screening fit's combined scores of every row (nil without a
	// screening fit).
	Screen []float64
	// Dist and Rec are member k's distances and reconstruction errors of every row
	// under the final networks, as the model scores them.
	Dist, Rec [][]float32
	// ScreenEpochs are member k's eval-mode distances of every row after each of the
	// screening fit's fine-tuning epochs, [k][epoch-1][row] (nil without a screening
	// fit): the training dynamics the count study ranks.
	ScreenEpochs [][][]float32
}

type key struct{}

// With returns ctx carrying r.
func With(ctx context.Context, r *Record) context.Context {
	return context.WithValue(ctx, key{}, r)
}

// From is the Record ctx carries, or nil.
func From(ctx context.Context) *Record {
	r, _ := ctx.Value(key{}).(*Record)
	return r
}

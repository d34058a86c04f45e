package dynamics

import (
	"fmt"
	"math"
)

// All trains every epoch on every row: the selector of plain OC and SB Deep SVDD, which
// pseudo-label nothing. Those methods label with their own boundary (the training
// package's job), so All has no threshold.
type All struct {
	n, last int
}

// NewAll returns an All selector for n ≥ 2 rows.
func NewAll(n int) (*All, error) {
	if n < MinTrainRows {
		return nil, fmt.Errorf("dynamics: all selector over %d rows: %w", n, ErrTooFewRows)
	}
	return &All{n: n}, nil
}

// Name returns "all".
func (a *All) Name() string { return "all" }

// Next implements Selector: every row, every epoch. All reads no scores, so scores may
// be nil (a caller need not score the rows for it); scores that are given are checked.
func (a *All) Next(e int, scores []float64) ([]bool, Record, error) {
	var err error
	if scores == nil {
		err = checkEpoch(a.last, e)
	} else {
		err = checkNext(a.last, e, a.n, scores)
	}
	if err != nil {
		return nil, Record{}, err
	}
	a.last = e
	return allRows(a.n), newRecord(e, a.n), nil
}

// Label always returns ErrNoThreshold, with nil labels and threshold +Inf, so that a
// caller cannot mistake "nothing flagged" for a result of OC.
func (a *All) Label([]float64) ([]bool, float64, error) {
	return nil, math.Inf(1), fmt.Errorf("dynamics: all: %w", ErrNoThreshold)
}

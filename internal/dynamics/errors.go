package dynamics

import "errors"

// Sentinel errors, wrapped with context by the functions that return them.
var (
	// ErrTooFewRows: the data set is too small for the method (the δ search needs n ≥ 3,
	// a training mask needs 2 rows).
	ErrTooFewRows = errors.New("too few rows")
	// ErrNonFinite: a score or value is NaN or ±Inf.
	ErrNonFinite = errors.New("non-finite value")
	// ErrLength: a score slice does not have one entry per row.
	ErrLength = errors.New("wrong number of scores")
	// ErrEpoch: Next was not called with epochs 1, 2, 3, … in order.
	ErrEpoch = errors.New("epochs out of order")
	// ErrNotReady: Label was called before the selector had a threshold.
	ErrNotReady = errors.New("no threshold yet")
	// ErrNoThreshold: the selector never labels (All).
	ErrNoThreshold = errors.New("selector has no threshold")
	// ErrOption: an option is out of range.
	ErrOption = errors.New("invalid option")
)

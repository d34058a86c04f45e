package detector

import "github.com/udocc/udocc/internal/method"

// ErrUnscorable reports a row whose score is not a finite number: a value so far from
// the training rows (in the training scale) that the float32 networks overflow on it,
// such as 1e19 or ±3.4e38 in a column of values near 1. A row is never given a NaN or
// infinite score; the error names it and its farthest column.
var ErrUnscorable = method.ErrUnscorable

// UnscorableError is ErrUnscorable at a row (errors.Is matches ErrUnscorable): the
// first row that cannot be scored, 1-based, and its farthest column from the training
// center, by name and 1-based position, with its value.
type UnscorableError = method.UnscorableError

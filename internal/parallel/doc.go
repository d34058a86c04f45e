// Package parallel runs a fit's host work (work in Go, not in the shim) on the fit's
// threads: n tasks of a fixed decomposition, each task writing outputs of its own, so
// that what the tasks compute never depends on how many threads run them or in which
// order. It is not a scheduler of reductions: a caller that combines the tasks' results
// does so afterwards, in task order. For is where callers start; the thread count is
// package torch's (torch.NumThreads), which a fit sets once.
package parallel

package detector

import "github.com/udocc/udocc/internal/models"

// AllReduce is Dist's all-reduce, for the tests that mark their place in a run's
// collective trace.
func AllReduce(d *Dist, buf []float64) error { return d.t.AllReduce(buf) }

// SetExplainBudget sets the values an explanation block holds (explainBudget) and
// returns a function that restores it: tests shrink it to one unit a block.
func SetExplainBudget(v int) (restore func()) {
	old := explainBudget
	explainBudget = v
	return func() { explainBudget = old }
}

// SetMaxModelBytes sets the most bytes a model.json may have (models.SetMaxBytes) and
// returns a function that restores it.
func SetMaxModelBytes(n int64) (restore func()) { return models.SetMaxBytes(n) }

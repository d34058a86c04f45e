package bench

import "sync"

// Progress is where a grid stands, as Options.Progress hears it after every epoch of
// every group and whenever something ends.
type Progress struct {
	// Done is the share of the session's work done, in [0, 1]: work is counted in
	// row-epochs (see cost), so elapsed time / Done estimates the whole session's.
	Done float64
	// Finished are the runs that ended (written or failed) of the Runs to train.
	Finished, Runs int
	// Event says what just happened ("cardio: 50 runs (5 methods x 10 seeds) done in
	// 31.2 s"); "" after an epoch.
	Event string
}

// tracker counts the work of a session and tells Options.Progress, one call at a time
// (the jobs train concurrently).
type tracker struct {
	mu     sync.Mutex
	report func(Progress) // nil: nobody listens
	total  float64
	done   float64
	p      Progress
}

func newTracker(report func(Progress), total float64, runs int) *tracker {
	return &tracker{report: report, total: total, p: Progress{Runs: runs}}
}

// add counts units of work done.
func (t *tracker) add(units float64) { t.tell(units, 0, "") }

// finished counts the runs of a group that ended and says what ended.
func (t *tracker) finished(runs int, what string) { t.tell(0, runs, what) }

// event says something that happened, counting nothing.
func (t *tracker) event(what string) { t.tell(0, 0, what) }

func (t *tracker) tell(units float64, runs int, what string) {
	if t.report == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done += units
	t.p.Done = 1
	if t.total > 0 {
		t.p.Done = min(1, t.done/t.total)
	}
	t.p.Finished += runs
	t.p.Event = what
	t.report(t.p)
}

package detector

import (
	"context"
	"errors"

	"github.com/udocc/udocc/data"
)

// batchRows are the most rows the scorer gathers from waiting requests into one call
// of the model.
const batchRows = 4096

// scoreJob is one request's chunk of rows, scored by the model's scorer.
type scoreJob struct {
	ctx     context.Context
	x       []float32 // n rows of the model's inputs
	n       int
	explain bool // also attribute the rows' scores (Model.ExplainDataset); scored alone
	scores  []float64
	att     []Attribution
	err     error
	bad     *UnscorableError // with ErrUnscorable: the first row of x that cannot be scored
	done    chan struct{}
}

// scorer is the goroutine that scores s's requests. It takes the rows of every request
// waiting when it comes round and scores them in one call: a row's score does not depend on the rows scored with it, and many small
// requests then cost little more than one. It returns when s.jobs is closed.
func (s *served) scorer() {
	defer close(s.stopped)
	var later *scoreJob
	for {
		j := later
		later = nil
		if j == nil {
			var ok bool
			if j, ok = <-s.jobs; !ok {
				return
			}
		}
		batch, rows := []*scoreJob{j}, j.n
	gather:
		for !j.explain && rows < batchRows {
			select {
			case k, ok := <-s.jobs:
				if !ok {
					break gather
				}
				if k.explain {
					later = k
					break gather
				}
				batch, rows = append(batch, k), rows+k.n
			default:
				break gather
			}
		}
		s.run(batch, rows)
	}
}

// run scores a batch of jobs of rows rows in all, and tells each it is done. A job whose
// request has given up is left out.
func (s *served) run(batch []*scoreJob, rows int) {
	defer func() {
		for _, j := range batch {
			close(j.done)
		}
	}()
	live := batch[:0:0]
	for _, j := range batch {
		if j.ctx.Err() == nil {
			live = append(live, j)
		} else {
			rows -= j.n
		}
	}
	if len(live) == 1 {
		s.runOne(live[0])
		return
	}
	if len(live) == 0 {
		return
	}
	d := s.m.Inputs()
	x := make([]float32, 0, rows*d)
	for _, j := range live {
		x = append(x, j.x[:j.n*d]...)
	}
	// The batch is the live requests': none of their contexts is the batch's.
	scores, _, err := s.m.ScoreDataset(context.Background(), &data.Dataset{Name: "request", N: rows, D: d, X: x})
	if err != nil { // each job alone, so that the error is the right request's
		for _, j := range live {
			s.runOne(j)
		}
		return
	}
	for _, j := range live {
		j.scores, scores = scores[:j.n:j.n], scores[j.n:]
	}
}

// runOne scores one job and explains it where asked; an unscorable row is named by
// the score's error.
func (s *served) runOne(j *scoreJob) {
	d := s.m.Inputs()
	// The model's column names, for the unscorable row's column.
	ds := &data.Dataset{Name: "request", N: j.n, D: d, X: j.x[:j.n*d], Features: s.info.Columns}
	j.scores, _, j.err = s.m.ScoreDataset(j.ctx, ds)
	if errors.As(j.err, &j.bad) {
		return
	}
	if j.err == nil && j.explain {
		j.att, j.err = s.m.ExplainDataset(j.ctx, ds, nil, ExplainOptions{})
	}
}

// score hands the n rows x to the scorer and waits for their scores until ctx ends.
func (s *served) score(ctx context.Context, x []float32, n int, explain bool) (*scoreJob, error) {
	j := &scoreJob{ctx: ctx, x: x, n: n, explain: explain, done: make(chan struct{})}
	select {
	case s.jobs <- j:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case <-j.done:
		return j, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

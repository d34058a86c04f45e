package bench

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/udocc/udocc/internal/torch"
	"github.com/udocc/udocc/internal/training"
)

// Summary is what one Run did.
type Summary struct {
	Planned int    // runs in the grid
	Skipped int    // runs already in the results file
	Trained int    // runs trained and written now
	Failed  int    // runs whose group failed (see the error)
	Report  string // the report's path, "" when none was written
}

// testHookEpoch, set by tests only, is called after every fine-tuning epoch of every
// group with the number of lines this session has written so far.
var testHookEpoch func(written int)

// runner is one session of a grid.
type runner struct {
	o       Options
	st      *store
	prog    *tracker
	session Session
	mu      sync.Mutex // guards session and seq
	seq     int        // groups started, for group ids
	saving  sync.Mutex // serialises writes of sessions.json
}

// Run trains every run of the grid that is not yet in the results file, appending each
// run's line as soon as its group finishes, then writes the report. A Run with runs to
// train is a session of sessions.json. Cancelling ctx stops it at the end of the epoch
// its groups are in; the runs already written stay, and a rerun trains the others. A group
// that fails is retried run by run; failed runs are named in the error, the others go on.
func Run(ctx context.Context, o Options) (*Summary, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	torch.SetNumThreads(o.Threads)
	var specs []Spec
	for _, m := range o.Methods {
		s, _ := ParseSpec(m) // checked by Validate
		specs = append(specs, s)
	}
	st, err := openStore(filepath.Join(o.Out, ResultsFile))
	if err != nil {
		return nil, err
	}
	defer st.close()

	sum := &Summary{}
	var works []work
	var total float64
	for _, name := range o.Datasets {
		d, err := loadDataset(o.DataDir, name, o.Train)
		if err != nil {
			return nil, err
		}
		todo, skipped := pending(d, specs, o.Seeds, st.has)
		sum.Planned += len(todo) + skipped
		sum.Skipped += skipped
		w := work{d: d, groups: split(todo, o.Group)}
		for _, g := range w.groups {
			pre, fine := cost(d, g)
			total += pre + fine
		}
		if len(w.groups) > 0 {
			works = append(works, w)
		}
	}

	var errs []error
	if len(works) > 0 {
		errs = train(ctx, o, st, works, total, sum)
	}
	if ctx.Err() != nil {
		errs = append(errs, ctx.Err())
	}
	if sum.Planned > 0 {
		path, err := WriteReport(o.Out)
		if err != nil {
			errs = append(errs, err)
		}
		sum.Report = path
	}
	if len(errs) > 0 {
		return sum, errList(errs)
	}
	return sum, nil
}

// train runs the works as one session, recorded in sessions.json, and fills in the
// summary's counts.
func train(ctx context.Context, o Options, st *store, works []work, total float64, sum *Summary) []error {
	start := time.Now()
	r := &runner{o: o, st: st}
	r.session = Session{
		ID: start.UTC().Format(time.RFC3339Nano), Start: start.UTC(), Args: o.Args,
		Planned: sum.Planned, Skipped: sum.Skipped, Jobs: o.Jobs, Group: string(o.Group),
		Device: o.Train.Device, CPUs: runtime.NumCPU(),
	}
	if err := r.saveSession(); err != nil {
		return []error{err}
	}
	r.prog = newTracker(o.Progress, total, sum.Planned-sum.Skipped)
	if sum.Skipped > 0 {
		r.prog.event(fmt.Sprintf("%d of %d runs are already in %s; training the other %d",
			sum.Skipped, sum.Planned, st.path, sum.Planned-sum.Skipped))
	}
	errs := flatten(r.runAll(ctx, works))

	end := time.Now().UTC()
	r.mu.Lock()
	r.session.End = &end
	sum.Trained, sum.Failed = r.session.Trained, r.session.Failed
	r.mu.Unlock()
	if err := r.saveSession(); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// flatten unpacks joined errors, so that each failed run is one item.
func flatten(errs []error) []error {
	var out []error
	for _, err := range errs {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			out = append(out, flatten(j.Unwrap())...)
			continue
		}
		out = append(out, err)
	}
	return out
}

// errList is several errors as one line (the command prints each error on one line).
type errList []error

func (e errList) Error() string {
	s := make([]string, len(e))
	for i, err := range e {
		s[i] = err.Error()
	}
	return strings.Join(s, "; ")
}

func (e errList) Unwrap() []error { return e }

// runAll trains the works, o.Jobs data sets at a time, and returns the groups' errors.
func (r *runner) runAll(ctx context.Context, works []work) []error {
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	next := make(chan work)
	for range min(r.o.Jobs, len(works)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for w := range next {
				for _, err := range r.runDataset(ctx, w) {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		}()
	}
	for _, w := range works {
		if ctx.Err() != nil {
			break
		}
		next <- w
	}
	close(next)
	wg.Wait()
	return errs
}

// runDataset standardises one data set and trains its groups one after the other.
func (r *runner) runDataset(ctx context.Context, w work) []error {
	std, err := w.d.standardised()
	if err != nil {
		r.failed(w.groups...)
		return []error{err}
	}
	var errs []error
	for _, g := range w.groups {
		if ctx.Err() != nil {
			return errs
		}
		if err := r.runGroup(ctx, w.d, std.X, g); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// runGroup trains one lockstep group and appends a line per member. A cancelled ctx
// stops it at the end of the epoch it is in, with no line written (Run reports ctx.Err).
func (r *runner) runGroup(ctx context.Context, d *dataset, x []float32, g []task) error {
	r.mu.Lock()
	r.seq++
	id := fmt.Sprintf("%s/%d", r.session.ID, r.seq)
	r.mu.Unlock()
	what := fmt.Sprintf("%s: %s", d.name, groupText(g))

	members := make([]training.Member, len(g))
	for i, t := range g {
		m, err := t.spec.member(t.seed, d.ds.N, d.ratio)
		if err != nil {
			r.failed(g)
			return fmt.Errorf("bench: %s %s seed %d: %w", d.name, t.spec.Name, t.seed, err)
		}
		members[i] = m
	}
	pre, fine := cost(d, g)
	hooks := &training.Hooks{Stop: ctx.Err, Progress: func(stage string, e, total int) {
		if stage == "pretrain" {
			r.prog.add(pre / float64(total))
			return
		}
		r.prog.add(fine / float64(total))
		if testHookEpoch != nil {
			r.mu.Lock()
			n := r.session.Trained
			r.mu.Unlock()
			testHookEpoch(n)
		}
	}}
	run, err := training.FitGroup(x, d.ds.N, d.ds.D, d.cfg, members, hooks)
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		r.prog.finished(0, what+" interrupted")
		return nil
	}
	if err != nil && len(g) > 1 {
		// One member's failure (non-finite scores, say) stops its whole lockstep group;
		// trained alone, the others still give their lines and the culprit is named.
		r.prog.finished(0, fmt.Sprintf("%s FAILED (%v); training its runs one by one", what, err))
		var errs []error
		for _, t := range g {
			errs = append(errs, r.runGroup(ctx, d, x, []task{t}))
		}
		return errors.Join(errs...) // flattened by Run's errList
	}
	if err != nil {
		r.failed(g)
		r.prog.finished(len(g), what+" FAILED")
		return fmt.Errorf("bench: %s: %s: %w", d.name, groupText(g), err)
	}
	defer run.Close()
	grp := groupInfo{id: id, size: len(g), seeds: seedsOf(g), pre: run.PretrainSeconds, fine: run.FinetuneSeconds}
	for i, t := range g {
		l, err := r.line(d, t, run.Results[i], grp)
		if err == nil {
			err = r.st.append(l)
		}
		if err != nil {
			r.failed(g[i:])
			r.prog.finished(len(g)-i, what+" FAILED")
			return err
		}
		r.mu.Lock()
		r.session.Trained++
		r.mu.Unlock()
	}
	r.prog.finished(len(g), fmt.Sprintf("%s done in %.1f s", what, run.PretrainSeconds+run.FinetuneSeconds))
	return r.saveSession()
}

// saveSession writes the session's counts so far into sessions.json, so that a killed
// session still tells what it did.
func (r *runner) saveSession() error {
	r.saving.Lock()
	defer r.saving.Unlock()
	r.mu.Lock()
	s := r.session
	r.mu.Unlock()
	return putSession(filepath.Join(r.o.Out, SessionsFile), s)
}

// failed counts the runs of groups that failed.
func (r *runner) failed(groups ...[]task) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, g := range groups {
		r.session.Failed += len(g)
	}
}

// groupText names a group's methods and seeds briefly.
func groupText(g []task) string {
	methods, seeds := map[string]bool{}, map[uint64]bool{}
	var ms []string
	for _, t := range g {
		if !methods[t.spec.Name] {
			methods[t.spec.Name] = true
			ms = append(ms, t.spec.Name)
		}
		seeds[t.seed] = true
	}
	if len(g) == 1 {
		return fmt.Sprintf("%s seed %d", g[0].spec.Name, g[0].seed)
	}
	return fmt.Sprintf("%d runs (%d methods x %d seeds)", len(g), len(ms), len(seeds))
}

package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/udocc/udocc/bench/internal/iforest"
	"github.com/udocc/udocc/bench/internal/synth"
	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/atomicfile"
	udocc "github.com/udocc/udocc/internal/detector"
	"github.com/udocc/udocc/internal/method"
	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/scale"
	"github.com/udocc/udocc/internal/threshold"
	"github.com/udocc/udocc/internal/training"
	"github.com/udocc/udocc/metrics"
)

// The study (`udocc-bench --study`) fits the candidate defaults of `udocc fit` on the ten
// paper sets and on the semi-synthetic tables made from their normal rows (package synth),
// and judges every label-free threshold rule on every score source. Its report,
// study.md, is where the defaults in internal/training/defaults.go come from.

// StudyFile and StudyReport are the study's results (one JSON line per table and seed)
// and its report, inside the output folder.
const (
	StudyFile   = "study.jsonl"
	StudyReport = "study.md"
)

// StudyOptions are the settings of a study.
type StudyOptions struct {
	Data       string    // folder of the ODDS files
	Datasets   []string  // base data sets (paper sets and the bases of the synthetic tables)
	Seeds      []uint64  // seeds of the paper-set fits (each one a default ensemble)
	MaxNormals int       // normal rows kept per synthetic table (0: all)
	Synthetic  bool      // fit the synthetic tables too
	Ratios     []float64 // anomaly ratios of the synthetic tables (nil: synth.Ratios)
	Jobs       int       // tables trained concurrently
	Out        string    // output folder
	Device     string
	ReportOnly bool // train nothing: write the report from the results file
	// GeneratorSeed seeds the synthetic tables' generator (its mixture fits and the
	// injected rows). 0 gives the study's own tables, the ones every default was chosen
	// on; another seed draws new tables from the same normal rows, to check a choice on
	// tables it never saw. One output folder holds the tables of one seed.
	GeneratorSeed uint64
	// Scores is the folder of each record's ensemble scores (default OUT/scores): the
	// report re-evaluates every rule on the weighted sources from them, so a rule added
	// later is judged without training again.
	Scores string
	// Progress, when set, hears each finished table.
	Progress func(done, total int, name string)
}

// Weights are the distance weights w of method.Ensemble the study compares; 1 is the
// encoders' distances alone and 0 the reconstruction errors alone.
var Weights = []float64{0, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.67, 0.7, 0.75, 0.8, 0.9, 1}

// SourceEval is one score source on one table.
type SourceEval struct {
	ROCAUC   float64             `json:"rocauc"`
	PRAUC    float64             `json:"prauc"`
	OracleF1 float64             `json:"oracle_f1"`
	Rules    map[string]RuleEval `json:"rules"`
}

// RuleEval is one threshold rule on one source of one table.
type RuleEval struct {
	Ratio float64 `json:"ratio"` // selected ratio
	F1    float64 `json:"f1"`
}

// StudyRecord is one table (and seed) of the study.
type StudyRecord struct {
	Table     string                `json:"table"`
	Group     string                `json:"group"` // "paper" or "synthetic"
	Base      string                `json:"base"`
	Kind      string                `json:"kind,omitempty"`
	Ratio     float64               `json:"ratio,omitempty"` // the generator's ratio
	Seed      uint64                `json:"seed"`
	N         int                   `json:"n"`
	TrueRatio float64               `json:"true_ratio"`
	Sources   map[string]SourceEval `json:"sources"`
	Seconds   map[string]float64    `json:"seconds"` // wall time of each fit

	// GeneratorSeed is StudyOptions.GeneratorSeed of a synthetic table.
	GeneratorSeed uint64 `json:"generator_seed,omitempty"`
}

// studyTable is one table to fit: standardised rows and labels.
type studyTable struct {
	name, group, base, kind string
	ratio                   float64
	genSeed                 uint64 // synthetic tables: the generator's seed
	seeds                   []uint64
	ds                      *data.Dataset // standardised
	raw                     *data.Dataset // as read (or made): what `udocc fit` is given
}

// Study runs the study, appending to OUT/study.jsonl (tables already there are skipped),
// then writes OUT/study.md.
func Study(ctx context.Context, o StudyOptions) error {
	if o.Jobs < 1 {
		o.Jobs = 1
	}
	if o.Device == "" {
		o.Device = "cpu"
	}
	path := filepath.Join(o.Out, StudyFile)
	done, err := studyDone(path, o)
	if err != nil {
		return err
	}
	if o.Scores == "" {
		o.Scores = filepath.Join(o.Out, "scores")
	}
	if err := os.MkdirAll(o.Scores, 0o755); err != nil {
		return err
	}
	if o.ReportOnly {
		return writeStudyReport(filepath.Join(o.Out, StudyReport), reevaluate(done, o.Scores, o.Jobs), o)
	}
	tables, err := studyTables(o)
	if err != nil {
		return err
	}
	if err := runStudyFits(ctx, path, studyTodo(tables, done), o); err != nil {
		return err
	}
	all, err := readStudy(path)
	if err != nil {
		return err
	}
	return writeStudyReport(filepath.Join(o.Out, StudyReport), reevaluate(all, o.Scores, o.Jobs), o)
}

// studyDone reads the records of path that earlier runs left, and makes the output
// folder. It refuses to report on no records, and to add to a file whose synthetic
// tables are of another generator seed.
func studyDone(path string, o StudyOptions) ([]StudyRecord, error) {
	done, err := readStudy(path)
	if err != nil {
		return nil, err
	}
	if o.ReportOnly && len(done) == 0 {
		// An empty report would replace the one there (a folder whose records are
		// not kept, such as bench/study-g1 in a clone).
		return nil, fmt.Errorf("bench: study: %s: no records to report on: %w", path, os.ErrNotExist)
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	for _, r := range done {
		if !o.ReportOnly && r.Group == "synthetic" && r.GeneratorSeed != o.GeneratorSeed {
			return nil, fmt.Errorf("bench: study: %s holds synthetic tables of generator seed %d, not %d: "+
				"use another output folder", path, r.GeneratorSeed, o.GeneratorSeed)
		}
	}
	return done, nil
}

// studyTodo is the tables with the seeds that done holds no record of; a table with
// none left is left out.
func studyTodo(tables []studyTable, done []StudyRecord) []studyTable {
	have := map[string]bool{}
	for _, r := range done {
		have[fmt.Sprintf("%s/%d", r.Table, r.Seed)] = true
	}
	var todo []studyTable
	for _, t := range tables {
		var seeds []uint64
		for _, s := range t.seeds {
			if !have[fmt.Sprintf("%s/%d", t.name, s)] {
				seeds = append(seeds, s)
			}
		}
		if len(seeds) > 0 {
			t.seeds = seeds
			todo = append(todo, t)
		}
	}
	return todo
}

// runStudyFits fits the tables todo on o.Jobs workers, appending each table's records to
// path as JSON lines as it finishes; it stops handing out tables when ctx is done, and
// returns the first error.
func runStudyFits(ctx context.Context, path string, todo []studyTable, o StudyOptions) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	var (
		mu       sync.Mutex
		finished int
		firstErr error
		wg       sync.WaitGroup
	)
	ch := make(chan studyTable)
	for j := 0; j < o.Jobs; j++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range ch {
				recs, err := studyFit(t, o.Device, o.Scores)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("bench: study: %s: %w", t.name, err)
				}
				for _, r := range recs {
					b, _ := json.Marshal(r)
					if _, werr := f.Write(append(b, '\n')); werr != nil && firstErr == nil {
						firstErr = werr
					}
				}
				finished++
				if o.Progress != nil {
					o.Progress(finished, len(todo), t.name)
				}
				mu.Unlock()
			}
		}()
	}
	for _, t := range todo {
		if ctx.Err() != nil {
			break
		}
		ch <- t
	}
	close(ch)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

func readStudy(path string) ([]StudyRecord, error) {
	return readLines(path, func(r StudyRecord) bool { return r.Table != "" })
}

// readLines reads the JSON lines of path as records of type T, keeping those keep
// accepts: a line torn by a kill, or of another shape, is skipped, and a missing file
// holds none.
func readLines[T any](path string, keep func(T) bool) ([]T, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []T
	for _, line := range bytes.Split(b, []byte("\n")) {
		var r T
		if json.Unmarshal(line, &r) == nil && keep(r) {
			out = append(out, r)
		}
	}
	return out, nil
}

// studyTables loads the paper sets and, when asked, makes the synthetic tables.
func studyTables(o StudyOptions) ([]studyTable, error) {
	var out []studyTable
	for _, name := range o.Datasets {
		path, err := dataFile(o.Data, name)
		if err != nil {
			return nil, err
		}
		ds, err := data.Load(path, data.LoadOptions{})
		if err != nil {
			return nil, err
		}
		if ds.Y == nil {
			return nil, fmt.Errorf("bench: study: %s has no labels", path)
		}
		z, err := standardise(ds)
		if err != nil {
			return nil, err
		}
		out = append(out, studyTable{name: name, group: "paper", base: name, seeds: o.Seeds, ds: z, raw: ds})
		if !o.Synthetic {
			continue
		}
		g, err := synth.NewFromDataset(ds, o.GeneratorSeed, synth.Options{MaxNormals: o.MaxNormals})
		if err != nil {
			return nil, fmt.Errorf("bench: study: %s: %w", name, err)
		}
		for _, kind := range synth.Kinds() {
			ratios := o.Ratios
			if ratios == nil {
				ratios = synth.Ratios
			}
			for _, ratio := range ratios {
				sd, err := g.Dataset(kind, ratio, o.GeneratorSeed)
				if err != nil {
					return nil, fmt.Errorf("bench: study: %s: %w", name, err)
				}
				z, err := standardise(sd)
				if err != nil {
					return nil, err
				}
				spec := synth.Spec{Base: name, Kind: kind, Ratio: ratio}
				out = append(out, studyTable{name: spec.Name(), group: "synthetic", base: name,
					kind: string(kind), ratio: ratio, genSeed: o.GeneratorSeed, seeds: []uint64{0}, ds: z, raw: sd})
			}
		}
	}
	return out, nil
}

func standardise(ds *data.Dataset) (*data.Dataset, error) {
	sc, err := scale.Fit(ds)
	if err != nil {
		return nil, err
	}
	return sc.Transform(ds)
}

// studyFit fits, on one table, the default detector of every seed through the library's
// own FitDataset (what `udocc fit --seed s` runs), the old default (the paper's settings
// with the accumulated rule, one model per seed) and an isolation forest, and evaluates
// every source and rule.
func studyFit(t studyTable, device, scoresDir string) ([]StudyRecord, error) {
	ds := t.ds
	hidden, _ := models.Preset(t.base)
	ens := make([]studyScores, len(t.seeds))
	var newSecs float64
	for i, s := range t.seeds {
		// Each seed's ensemble is `udocc fit --seed s`: the library's own fit of the raw
		// table, with the widths the study gives its base.
		t0 := time.Now()
		opts := udocc.Options{Seed: s, Device: device, Hidden: hidden}
		m, fr, err := fitTraced(context.Background(), t.raw, nil, opts)
		if err != nil {
			return nil, err
		}
		m.Close()
		newSecs += time.Since(t0).Seconds() / float64(len(t.seeds))
		dist, rec := make([][]float64, len(fr.Dist)), make([][]float64, len(fr.Rec))
		for k := range dist {
			dist[k] = widen(fr.Dist[k])
		}
		for k := range rec {
			rec[k] = widen(fr.Rec[k])
		}
		if ens[i], err = ensembleScores(dist, rec, ds.Y); err != nil {
			return nil, err
		}
		ens[i].Screen = fr.Screen
	}

	old := training.DefaultConfig()
	old.Hidden, old.Device = hidden, device
	var oldMembers []training.Member
	for _, s := range t.seeds {
		m, err := method.Proposed.NewMember(s, ds.N, method.MethodOptions{})
		if err != nil {
			return nil, err
		}
		oldMembers = append(oldMembers, m)
	}
	t1 := time.Now()
	oldRun, err := training.FitGroup(ds.X, ds.N, ds.D, old, oldMembers, nil)
	if err != nil {
		return nil, err
	}
	oldSecs := time.Now().Sub(t1).Seconds() / float64(len(t.seeds))
	oldResults := oldRun.Results
	oldRun.Close()

	x64 := make([]float64, len(ds.X)) // the isolation forest's input
	for i, v := range ds.X {
		x64[i] = float64(v)
	}
	var out []StudyRecord
	for i, s := range t.seeds {
		r := StudyRecord{Table: t.name, Group: t.group, Base: t.base, Kind: t.kind, Ratio: t.ratio,
			GeneratorSeed: t.genSeed, Seed: s, N: ds.N, TrueRatio: float64(ds.Anomalies()) / float64(ds.N),
			Sources: map[string]SourceEval{},
			Seconds: map[string]float64{"default": newSecs, "old": oldSecs}}
		sc := ens[i]
		b, err := json.Marshal(sc)
		if err != nil {
			return nil, err
		}
		if err := atomicfile.WriteBytes(scorePath(scoresDir, t.name, s), b); err != nil {
			return nil, err
		}
		for w, ev := range sc.sources() {
			r.Sources[w] = ev
		}
		o := oldResults[i]
		ev, err := evalSource(o.Scores, ds.Y, func(map[string]float64) map[string]float64 {
			return map[string]float64{"dynamics": o.Threshold}
		})
		if err != nil {
			return nil, err
		}
		r.Sources["old"] = ev
		forest, err := iforest.Fit(x64, ds.N, ds.D, iforest.Options{Seed: s})
		if err != nil {
			return nil, err
		}
		ev, err = evalSource(forest.Score(x64, ds.N), ds.Y, nil)
		if err != nil {
			return nil, err
		}
		r.Sources["iforest"] = ev
		out = append(out, r)
	}
	return out, nil
}

// evalSource measures one source's scores and every rule on them; extra, when not nil,
// gives more thresholds by name, in a new map, from the rules' thresholds on scores (by
// rule name, which it must not change): ones found elsewhere (the training dynamics'
// own), or from the screening fit's scores.
func evalSource(scores []float64, y []int, extra func(own map[string]float64) map[string]float64) (SourceEval, error) {
	a, p, err := metrics.AUCs(y, scores)
	if err != nil {
		return SourceEval{}, err
	}
	or, err := threshold.OracleF1(scores, y)
	if err != nil {
		return SourceEval{}, err
	}
	ev := SourceEval{ROCAUC: a, PRAUC: p, OracleF1: or, Rules: map[string]RuleEval{}}
	thr := map[string]float64{}
	for _, rule := range threshold.All() {
		t, err := rule.Threshold(scores)
		if err != nil {
			return SourceEval{}, fmt.Errorf("%s: %w", rule.Name(), err)
		}
		thr[rule.Name()] = t
	}
	if t, err := threshold.Contamination(scores, 0.10); err == nil {
		thr["fixed-10%"] = t
	}
	if extra != nil {
		for k, v := range extra(thr) { // a new map: thr is not written while extra reads it
			thr[k] = v
		}
	}
	for name, t := range thr {
		e, err := threshold.Evaluate(scores, y, t)
		if err != nil {
			return SourceEval{}, err
		}
		ev.Rules[name] = RuleEval{Ratio: e.Selected, F1: e.F1}
	}
	return ev, nil
}

// studyScores are one record's ensemble sources: the robust-z mean distance D and
// reconstruction error R of models.Ensemble, so that source w is w·D + (1−w)·R, and
// the screening fit's combined scores (training.Screening), from which each rule's
// count of anomalies is taken for the rules "screen/RULE" and "larger/RULE".
type studyScores struct {
	D      []float64 `json:"d"`
	R      []float64 `json:"r"`
	Y      []int     `json:"y"`
	Screen []float64 `json:"screen,omitempty"`
}

func scorePath(dir, table string, seed uint64) string {
	return filepath.Join(dir, fmt.Sprintf("%s-%d.json", table, seed))
}

// ensembleScores splits the default ensemble's score of these members into its two
// robust-z parts (models.Ensemble with w = 1 and w = 0), from which every source w is
// w·D + (1−w)·R, exactly as the ensemble's combination adds them.
func ensembleScores(dist, rec [][]float64, y []int) (studyScores, error) {
	_, d, err := method.FitCombination(dist, rec, 1)
	if err != nil {
		return studyScores{}, err
	}
	_, r, err := method.FitCombination(dist, rec, 0)
	if err != nil {
		return studyScores{}, err
	}
	return studyScores{D: d, R: r, Y: y}, nil
}

// sources evaluates every weighted source of Weights, by its sourceKey.
func (sc studyScores) sources() map[string]SourceEval {
	out := map[string]SourceEval{}
	cuts := screenCuts(sc.Screen)
	for _, w := range Weights {
		s := make([]float64, len(sc.D))
		for j := range s {
			s[j] = w*sc.D[j] + (1-w)*sc.R[j]
		}
		extra := func(own map[string]float64) map[string]float64 { return screenThresholds(s, sc.Screen, cuts, own) }
		if ev, err := evalSource(s, sc.Y, extra); err == nil {
			out[sourceKey(w)] = ev
		}
	}
	return out
}

// screenCuts are every rule's thresholds on the screening scores, by rule name, found
// once for all the weighted sources; nil without them.
func screenCuts(screen []float64) map[string]float64 {
	if len(screen) == 0 {
		return nil
	}
	out := map[string]float64{}
	for _, rule := range threshold.All() {
		if t, err := rule.Threshold(screen); err == nil {
			out[rule.Name()] = t
		}
	}
	return out
}

// screenThresholds are, for every rule, the threshold on scores that flags as many rows
// as the rule flags on the screening scores (threshold.Transfer of its cut, named
// "screen/RULE"), and the one that flags the larger of that count and the rule's own on
// scores, own[RULE] (threshold.Larger, named "larger/RULE"), as `udocc fit` labels the
// rows after a screening fit.
func screenThresholds(scores, screen []float64, cuts, own map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for name, t := range cuts {
		if thr, err := threshold.Transfer(scores, screen, t); err == nil {
			out[ScreenRule(name)] = thr
		}
		if o, ok := own[name]; ok {
			if thr, err := threshold.Larger(scores, o, screen, t); err == nil {
				out[LargerRule(name)] = thr
			}
		}
	}
	return out
}

// ScreenRule is the study's name of rule applied to the screening fit's scores.
func ScreenRule(rule string) string { return "screen/" + rule }

// LargerRule is the study's name of the larger of rule's counts on the screening fit's
// scores and on the source's own.
func LargerRule(rule string) string { return "larger/" + rule }

// reevaluate recomputes, for every record whose scores are in dir, every weighted
// source from them: the rules of today's threshold package judged on the same scores.
// The records are evaluated by jobs goroutines (every rule on every weight of a large
// table is most of a study's report time), each record by one.
func reevaluate(recs []StudyRecord, dir string, jobs int) []StudyRecord {
	eachIndex(len(recs), jobs, func(i int) {
		r := recs[i]
		b, err := os.ReadFile(scorePath(dir, r.Table, r.Seed))
		if err != nil {
			return
		}
		var sc studyScores
		if json.Unmarshal(b, &sc) != nil || len(sc.D) != r.N || len(sc.R) != r.N || len(sc.Y) != r.N {
			return
		}
		for w, ev := range sc.sources() {
			recs[i].Sources[w] = ev
		}
	})
	return recs
}

// eachIndex calls f(i) for every i in [0, n) on jobs goroutines (at least one), and
// returns when every call has; f must touch only what index i owns.
func eachIndex(n, jobs int, f func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for j := 0; j < max(1, jobs); j++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}

// sortedKeys is the sorted union of the keys of m(x) over xs.
func sortedKeys[T, V any](xs []T, m func(T) map[string]V) []string {
	seen := map[string]bool{}
	for _, x := range xs {
		for k := range m(x) {
			seen[k] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

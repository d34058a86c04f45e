package bench

import (
	"bytes"
	"cmp"
	"context"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/udocc/udocc/bench/internal/iforest"
	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/atomicfile"
	udocc "github.com/udocc/udocc/internal/detector"
	"github.com/udocc/udocc/internal/odds"
	"github.com/udocc/udocc/metrics"
)

// The study's real group (`udocc-bench --study --real`) fits the default detector of
// `udocc fit`, through the library's own FitDataset, on real labelled tables: the ten
// paper sets and the tables of a second folder (ADBench's classical tables that are not
// paper sets). Each fit keeps, in a raw file, every per-row score a candidate count can be
// drawn from (the final scores, each member's distances and reconstruction errors, the
// screening fit's scores, the labels), so that candidate counts are judged afterwards
// without training again (realCandidates). The raw files and the records are
// regenerable and not kept in git; the report is.

// RealFile, RealRaw and RealReport are the real group's records (one JSON line per table
// and seed), its folder of raw per-row scores and its report, inside the output folder.
const (
	RealFile   = "real.jsonl"
	RealRaw    = "raw"
	RealReport = "study-real.md"
)

// RealMaxRows is the most rows the real group fits of one table: a larger table is
// fitted on a sample of this many rows, drawn from the fit's seed, and its counts are
// judged on the share of anomalies in that sample.
const RealMaxRows = 50000

// RealOptions are the settings of the real group.
type RealOptions struct {
	Paper    string   // folder of the ODDS files of the paper sets
	Datasets []string // paper sets (nil: the ten of odds.Sets)
	Extra    string   // folder of the other tables (NAME.npz or NAME.mat); "" for none
	Tables   []string // tables of Extra (nil: every .npz and .mat file in it)
	Seeds    []uint64
	Out      string
	Device   string
	// Corpus, when set, is a data folder holding GROUPS.csv (odds/, adbench/, real/):
	// every table it lists is fitted, named by its path without the extension and
	// grouped by its source group, instead of Paper, Datasets, Extra and Tables.
	Corpus string
	// Copies resampled copies of every table are fitted beside it (corpusCopies), at
	// seed CopySeed alone: its anomalies, or above its share its normal rows, subsampled
	// to shares drawn log-uniformly from CopyLow to CopyHigh; each copy keeps its
	// table's group. A copy has at most CopyMaxRows rows.
	Copies int
	// Components is the fits' udocc.Ensemble.Components: 0 (the default's: a table of
	// more than 300 columns read through its 32 leading principal components) or negative
	// (every column: the count's material, threshold.md A.0).
	Components int
	// ReportOnly fits nothing: the report from the records and raw files there.
	ReportOnly bool
	Progress   func(done, total int, name string)
}

// RealRecord is one fit of the real group.
type RealRecord struct {
	Table string `json:"table"`
	Group string `json:"group"` // "paper" or "extra"
	Seed  uint64 `json:"seed"`
	// Source is the table a resampled copy was drawn from ("" for a table itself).
	Source    string  `json:"source,omitempty"`
	N         int     `json:"n"`      // rows fitted
	FullN     int     `json:"full_n"` // rows of the table
	TrueRatio float64 `json:"true_ratio"`
	// Default is the product's fit: its ROCAUC, PRAUC and its own selected ratio.
	Default RealEval `json:"default"`
	// IForest is the Go isolation forest on the same rows (standardised).
	IForest RealEval `json:"iforest"`
	Seconds float64  `json:"seconds"` // wall time of the default fit
}

// RealEval is one detector's scores on one fit.
type RealEval struct {
	ROCAUC   float64 `json:"rocauc"`
	PRAUC    float64 `json:"prauc"`
	Selected float64 `json:"selected,omitempty"` // the ratio of rows it flags
}

// realRaw is a fit's raw per-row scores (gob, RealRaw/TABLE-SEED.gob).
type realRaw struct {
	Scores    []float64   // the default's final scores
	Networks  []float64   // its networks' scores where a wide table's Gaussian was mixed into Scores, which the count reads
	Screen    []float64   // the screening fit's scores
	Dist, Rec [][]float32 // each member's distances and reconstruction errors
	Y         []int8
	Flagged   int // rows the default flags
	// ScreenEpochs are each member's distances after each screening fine-tuning epoch
	// ([k][e][row]).
	ScreenEpochs [][][]float32
	// ScreenPretrain are each member's reconstruction errors after each screening
	// pretraining epoch ([k][e][row]).
	ScreenPretrain [][][]float32
}

// realTable is one table of the real group; a resampled copy has its source's path and
// share > 0, the share of anomalies it is drawn to.
type realTable struct {
	name, group, path string
	source            string
	share             float64
}

// realTables lists the tables of o: the paper sets, then the other folder's files by
// name. A missing paper set is an error; a missing or empty other folder is one too, as
// the group would silently be the paper sets alone.
func realTables(o RealOptions) ([]realTable, error) {
	if o.Corpus != "" {
		return corpusTables(o)
	}
	var out []realTable
	sets := o.Datasets
	if sets == nil {
		for _, s := range odds.Sets() {
			sets = append(sets, s.Name)
		}
	}
	for _, name := range sets {
		p, err := dataFile(o.Paper, name)
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("bench: real group: %w", err)
		}
		out = append(out, realTable{name: name, group: "paper", path: p})
	}
	if o.Extra == "" {
		return out, nil
	}
	names := o.Tables
	if names == nil {
		ents, err := os.ReadDir(o.Extra)
		if err != nil {
			return nil, fmt.Errorf("bench: real group: %w", err)
		}
		for _, e := range ents {
			if ext := filepath.Ext(e.Name()); !e.IsDir() && (ext == ".npz" || ext == ".mat") {
				names = append(names, e.Name()[:len(e.Name())-len(ext)])
			}
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("bench: real group: no .npz or .mat tables in %s", o.Extra)
		}
	}
	for _, name := range names {
		p, err := dataFile(o.Extra, name)
		if err != nil {
			return nil, err
		}
		out = append(out, realTable{name: name, group: "extra", path: p})
	}
	return out, nil
}

// StudyReal fits the real group, appending to OUT/real.jsonl (fits already there are
// skipped) and writing each fit's raw scores under OUT/raw, then writes OUT/study-real.md.
// Fits run one at a time.
func StudyReal(ctx context.Context, o RealOptions) error {
	if o.Device == "" {
		o.Device = "cpu"
	}
	path := filepath.Join(o.Out, RealFile)
	done, err := readReal(path)
	if err != nil {
		return err
	}
	if o.ReportOnly {
		if len(done) == 0 {
			return fmt.Errorf("bench: study: %s: no records to report on: %w", path, os.ErrNotExist)
		}
		return writeRealReport(o, done)
	}
	tables, err := realTables(o)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(o.Out, RealRaw), 0o755); err != nil {
		return err
	}
	have := map[string]bool{}
	for _, r := range done {
		have[fmt.Sprintf("%s/%d", r.Table, r.Seed)] = true
	}
	type job struct {
		t    realTable
		seed uint64
	}
	var todo []job
	for _, t := range tables {
		seeds := o.Seeds
		if t.source != "" {
			seeds = o.Seeds[:1] // a copy is fitted at the first seed alone
		}
		for _, s := range seeds {
			if !have[fmt.Sprintf("%s/%d", t.name, s)] {
				todo = append(todo, job{t, s})
			}
		}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	for i, j := range todo {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, raw, err := realFit(ctx, j.t, j.seed, o.Device, o.Components)
		if err != nil {
			return fmt.Errorf("bench: study: %s seed %d: %w", j.t.name, j.seed, err)
		}
		if err := writeRaw(filepath.Join(o.Out, RealRaw), rec, raw); err != nil {
			return err
		}
		b, _ := json.Marshal(rec)
		if _, err := f.Write(append(b, '\n')); err != nil {
			return err
		}
		if o.Progress != nil {
			o.Progress(i+1, len(todo), fmt.Sprintf("%s seed %d", j.t.name, j.seed))
		}
	}
	all, err := readReal(path)
	if err != nil {
		return err
	}
	return writeRealReport(o, all)
}

// loadReal reads a real table with its labels: a resampled copy's rows (copyRows), or
// the table sampled to RealMaxRows rows from seed when larger (LoadRealTable).
func loadReal(t realTable, seed uint64) (*data.Dataset, int, error) {
	if t.share == 0 {
		ds, _, full, err := LoadRealTable(t.path, seed, RealMaxRows)
		return ds, full, err
	}
	ds, err := loadLabelled(t.path)
	if err != nil {
		return nil, 0, err
	}
	full := ds.N
	keepRows(ds, copyRows(ds.Y, t.share, CopyMaxRows, seed))
	return ds, full, nil
}

// LoadRealTable reads a real table with its labels, of both classes, sampled to maxRows
// rows drawn from seed when larger, as the real group's fits are (the same rows for the
// same seed). rows are the sampled rows' indices in the table, in table order (nil for
// every row); full is the table's number of rows.
func LoadRealTable(path string, seed uint64, maxRows int) (ds *data.Dataset, rows []int, full int, err error) {
	if ds, err = loadLabelled(path); err != nil {
		return nil, nil, 0, err
	}
	full = ds.N
	if ds.N <= maxRows {
		return ds, nil, full, nil
	}
	rows = rand.New(rand.NewPCG(seed, 0x5eed)).Perm(ds.N)[:maxRows]
	keepRows(ds, rows)
	return ds, rows, full, nil
}

// loadLabelled reads a table whose labels hold both classes.
func loadLabelled(path string) (*data.Dataset, error) {
	ds, err := data.Load(path, data.LoadOptions{})
	if err != nil {
		return nil, err
	}
	if ds.Y == nil || ds.Anomalies() == 0 || ds.Anomalies() == ds.N {
		return nil, fmt.Errorf("%s: want labels of both classes", path)
	}
	return ds, nil
}

// keepRows keeps the rows of ds that rows lists, sorting rows into table order.
func keepRows(ds *data.Dataset, rows []int) {
	slices.Sort(rows)
	x := make([]float32, 0, len(rows)*ds.D)
	y := make([]int, 0, len(rows))
	for _, i := range rows {
		x = append(x, ds.Row(i)...)
		y = append(y, ds.Y[i])
	}
	ds.X, ds.Y, ds.N = x, y, len(rows)
}

// realFit fits the default detector on one table and seed through udocc.FitDataset,
// and the isolation forest on the same rows.
func realFit(ctx context.Context, t realTable, seed uint64, device string, components int) (RealRecord, realRaw, error) {
	ds, full, err := loadReal(t, seed)
	if err != nil {
		return RealRecord{}, realRaw{}, err
	}
	rec := RealRecord{Table: t.name, Group: t.group, Seed: seed, N: ds.N, FullN: full,
		TrueRatio: float64(ds.Anomalies()) / float64(ds.N), Source: t.source}
	// The product's own widths (models.EnsembleHidden, by the table's shape), as `udocc
	// fit` takes them: the corpus fits are the count's material and its judge.
	opts := udocc.Options{Seed: seed, Device: device}
	t0 := time.Now()
	m, fr, err := fitTraced(ctx, ds, udocc.Ensemble{Components: components}, opts)
	if err != nil {
		return rec, realRaw{}, err
	}
	rec.Seconds = time.Since(t0).Seconds()
	raw := realRaw{Scores: m.Scores(), Networks: fr.Networks, Screen: fr.Screen, Dist: fr.Dist, Rec: fr.Rec, Y: make([]int8, ds.N),
		ScreenEpochs: fr.ScreenEpochs, ScreenPretrain: fr.ScreenPretrain}
	for i, l := range m.Labels() {
		if l {
			raw.Flagged++
		}
		raw.Y[i] = int8(ds.Y[i])
	}
	m.Close()
	if rec.Default, err = realEval(ds.Y, raw.Scores); err != nil {
		return rec, raw, err
	}
	rec.Default.Selected = float64(raw.Flagged) / float64(ds.N)
	z, err := standardise(ds)
	if err != nil {
		return rec, raw, err
	}
	x64 := make([]float64, len(z.X))
	for i, v := range z.X {
		x64[i] = float64(v)
	}
	forest, err := iforest.Fit(x64, z.N, z.D, iforest.Options{Seed: seed})
	if err != nil {
		return rec, raw, err
	}
	rec.IForest, err = realEval(ds.Y, forest.Score(x64, z.N))
	return rec, raw, err
}

func realEval(y []int, scores []float64) (RealEval, error) {
	a, p, err := metrics.AUCs(y, scores)
	return RealEval{ROCAUC: a, PRAUC: p}, err
}

func rawPath(dir, table string, seed uint64) string {
	return filepath.Join(dir, fmt.Sprintf("%s-%d.gob", strings.ReplaceAll(table, "/", "_"), seed))
}

func writeRaw(dir string, r RealRecord, raw realRaw) error {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(raw); err != nil {
		return err
	}
	return atomicfile.WriteBytes(rawPath(dir, r.Table, r.Seed), b.Bytes())
}

func readRaw(dir string, r RealRecord) (realRaw, error) {
	var raw realRaw
	b, err := os.ReadFile(rawPath(dir, r.Table, r.Seed))
	if err != nil {
		return raw, err
	}
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&raw); err != nil {
		return raw, fmt.Errorf("%s: %w", rawPath(dir, r.Table, r.Seed), err)
	}
	if len(raw.Scores) != r.N || len(raw.Y) != r.N {
		return raw, fmt.Errorf("%s: %d scores and %d labels for %d rows", rawPath(dir, r.Table, r.Seed), len(raw.Scores), len(raw.Y), r.N)
	}
	return raw, nil
}

func readReal(path string) ([]RealRecord, error) {
	return readLines(path, func(r RealRecord) bool { return r.Table != "" })
}

// ExportRealScores writes, for every original table's fit at seed in the study folder
// dir (real.jsonl and raw/), a folder out/TABLE-SEED holding scores.csv (columns score
// and true_label), the form ../shared/peers/pythresh_rules.py reads. A fit of more than
// maxScores rows keeps maxScores evenly spaced scores in score order (0: every score),
// since some of PyThresh's rules are too slow on 50,000. It returns the folders written.
func ExportRealScores(dir, out string, seed uint64, maxScores int) ([]string, error) {
	recs, err := readReal(filepath.Join(dir, RealFile))
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, r := range recs {
		if r.Source != "" || r.Seed != seed {
			continue
		}
		raw, err := readRaw(filepath.Join(dir, RealRaw), r)
		if err != nil {
			return dirs, err
		}
		idx := make([]int, len(raw.Scores))
		for i := range idx {
			idx[i] = i
		}
		if maxScores > 0 && len(idx) > maxScores {
			slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(raw.Scores[a], raw.Scores[b]) })
			kept := make([]int, maxScores)
			for j := range kept {
				kept[j] = idx[j*(len(idx)-1)/(maxScores-1)]
			}
			idx = kept
		}
		var b bytes.Buffer
		b.WriteString("score,true_label\n")
		for _, i := range idx {
			fmt.Fprintf(&b, "%s,%d\n", strconv.FormatFloat(raw.Scores[i], 'g', -1, 64), raw.Y[i])
		}
		sub := strings.TrimSuffix(rawPath(out, r.Table, seed), ".gob") // TABLE-SEED, as the raw files are named
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return dirs, err
		}
		if err := atomicfile.WriteBytes(filepath.Join(sub, "scores.csv"), b.Bytes()); err != nil {
			return dirs, err
		}
		dirs = append(dirs, sub)
	}
	return dirs, nil
}

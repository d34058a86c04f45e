package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/udocc/udocc/data"
	lib "github.com/udocc/udocc/internal/detector"
	"github.com/udocc/udocc/internal/parallel"
	"github.com/udocc/udocc/internal/torch"
)

// summary is summary.json. Keys with labels-only meaning are omitted without labels;
// thresholds and ratios are null for methods that have none.
type summary struct {
	Udocc         string     `json:"udocc"`
	Libtorch      string     `json:"libtorch"`
	Data          string     `json:"data"`
	Source        string     `json:"source"`
	Method        string     `json:"method"`
	N             int        `json:"n"`
	D             int        `json:"d"`
	Config        configJSON `json:"config"`
	Seed          uint64     `json:"seed"`
	Seeds         []uint64   `json:"seeds"`
	Device        string     `json:"device"`
	Header        *bool      `json:"header,omitempty"` // CSV: whether line 1 was read as the header
	DeltaBar      *float64   `json:"delta_bar"`
	SelectedRatio *float64   `json:"selected_ratio"`
	// RatioInterval is the 80 % interval (low, high) of the share of anomalies that the
	// ensemble's default count gives; absent for another rule or --contamination.
	RatioInterval []float64 `json:"selected_ratio_interval,omitempty"`
	// CountReliable is the learned count's flag (--threshold learned): false where its
	// 80 % interval is wide or rests on too few tables; absent for other counts.
	CountReliable *bool `json:"count_reliable,omitempty"`
	// CountBasis says what the ensemble's count rests on (review.go's countBasisOf).
	CountBasis  *countBasis `json:"count_basis,omitempty"`
	RatioEpochs *spread     `json:"selected_ratio_epochs"`
	Threshold   *float64    `json:"threshold"`
	Flagged     int         `json:"flagged"`
	Timings     timings     `json:"timings"`
	labelMetrics
	Constant []int `json:"constant_columns,omitempty"`
	// Features are the columns trained on, in order; Selection how they were chosen.
	Features    []string        `json:"features"`
	Selection   *data.Selection `json:"selection,omitempty"`
	TextDropped []string        `json:"text_columns_dropped,omitempty"`
	Columns     columnsReport   `json:"columns"`
	Members     []memberSummary `json:"members,omitempty"`
}

// columnsReport says which columns of the table were features, which were left out and
// why, and what became of its missing cells: summary.json's "columns", and the lines
// fit and score print.
type columnsReport struct {
	Used    []string        `json:"used"`
	Dropped []droppedColumn `json:"dropped,omitempty"`
	// Imputed counts the missing cells of each feature filled with its training median.
	Imputed []imputedColumn `json:"imputed,omitempty"`
	// Constant names the features with one value only, which carry no information (kept,
	// standardised by 1).
	Constant []string `json:"constant,omitempty"`
	// RowsWithoutValues are the 1-based data rows left out because every feature of theirs
	// is missing (as scores.csv numbers rows); RowsDropped counts those left out under
	// --missing drop-rows.
	RowsWithoutValues []int `json:"rows_without_values,omitempty"`
	RowsDropped       int   `json:"rows_dropped_missing,omitempty"`
	// Encoded are the text columns turned into features (categories, dates), each said
	// in words; Unseen counts, per such column, the cells whose value training did not
	// see (score); Notes are what the reader decided on its own (an id column found).
	Encoded []encodedColumn `json:"encoded,omitempty"`
	Unseen  []imputedColumn `json:"unseen_values,omitempty"`
	Notes   []string        `json:"notes,omitempty"`
}

type encodedColumn struct {
	Name     string   `json:"name"`
	Kind     string   `json:"kind"` // one-hot, frequency or date
	Features []string `json:"features"`
	Says     string   `json:"says"`
}

type droppedColumn struct {
	Name string `json:"name"`
	Why  string `json:"why"` // label, id, --drop, text, no values
}

type imputedColumn struct {
	Name  string `json:"name"`
	Cells int    `json:"cells"`
}

// columnsOf reports ds's columns; imputed counts each feature's imputed cells (nil for
// none), constant lists the constant features' indexes.
func columnsOf(ds *data.Dataset, imputed []int, constant []int) columnsReport {
	r := columnsReport{Used: ds.Features, RowsDropped: ds.RowsDropped}
	for _, i := range ds.EmptyRows {
		r.RowsWithoutValues = append(r.RowsWithoutValues, i+1) // 1-based, as every row number udocc prints
	}
	if ds.LabelName != "" {
		r.Dropped = append(r.Dropped, droppedColumn{ds.LabelName, "label"})
	}
	if ds.IDName != "" {
		r.Dropped = append(r.Dropped, droppedColumn{ds.IDName, "id"})
	}
	for _, c := range ds.Selection.Drop {
		if c != ds.IDName && c != ds.LabelName {
			r.Dropped = append(r.Dropped, droppedColumn{c, "--drop"})
		}
	}
	for _, c := range ds.TextDropped {
		r.Dropped = append(r.Dropped, droppedColumn{c, "text"})
	}
	for _, c := range ds.EmptyColumns {
		r.Dropped = append(r.Dropped, droppedColumn{c, "no values"})
	}
	if e := ds.Encoding; e != nil {
		for k, c := range e.Columns {
			r.Encoded = append(r.Encoded, encodedColumn{c.Name, c.Kind, c.Features(), c.Describe()})
			if k < len(ds.Unseen) && ds.Unseen[k] > 0 {
				r.Unseen = append(r.Unseen, imputedColumn{c.Name, ds.Unseen[k]})
			}
		}
	}
	r.Notes = notesWithFlags(ds.Notes)
	for j, c := range imputed {
		if c > 0 && j < len(ds.Features) {
			r.Imputed = append(r.Imputed, imputedColumn{ds.Features[j], c})
		}
	}
	for _, j := range constant {
		if j < len(ds.Features) {
			r.Constant = append(r.Constant, ds.Features[j])
		}
	}
	return r
}

// print writes the report as a few indented lines.
func (r columnsReport) print(w io.Writer) {
	fmt.Fprintf(w, "  features (%d): %s\n", len(r.Used), shortList(data.ShowNames(r.Used), 12))
	if len(r.Dropped) > 0 {
		parts := make([]string, len(r.Dropped))
		for i, d := range r.Dropped {
			parts[i] = fmt.Sprintf("%s (%s)", data.ShowName(d.Name), d.Why)
		}
		fmt.Fprintf(w, "  left out: %s\n", shortList(parts, 12))
	}
	for _, e := range r.Encoded {
		fmt.Fprintf(w, "  text column %s\n", e.Says)
	}
	if len(r.Unseen) > 0 {
		parts := make([]string, len(r.Unseen))
		for i, c := range r.Unseen {
			parts[i] = fmt.Sprintf("%s %d", data.ShowName(c.Name), c.Cells)
		}
		fmt.Fprintf(w, "  values the training rows did not hold (one-hot: every feature 0; frequency: 0): %s\n", shortList(parts, 12))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	if len(r.Imputed) > 0 {
		total, parts := 0, make([]string, len(r.Imputed))
		for i, c := range r.Imputed {
			total += c.Cells
			parts[i] = fmt.Sprintf("%s %d", data.ShowName(c.Name), c.Cells)
		}
		fmt.Fprintf(w, "  missing cells imputed with the training median: %d (%s); --missing error or drop-rows to refuse them\n", total, shortList(parts, 12))
	}
	if len(r.Constant) > 0 {
		fmt.Fprintf(w, "  constant (no information): %s\n", shortList(r.Constant, 12))
	}
	if n := len(r.RowsWithoutValues); n > 0 {
		rows := make([]string, min(n, 10))
		for i := range rows {
			rows[i] = fmt.Sprint(r.RowsWithoutValues[i])
		}
		more := ""
		if n > 10 {
			more = ", …"
		}
		fmt.Fprintf(w, "  %d %s with no value at all left out, not scored (data %s %s%s)\n", n, plural(n, "row", "rows"), plural(n, "row", "rows"), strings.Join(rows, ", "), more)
	}
	if r.RowsDropped > 0 {
		fmt.Fprintf(w, "  %d %s with a missing cell left out (--missing drop-rows)\n", r.RowsDropped, plural(r.RowsDropped, "row", "rows"))
	}
}

// shortList joins up to most items, then says how many more there are.
func shortList(xs []string, most int) string {
	if len(xs) <= most {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:most], ", ") + fmt.Sprintf(", and %d more", len(xs)-most)
}

type configJSON struct {
	Arch           []int    `json:"arch"`
	PretrainEpochs int      `json:"pretrain_epochs"`
	ScreenEpochs   int      `json:"screen_epochs,omitempty"` // the ensemble's screening fit
	Trim           float64  `json:"trim,omitempty"`          // the share of rows it left out
	Epochs         int      `json:"epochs"`
	BatchSize      int      `json:"batch_size"`
	LR             float64  `json:"lr"`
	PretrainLR     float64  `json:"pretrain_lr"`
	WeightDecay    float64  `json:"weight_decay"`
	Ratio          float64  `json:"ratio,omitempty"`
	Threshold      string   `json:"threshold_rule,omitempty"`
	Members        int      `json:"members,omitempty"`         // the ensemble method's
	Components     int      `json:"components,omitempty"`      // the principal components read (--components)
	GaussianWeight float64  `json:"gaussian_weight,omitempty"` // the Gaussian's weight beside them (--gaussian)
	DistanceWeight *float64 `json:"distance_weight,omitempty"` // the ensemble method's w
	Preset         string   `json:"preset"`
	Ranks          int      `json:"ranks,omitempty"` // a data-parallel run's W
	RankScores     string   `json:"rank_scores"`
	Threads        int      `json:"threads"`
}

// timings are a fit's wall times: TotalSeconds the library's fit (from its start to its
// model, scored and thresholded), and its parts; ReadSeconds the table's reading before
// it; StartSeconds the process's start before the command ran (absent where /proc does
// not say); LoadSeconds how long the fit waited for libtorch, which the process loads
// beside main as it starts (internal/torch's lazy_shimlib.c: its libraries mapped and
// their initialisers run while the table is read; 0 where they were done by then);
// ExplainSeconds the flagged rows' explanations and FiguresSeconds the
// figures, after the fit (the figures are drawn beside the explanations, so the two
// overlap). PretrainSeconds is, as before, the time to the last
// pretraining epoch (the screening fit's included).
type timings struct {
	PretrainSeconds float64 `json:"pretrain_seconds"`
	FinetuneSeconds float64 `json:"finetune_seconds"`
	TotalSeconds    float64 `json:"total_seconds"`
	ReadSeconds     float64 `json:"read_seconds"`
	StartSeconds    float64 `json:"start_seconds,omitempty"`
	LoadSeconds     float64 `json:"load_seconds,omitempty"`
	ExplainSeconds  float64 `json:"explain_seconds,omitempty"`
	FiguresSeconds  float64 `json:"figures_seconds,omitempty"`
	// The fit's parts, one after another, adding up to TotalSeconds with LoadSeconds: the
	// screening fit, the final fit's pretraining and fine-tuning, and the scoring and
	// thresholding of every row after them. The wait for libtorch comes before the first
	// of them to train, and is taken out of it.
	ScreenSeconds     float64 `json:"screen_seconds,omitempty"`
	FinalPretrainSecs float64 `json:"final_pretrain_seconds"`
	FinalFinetuneSecs float64 `json:"final_finetune_seconds"`
	ScoreSeconds      float64 `json:"score_seconds"`
}

// stageTimes fills the fit's parts from the stages' ends (seconds from its start).
func (t *timings) stageTimes(ends map[string]float64) {
	screen := ends["screen-finetune"]
	pre := max(ends["pretrain"], screen)
	fine := max(ends["finetune"], pre)
	t.ScreenSeconds, t.FinalPretrainSecs, t.FinalFinetuneSecs = screen, pre-screen, fine-pre
	t.ScoreSeconds = max(0, t.TotalSeconds-fine)
	if t.ScreenSeconds > 0 {
		t.LoadSeconds = min(t.LoadSeconds, t.ScreenSeconds)
		t.ScreenSeconds -= t.LoadSeconds
	} else {
		t.LoadSeconds = min(t.LoadSeconds, t.FinalPretrainSecs)
		t.FinalPretrainSecs -= t.LoadSeconds
	}
}

// spread summarises a value over epochs.
type spread struct {
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}

// memberSummary is one seed of an ensemble.
// An ensemble's member has no threshold of its own: its count fields are left out.
type memberSummary struct {
	Seed          uint64   `json:"seed"`
	DeltaBar      *float64 `json:"delta_bar,omitempty"`
	SelectedRatio *float64 `json:"selected_ratio,omitempty"`
	Threshold     *float64 `json:"threshold,omitempty"`
	Flagged       *int     `json:"flagged,omitempty"`
	ROCAUC        *float64 `json:"rocauc,omitempty"`
	PRAUC         *float64 `json:"prauc,omitempty"`
	F1            *float64 `json:"f1,omitempty"`
}

// labelMetrics are the metrics of summary.json where labels are known; all null (and
// omitted) without labels, F1, precision and recall also without a threshold.
type labelMetrics struct {
	ROCAUC    *float64 `json:"rocauc,omitempty"`
	PRAUC     *float64 `json:"prauc,omitempty"`
	F1        *float64 `json:"f1,omitempty"`
	Precision *float64 `json:"precision,omitempty"`
	Recall    *float64 `json:"recall,omitempty"`
	TrueRatio *float64 `json:"true_ratio,omitempty"`
}

// metricsOf evaluates scores and labels against the truth y; the zero value when the
// metrics are undefined (y nil, or one class only).
func metricsOf(y []int, scores []float64, labels []bool) labelMetrics {
	var m labelMetrics
	if y == nil {
		return m
	}
	ev, err := evaluate(y, scores, labels)
	if err != nil {
		return m
	}
	m.ROCAUC, m.PRAUC, m.TrueRatio = num(ev.ROCAUC), num(ev.PRAUC), num(ev.TrueRatio)
	if ev.hasLabels {
		m.F1, m.Precision, m.Recall = num(ev.F1), num(ev.Precision), num(ev.Recall)
	}
	return m
}

// num is a JSON number, or null for NaN and ±Inf.
func num(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func flagged(labels []bool) int {
	c := 0
	for _, l := range labels {
		if l {
			c++
		}
	}
	return c
}

func (f *fitted) summarise(total float64) summary {
	o, m, ds := f.o, f.m, f.ds
	hist := m.History()
	fine := 0.0
	for _, e := range hist[0] {
		fine += e.Seconds // the group's epochs: the same for every member
	}
	s := summary{
		Udocc: Version, Libtorch: lib.RuntimeInfo().Libtorch, Data: ds.Name, Source: ds.Path,
		Method: o.Method, N: ds.N, D: ds.D, Seed: f.members[0].Seed, Device: o.Device,
		Config: configJSON{
			Arch: m.Hidden(), PretrainEpochs: o.PretrainEpochs, ScreenEpochs: o.ScreenEpochs, Epochs: o.Epochs,
			Trim:      trimOf(o),
			BatchSize: o.BatchSize, LR: o.LR, PretrainLR: o.PretrainLR, WeightDecay: o.WeightDecay, Ratio: o.Ratio,
			RankScores: string(o.RankScores), Threads: o.Threads, Preset: o.preset, Ranks: ranksOf(o),
			Components: m.Components(), GaussianWeight: m.GaussianWeight(),
		},
		Threshold: num(m.Threshold()),
		Flagged:   flagged(m.Labels()),
		Timings: timings{PretrainSeconds: f.pre, FinetuneSeconds: fine, TotalSeconds: total, ReadSeconds: o.readSeconds,
			StartSeconds: o.startSeconds, LoadSeconds: torch.LoadWait().Seconds()},
	}
	s.Timings.stageTimes(f.ends)
	for _, mem := range f.members {
		s.Seeds = append(s.Seeds, mem.Seed)
	}
	s.Constant = m.ConstantColumns()
	if strings.EqualFold(filepath.Ext(ds.Path), ".csv") {
		s.Header = &ds.Named
	}
	s.Features, s.TextDropped = ds.Features, ds.TextDropped
	s.Columns = columnsOf(ds, m.TrainingMissing(), m.ConstantColumns())
	if !ds.Selection.IsZero() {
		s.Selection = &ds.Selection
	}
	s.Config.Threshold = lib.RuleOf(meth(o.library()))
	// The final scores' and every member's metrics (each a sort of the table's scores:
	// 12 sorts of 567,000 rows took about 1 s of http's fit) on the process's cores.
	var members []labelMetrics // read where the summary lists its members
	if o.Method == ensembleMethod || len(f.members) > 1 {
		members = make([]labelMetrics, len(f.members))
	}
	parallel.For(len(members)+1, runtime.GOMAXPROCS(0), func(i int) {
		switch {
		case i == len(members):
			s.labelMetrics = metricsOf(ds.Y, m.Scores(), m.Labels())
		case o.Method == ensembleMethod:
			members[i] = metricsOf(ds.Y, f.members[i].Scores, nil)
		default:
			members[i] = metricsOf(ds.Y, f.members[i].Scores, f.members[i].Labels)
		}
	})
	if o.Method == ensembleMethod {
		s.Config.Members = len(f.members)
		w := m.DistanceWeight()
		s.Config.DistanceWeight = &w
		r := m.Ratio()
		s.SelectedRatio = &r
		if lo, hi := m.RatioInterval(); !math.IsNaN(lo) {
			s.RatioInterval = []float64{lo, hi}
		}
		s.CountBasis = countBasisOf(m, filepath.Join(o.output.out, "model"), ds.Path, f.calibration)
		if f.calibration != nil {
			s.SelectedRatio = &f.calibration.Share // the count, which the cut need not equal
		}
		if rel, ok := m.CountReliable(); ok {
			s.CountReliable = &rel
		}
		for i, mem := range f.members {
			ms := memberSummary{Seed: mem.Seed}
			lm := members[i]
			ms.ROCAUC, ms.PRAUC = lm.ROCAUC, lm.PRAUC
			s.Members = append(s.Members, ms)
		}
		return s
	}
	var bars, ratios []float64
	for _, h := range hist {
		b, q := deltaBar(h)
		bars, ratios = append(bars, b), append(ratios, q)
	}
	s.DeltaBar, s.SelectedRatio = num(mean(bars)), num(mean(ratios))
	if len(hist) == 1 {
		s.RatioEpochs = ratioSpread(hist[0])
	}
	if len(f.members) > 1 {
		for i, mem := range f.members {
			ms := memberSummary{Seed: mem.Seed, DeltaBar: num(bars[i]), SelectedRatio: num(ratios[i]),
				Threshold: num(mem.Threshold)}
			if mem.Labels != nil {
				k := flagged(mem.Labels)
				ms.Flagged = &k
			}
			lm := members[i]
			ms.ROCAUC, ms.PRAUC, ms.F1 = lm.ROCAUC, lm.PRAUC, lm.F1
			s.Members = append(s.Members, ms)
		}
	}
	return s
}

func mean(xs []float64) float64 {
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}

// ranksOf is a data-parallel run's number of ranks W, 0 in a single process.
func ranksOf(o fitOptions) int {
	if o.Dist == nil {
		return 0
	}
	return o.Dist.World()
}

// trimOf is the share of rows the screening left out, when there was one.
func trimOf(o fitOptions) float64 {
	if o.ScreenEpochs == 0 {
		return 0
	}
	return o.Trim
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

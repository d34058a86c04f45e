package main

import (
	"context"
	"fmt"
	"github.com/udocc/udocc/internal/dynamics"
	"github.com/udocc/udocc/internal/labelhint"
	"github.com/udocc/udocc/internal/method"
	"github.com/udocc/udocc/internal/torch"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/udocc/udocc/data"
	lib "github.com/udocc/udocc/internal/detector"
)

// fitSettings are the library's settings as fit's flags spell them, flat: library
// splits them into the method's struct and the shared Options.
type fitSettings struct {
	lib.Options
	Method                string // the method's name, after check
	ScreenEpochs          int
	Trim                  float64
	TrainRows, Components int
	Gaussian              float64
	Count                 []lib.CountRule
	Contamination         float64
	Delta                 lib.DeltaRule
	Ties                  lib.Ties
	Ratio                 float64 // sb's ν or tar's ratio
	RankScores            lib.ScoreSource
}

// ensembleMethod is the default method's name.
var ensembleMethod = lib.Ensemble{}.Name()

// newFitSettings are the settings of the default method with its defaults filled in.
func newFitSettings() fitSettings {
	m, o := lib.Defaults(nil)
	e := m.(lib.Ensemble)
	return fitSettings{Options: o, Method: ensembleMethod, ScreenEpochs: e.ScreenEpochs, Trim: e.Trim,
		TrainRows: e.TrainRows, Components: e.Components, Gaussian: e.Gaussian, RankScores: lib.TrainScores}
}

// fitOptions are the flags of udocc fit: the library's settings, and the flags that
// say how to spell them, what to read and where to write.
type fitOptions struct {
	fitSettings
	method      string
	preset      string
	arch        string
	threshold   string
	ties        string
	rankScores  string
	seeds       string
	input       inputFlags
	output      outputFlags
	table       tableFlags
	in          *input // the table fit reads, for --append-to; nil for demo
	explain     int    // --explain
	explainRows int    // --explain-rows
	labels      string // --labels: calibrate the fitted model from these answers
	// started is when the command started, readSeconds how long reading DATA took, and
	// startSeconds how long the process took to reach the command (the loader's start of
	// libtorch; 0 where /proc does not say): the wall time the report prints.
	started      time.Time
	readSeconds  float64
	readLine     string // progress's line on the reading, written once the table passes the checks
	startSeconds float64
	// nproc and distTimeout are the data-parallel run's (docs/distributed.md); this
	// process's rank is Options.Dist, nil in a single process.
	nproc       int
	distTimeout time.Duration
}

// addFitFlags declares the training flags shared by fit and demo, with the defaults of
// lib.Defaults(nil); --preset paper takes lib.Defaults(lib.Proposed{}) for the flags not given.
func addFitFlags(fs *pflag.FlagSet, o *fitOptions) {
	o.fitSettings = newFitSettings()
	fs.StringVar(&o.preset, "preset", "default", "default (an ensemble of short-tuned Deep SVDD members scored with their autoencoders, refitted without the rows a screening fit scored highest; docs/threshold.md) or paper (the paper's method and settings: --method proposed, --lr 1e-3, --epochs 50, --pretrain-epochs 100, no screening)")
	fs.StringVar(&o.method, "method", o.Method, "method: "+orList(methodNames())+" (--preset paper: proposed)")
	fs.Float64Var(&o.Contamination, "contamination", 0, "the anomaly ratio when you know it, a share in (0, 0.5] (ensemble): the top share of rows is flagged instead of a rule's choice; rows tied with the last of them are flagged too")
	fs.IntVar(&o.Members, "members", o.Members, "ensemble: members trained in lockstep from one --seed s (seeds s, s+1, ...)")
	fs.Float64Var(&o.Ratio, "ratio", 0, "ν for sb, the anomaly ratio for tar (an error for the other methods)")
	fs.StringVar(&o.arch, "arch", "", "hidden layer widths, e.g. 32,16,8 (default 32,16,8, or for the ensemble 32,16,4 on a table of at most 8 features; --preset paper: the paper's widths for a paper set, by the table's name: arrhythmia 128,64,32, mnist 64,32,16, pima and thyroid 32,16,4)")
	fs.StringVar(&o.threshold, "threshold", "", "ensemble's threshold rule ("+strings.Join(thresholdNames(), ", ")+", or several joined by +: the geometric mean of their shares; default "+string(lib.LearnedCount)+") or proposed's δ rule ("+strings.Join(deltaNames(), ", ")+"; default "+string(lib.Accumulated)+")")
	fs.StringVar(&o.ties, "ties", "largest", "how the paper rule breaks ties of Eq. (5)'s minimum: smallest, largest or median")
	fs.StringVar(&o.rankScores, "rank-scores", string(o.RankScores), "scores the selectors rank each epoch: train (the training pass) or eval (an eval-mode pass after the epoch)")
	fs.IntVar(&o.PretrainEpochs, "pretrain-epochs", o.PretrainEpochs, "autoencoder pretraining epochs (of the ensemble's final fit; --preset paper: 100)")
	fs.IntVar(&o.ScreenEpochs, "screen-epochs", o.ScreenEpochs, "ensemble: autoencoder epochs of the screening fit on every row, whose scores choose the rows the final fit leaves out and the threshold's count; 0: one fit on every row")
	fs.IntVar(&o.TrainRows, "train-rows", o.TrainRows, "ensemble: the most rows the networks train on; a larger table trains on a sample of this many rows drawn from --seed, and every row is scored; 0: every row")
	fs.IntVar(&o.Components, "components", o.Components, "ensemble: a table of more than 300 columns reaches the networks as this many of its leading principal components (explanations then by occlusion); 0: every column")
	fs.Float64Var(&o.Gaussian, "gaussian", o.Gaussian, "ensemble, on a table read through its principal components: the weight in [0, 1] of a Ledoit-Wolf Gaussian of its columns in the score, beside the networks'; 0: the networks alone")
	fs.Float64Var(&o.Trim, "trim", o.Trim, "ensemble: share of rows, those the screening fit scored highest, that the final fit leaves out")
	fs.IntVar(&o.Epochs, "epochs", o.Epochs, "fine-tuning epochs (--preset paper: 50)")
	fs.IntVar(&o.BatchSize, "batch-size", o.BatchSize, "minibatch rows")
	fs.Float64Var(&o.LR, "lr", o.LR, "Adam learning rate of fine-tuning, and of pretraining unless --pretrain-lr is set (--preset paper: 1e-3)")
	fs.Float64Var(&o.PretrainLR, "pretrain-lr", o.PretrainLR, "Adam learning rate of pretraining; 0 means --lr (--preset paper: 0)")
	fs.Float64Var(&o.WeightDecay, "weight-decay", o.WeightDecay, "Adam L2 weight decay")
	addSeedFlags(fs, &o.seeds, "0", "random seed (ensemble: members seed, seed+1, ...); a list or range such as 0-9 names every member's seed (trained in lockstep)")
	addDeviceFlags(fs, &o.Device, &o.Threads, usableCores())
	fs.IntVar(&o.explain, "explain", defaultExplain, "name at most this many features raising each flagged row's score in scores.csv (feature_i, share_i: "+sharesDefinition+"); 0: none")
	addExplainRowsFlag(fs, &o.explainRows)
}

// check validates the flags that do not depend on the data and fills in the Options
// that the flags spell: the preset, the threshold rule, the seeds and the widths. The
// Options' own rules are the library's (Options.Validate, its errors naming the flag);
// here are only those of the flags' spelling.
func (o *fitOptions) check(fs *pflag.FlagSet) error {
	if err := o.applyPreset(fs); err != nil {
		return err
	}
	o.RankScores = lib.ScoreSource(o.rankScores)
	m, err := methodOf(o.method)
	if err != nil {
		return err
	}
	o.Method = m.Name()
	if err := o.checkEnsemble(fs); err != nil {
		return err
	}
	meth, _ := method.MethodNamed(m.Name()) // m is a method: methodOf read it
	if !meth.Ratio && fs.Changed("ratio") {
		return usagef("--ratio is only for --method sb or tar")
	}
	if fs.Changed("threshold") && !meth.Rule {
		return usagef("--threshold is only for --method ensemble or proposed")
	}
	if o.Method == (lib.Proposed{}).Name() {
		if err := o.deltaRule(); err != nil {
			return err
		}
	}
	if fs.Changed("ties") && (o.Method != (lib.Proposed{}).Name() || o.Delta != lib.PaperRule) {
		return usagef("--ties is only for --method proposed with --threshold paper, the rule whose ties it breaks")
	}
	if o.arch != "" {
		if o.Hidden, err = parseHidden(o.arch); err != nil {
			return usagef("--arch: %v", err)
		}
	}
	if err := o.input.check(); err != nil {
		return err
	}
	if err := checkExplain(o.explain); err != nil {
		return err
	}
	if err := checkDevice(o.Device); err != nil {
		return err
	}
	if err := checkThreads(o.Threads); err != nil {
		return err
	}
	if err := checkSeedFlags(fs); err != nil {
		return err
	}
	seeds, err := parseSeeds("seed", o.seeds)
	if err != nil {
		return err
	}
	o.Seed = seeds[0]
	if o.Method != ensembleMethod || len(seeds) > 1 {
		o.Seeds, o.Members = seeds, len(seeds)
	}
	if err := o.checkZeros(fs); err != nil {
		return err
	}
	if err := lib.Validate(o.library()); err != nil {
		return optionsError(err)
	}
	return nil
}

// checkZeros refuses a 0 given to a flag that needs a positive value (the library
// reads a zero field as its default, which the flag's own default already says), and a
// negative value where the library reads one as none (the flags say none with 0).
func (o *fitOptions) checkZeros(fs *pflag.FlagSet) error {
	switch {
	case o.PretrainEpochs < 0:
		return usagef("--pretrain-epochs %d < 0", o.PretrainEpochs)
	case o.ScreenEpochs < 0:
		return usagef("--screen-epochs %d < 0", o.ScreenEpochs)
	case o.TrainRows < 0:
		return usagef("--train-rows %d < 0 (0: every row)", o.TrainRows)
	case o.Components < 0:
		return usagef("--components %d < 0 (0: every column)", o.Components)
	case !(o.Gaussian >= 0 && o.Gaussian <= 1):
		return usagef("--gaussian %g: want a weight in [0, 1] (0: the networks alone)", o.Gaussian)
	case o.WeightDecay < 0:
		return usagef("--weight-decay %g: want a number in [0, %.4g]", o.WeightDecay, float64(math.MaxFloat32))
	case fs.Changed("epochs") && o.Epochs == 0:
		return usagef("--epochs 0 < 1")
	case fs.Changed("lr") && o.LR == 0:
		return usagef("--lr 0: want a number in (0, %.4g]", float64(math.MaxFloat32))
	case fs.Changed("batch-size") && o.BatchSize == 0:
		return usagef("--batch-size 0 < 2 (BatchNorm needs 2 rows)")
	case fs.Changed("members") && o.Members == 0:
		return usagef("--members 0: want 1..1000")
	case fs.Changed("trim") && o.Trim == 0 && o.Method == ensembleMethod && o.ScreenEpochs != 0:
		return usagef("--trim 0: want a share in (0, 0.5) of rows to leave out")
	}
	return nil
}

// library are the method and Options the flags give the library. A flag's 0 that
// means none (no pretraining, no screening, no weight decay, no training sample: every
// row, no projection: every column) is the library's negative, as its zero means the
// default; --pretrain-lr 0, "--lr", is the fine-tuning rate itself.
func (o *fitSettings) library() (lib.Method, lib.Options) {
	opts := o.Options
	none := func(v int) int {
		if v == 0 {
			return -1
		}
		return v
	}
	opts.PretrainEpochs = none(opts.PretrainEpochs)
	if opts.WeightDecay == 0 {
		opts.WeightDecay = -1
	}
	if opts.PretrainLR == 0 {
		opts.PretrainLR = opts.LR
	}
	switch o.Method {
	case ensembleMethod:
		e := lib.Ensemble{ScreenEpochs: none(o.ScreenEpochs), Trim: o.Trim, TrainRows: none(o.TrainRows),
			Components: none(o.Components), Gaussian: o.Gaussian, Count: o.Count, Contamination: o.Contamination}
		if e.Gaussian == 0 {
			e.Gaussian = -1
		}
		return e, opts
	case lib.Proposed{}.Name():
		return lib.Proposed{Delta: o.Delta, Ties: o.Ties, RankScores: o.RankScores}, opts
	case lib.SB{}.Name():
		return lib.SB{Nu: o.Ratio, RankScores: o.RankScores}, opts
	case lib.Otsu{}.Name():
		return lib.Otsu{RankScores: o.RankScores}, opts
	case lib.TAR{}.Name():
		return lib.TAR{Ratio: o.Ratio, RankScores: o.RankScores}, opts
	}
	return lib.OC{}, opts
}

// deltaRule sets proposed's δ rule from --threshold and --ties, which the paper rule
// alone takes (the others ignore it).
func (o *fitOptions) deltaRule() error {
	ties := lib.Ties(o.ties)
	if !slices.Contains([]lib.Ties{lib.TiesLargest, lib.TiesSmallest, lib.TiesMedian}, ties) {
		return usagef("--ties %q: want smallest, largest or median", o.ties)
	}
	o.Delta = lib.DeltaRule(o.threshold)
	if !slices.Contains(dynamics.RuleNames(), string(o.Delta)) {
		return usagef("--threshold %q: want a δ rule of --method proposed: %s", o.threshold, orList(deltaNames()))
	}
	if o.Delta == lib.PaperRule {
		o.Ties = ties
	}
	return nil
}

// checkData validates the flags against the table, before anything is trained, and
// resolves the default widths from the data set's name.
func (o *fitOptions) checkData(ds *data.Dataset) error {
	if ds.N < 2 {
		return fmt.Errorf("udocc needs at least 2 rows; %s has %d", ds.Path, ds.N)
	}
	if err := lib.ValidateRows(meth(o.library()), ds.N); err != nil {
		return optionsError(err)
	}
	return deviceUsable(o.Device)
}

// fitOutputs are the paths udocc fit writes into --out, as outdir.Begin matches them.
var fitOutputs = []string{"summary.json", "scores.csv", "history.csv", "delta_curve.png", "selected_ratio.png",
	"scores.png", "loss.png", "model", "model/model.json", "model/member-*.pt", "model/autoencoder-*.pt"}

func runFit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o fitOptions
	fs := newFlags("fit", "[flags] DATA", "Train a Deep SVDD model on DATA (.csv, .tsv, .txt, each optionally .gz, .parquet, .mat, .npy or .npz; - is stdin), score and label every row.", stdout)
	addFitFlags(fs, &o)
	addOutputFlags(fs, &o.output, "output folder (default udocc-out/<data name>)")
	addInputFlags(fs, &o.input)
	addTableFlags(fs, &o.table)
	addSendFlags(fs, &o.table)
	fs.IntVar(&o.nproc, "nproc", 1, "data-parallel: train as this many ranks on this machine, each a process holding its block of the rows (torchrun --standalone; docs/distributed.md)")
	fs.DurationVar(&o.distTimeout, "dist-timeout", torch.DefaultDistTimeout, "data-parallel: how long a rank waits for the others, at the start and in each exchange, before it fails")
	fs.StringVar(&o.labels, "labels", "", "a labels file of DATA's rows that udocc review wrote: the count and the threshold come from its answers (the cut of the highest estimated F1), as udocc cut --labels draws them")
	groupFlags(fs, fitGroups)
	if err := parse(fs, args); err != nil {
		return err
	}
	if o.labels != "" && fs.Changed("contamination") {
		return usagef("give --labels or --contamination, not both")
	}
	if fs.NArg() != 1 {
		return usagef("want one DATA file, have %d arguments", fs.NArg())
	}
	if err := o.check(fs); err != nil {
		return err
	}
	if err := o.table.check(o.output.json); err != nil {
		return err
	}
	if err := checkClobber(fs.Arg(0), "", o.output, o.table); err != nil {
		return err
	}
	if most := maxRanks(); o.nproc < 1 || o.nproc > most {
		return usagef("--nproc %d: want 1 to %d on this machine (%d cores, at most %d ranks a core and %d in all); each rank is a process with its own libtorch",
			o.nproc, most, runtime.NumCPU(), ranksPerCore, maxNproc)
	}
	if o.distTimeout <= 0 {
		return usagef("--dist-timeout %v: want a positive duration", o.distTimeout)
	}
	if o.nproc > 1 {
		if os.Getenv("WORLD_SIZE") != "" {
			return usagef("--nproc %d: WORLD_SIZE is set, so a launcher already started the ranks", o.nproc)
		}
		if fs.Arg(0) == "-" {
			return usagef("--nproc %d: DATA - (stdin) cannot be read by several ranks; give a file", o.nproc)
		}
		if err := checkRankRows(fs.Arg(0), o.nproc, o.input, o.table); err != nil {
			return err
		}
		return launchRanks(o.nproc, args, stdout, stderr)
	}
	d, err := lib.JoinFromEnv(o.Device, o.distTimeout)
	if err != nil {
		return err
	}
	if d != nil {
		defer d.Close()
		o.Dist = d
		o.output.quiet = o.output.quiet || d.Rank() != 0 // one progress line: rank 0's
		if d.Rank() != 0 {
			// Rank 0 reads every row (its outputs need them all); the others their block.
			o.table.part = data.Part{Index: d.Rank(), Of: d.World()}
		}
	}
	readStart := time.Now()
	o.started = readStart
	if !processT0.IsZero() {
		o.startSeconds = readStart.Sub(processT0).Seconds()
	}
	o.table.threads = o.Threads
	o.table.encode = true // text columns become features (data.Encoding), unless --drop-text
	in, err := loadTable(fs.Arg(0), o.input, o.table, o.table.selection())
	if err != nil {
		return err
	}
	// Reading leaves garbage as large as the file (its bytes, parse buffers): hand it
	// back before training allocates its own, so that the two do not add up.
	debug.FreeOSMemory()
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent(len(in.ds.X) * 4))
	}
	o.readSeconds = time.Since(readStart).Seconds()
	if secs := o.readSeconds; !o.output.quiet {
		// Progress begins with the reading, once the table passes the checks before
		// training (fitWriteReport): how long it took, in rows per second.
		o.readLine = fmt.Sprintf("read: %s, %d rows x %d features in %.1f s (%.0f rows/s)",
			fs.Arg(0), in.ds.N, in.ds.D, secs, float64(in.ds.N)/max(secs, 1e-9))
	}
	defer in.remove()
	o.in = in
	if o.output.out == "" {
		o.output.out = filepath.Join("udocc-out", in.ds.Name)
	}
	_, err = fitWriteReport(ctx, in.ds, o, stdout, stderr)
	return err
}

// gcPercent is the GOGC a fit on a table of tableBytes runs with. The table is most of
// the heap and holds no pointers, so a collection costs little however large it is; at
// Go's default, 100, the heap grows by as much again before one runs, and training's
// garbage (scores widened every epoch) could add a table's worth to the peak. It is
// collected after about 8 MB of garbage instead, or 2% of the heap if that is more
// (32 MB left a 10^6-row fit 40% of its heap, about 30 MB more at its peak; the
// collections cost no time that a fit's wall clock shows).
func gcPercent(tableBytes int) int {
	return max(2, min(100, 100*(8<<20)/max(tableBytes, 1)))
}

// fitWriteReport fits ds, writes every output into --out as one transaction and prints
// the summary. The output folder is locked and checked before training, so that a
// folder that cannot be written fails at once; a cancelled ctx (Ctrl-C) leaves it as it
// was.
func fitWriteReport(ctx context.Context, ds *data.Dataset, o fitOptions, stdout, stderr io.Writer) (summary, error) {
	if o.Dist != nil && o.Dist.Rank() != 0 {
		// Rank 0 checks the flags against the whole table and writes every output; the
		// others, which hold their block of the rows, only train with it.
		if err := deviceUsable(o.Device); err != nil {
			return summary{}, err
		}
		f, err := fitTable(ctx, ds, o, newProgress(stderr, true))
		if err != nil {
			return summary{}, err
		}
		f.m.Close()
		return f.summary, nil
	}
	if err := o.checkData(ds); err != nil {
		return summary{}, err
	}
	tx, err := beginOutputs(o.output, fitOutputs)
	if err != nil {
		return summary{}, err
	}
	defer tx.Abort()
	if o.readLine != "" {
		fmt.Fprintln(stderr, o.readLine)
	}
	for _, l := range labelhint.Of(ds) {
		fmt.Fprintf(stderr, "udocc fit: warning: column %q looks like a label (%s), but is trained on as a feature; to keep it out, use --label %s (or --drop %s)\n", l.Name, l.Why, data.ShowName(l.Name), data.ShowName(l.Name))
	}
	f, err := fitTable(ctx, ds, o, newProgress(stderr, o.output.quiet))
	if err != nil {
		return summary{}, interrupted(ctx, o.output.out, err)
	}
	defer f.m.Close()
	if err := f.write(ctx, tx.Dir()); err != nil {
		return summary{}, interrupted(ctx, o.output.out, err)
	}
	if err := commit(ctx, tx, o.output.out); err != nil {
		return summary{}, err
	}
	f.dir = o.output.out
	if err := sendOutputs(o.table, o.in, f.dir, f.m.Scores(), f.m.Labels(), stdout); err != nil {
		return summary{}, err
	}
	return f.summary, report(f, o, o.table.reportTo(stdout, stderr))
}

// report prints the summary: JSON with --json, a few lines otherwise.
// oneClass says which class a label of one value gives every row.
func oneClass(y []int) string {
	if len(y) > 0 && y[0] == 1 {
		return "an anomaly"
	}
	return "normal"
}

func report(f *fitted, o fitOptions, stdout io.Writer) error {
	if o.output.json {
		return printJSON(stdout, f.summary)
	}
	s := f.summary
	fmt.Fprintf(stdout, "udocc fit: %s (%d rows x %d features), method %s, %s on %s\n", s.Data, s.N, s.D, s.Method, seedText(s.Seeds), s.Device)
	if s.Header != nil {
		if *s.Header {
			fmt.Fprintf(stdout, "  line 1 read as the header (column names); --header no if it is data\n")
		} else {
			fmt.Fprintf(stdout, "  no header: line 1 is data, columns named x1..x%d; --header yes if it is a header\n", s.D)
		}
	}
	s.Columns.print(stdout)
	if f.explainedNote != "" {
		fmt.Fprintln(stdout, f.explainedNote)
	}
	if k := s.Config.Components; k > 0 {
		read, explained := fmt.Sprintf("read through their %d leading principal components (--components)", k), "rows explained by occlusion"
		if w := s.Config.GaussianWeight; w > 0 {
			read += fmt.Sprintf(", the score %.2g a Ledoit-Wolf Gaussian of every column and %.2g the networks' (--gaussian)", w, 1-w)
			explained += ", the Gaussian's part by its exact Shapley values"
		}
		fmt.Fprintf(stdout, "  %s; %s\n", read, explained)
	} else if s.Method == ensembleMethod && s.D > method.EnsembleProjectAbove && s.Config.Ranks == 0 {
		fmt.Fprintf(stdout, "  %d columns, every one read (--components 0); by default a table this wide is read through 32 principal components, 2-5x faster (bench/notes/cost.md)\n", s.D)
	}
	if f.paperWidths {
		fmt.Fprintf(stdout, "  layer widths %s: the paper's for %s, by the table's name (--arch sets others)\n", strings.Trim(strings.Join(strings.Fields(fmt.Sprint(s.Config.Arch)), ","), "[]"), s.Data)
	}
	if s.SelectedRatio != nil {
		fmt.Fprintf(stdout, "  selected anomaly ratio %.4f", *s.SelectedRatio)
		if s.DeltaBar != nil {
			fmt.Fprintf(stdout, " (δ̄ = %.1f of n = %d)", *s.DeltaBar, s.N)
		}
		if iv := s.RatioInterval; iv != nil {
			fmt.Fprintf(stdout, ", 80 %% interval %.4f to %.4f", iv[0], iv[1])
		}
		fmt.Fprintln(stdout)
		if b := s.CountBasis; b != nil && b.From != countFromScores {
			fmt.Fprintf(stdout, "  %s\n", b.Note)
		} else if s.CountReliable != nil && !*s.CountReliable {
			fmt.Fprintf(stdout, "  count unreliable: its 80 %% interval is wide, or rests on too few tables (--contamination sets the share)\n")
		}
	}
	if s.Threshold != nil {
		fmt.Fprintf(stdout, "  threshold %.6g (score units): %d of %d rows flagged\n", *s.Threshold, s.Flagged, s.N)
	} else {
		fmt.Fprintf(stdout, "  no threshold (%s ranks rows but does not label them)\n", s.Method)
	}
	if s.TrueRatio != nil {
		fmt.Fprintf(stdout, "  true anomaly ratio %.4f: ROCAUC %.4f  PRAUC %.4f", *s.TrueRatio, *s.ROCAUC, *s.PRAUC)
		if s.F1 != nil {
			fmt.Fprintf(stdout, "  F1 %.4f  precision %.4f  recall %.4f", *s.F1, *s.Precision, *s.Recall)
		}
		fmt.Fprintln(stdout)
	} else if f.ds != nil && f.ds.Y != nil {
		fmt.Fprintf(stdout, "  the label has one value (every row %s): no ROCAUC, PRAUC or true anomaly ratio\n", oneClass(f.ds.Y))
	}
	t := s.Timings
	wall := t.ReadSeconds + t.TotalSeconds + t.ExplainSeconds + t.FiguresSeconds
	if !o.started.IsZero() {
		wall = time.Since(o.started).Seconds()
	}
	wall += t.StartSeconds // the whole process, as time(1) gives it
	parts := ""
	if t.StartSeconds > 0 {
		parts = fmt.Sprintf("starting %.1f s, ", t.StartSeconds)
	}
	parts += fmt.Sprintf("reading %.1f s, ", t.ReadSeconds)
	if t.LoadSeconds > 0 {
		parts += fmt.Sprintf("loading libtorch %.1f s, ", t.LoadSeconds)
	}
	if t.ScreenSeconds > 0 {
		parts += fmt.Sprintf("screening fit %.1f s, ", t.ScreenSeconds)
	}
	parts += fmt.Sprintf("pretraining %.1f s, fine-tuning %.1f s, scoring %.1f s, ",
		t.FinalPretrainSecs, t.FinalFinetuneSecs, t.ScoreSeconds)
	if t.ExplainSeconds > 0 {
		parts += fmt.Sprintf("explaining %.1f s, ", t.ExplainSeconds)
	}
	parts += fmt.Sprintf("figures %.1f s, writing %.1f s", t.FiguresSeconds,
		max(0, wall-t.StartSeconds-t.ReadSeconds-t.TotalSeconds-t.ExplainSeconds-t.FiguresSeconds))
	fmt.Fprintf(stdout, "  wall time %.1f s (%s); results in %s\n", wall, parts, f.dir)
	return nil
}

func seedText(seeds []uint64) string {
	if len(seeds) == 1 {
		return fmt.Sprintf("seed %d", seeds[0])
	}
	return fmt.Sprintf("%d seeds", len(seeds))
}

// meth is the method of library's pair.
func meth(m lib.Method, _ lib.Options) lib.Method { return m }

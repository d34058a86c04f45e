package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	lib "github.com/udocc/udocc"
	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/dynamics"
	"github.com/udocc/udocc/internal/outdir"
	"github.com/udocc/udocc/models"
	"github.com/udocc/udocc/torch"
	"github.com/udocc/udocc/training"
)

// fitOptions are the flags of udocc fit, one to one.
type fitOptions struct {
	preset        string
	contamination float64
	members       int
	method        string
	ratio         float64
	arch          string
	threshold     string
	ties          string
	scores        string
	training.Config
	seeds   string
	threads int
	out     string
	label   string
	xVar    string
	header  string
	force   bool
	json    bool
	quiet   bool
	table   tableFlags
	in      *input // the table fit reads, for --append-to; nil for demo
	// nproc, distTimeout and dist are the data-parallel run's (docs/distributed.md):
	// dist is this process's rank, nil in a single process.
	nproc       int
	distTimeout time.Duration
	dist        *lib.Dist
}

// addFitFlags declares the training flags shared by fit and demo.
func addFitFlags(fs *pflag.FlagSet, o *fitOptions) {
	d := training.EnsembleConfig()
	fs.StringVar(&o.preset, "preset", "default", "default (an ensemble of short-tuned Deep SVDD members scored with their autoencoders; docs/threshold.md) or paper (the paper's method and settings: --method proposed, --lr 1e-3, --epochs 50)")
	fs.StringVar(&o.method, "method", training.EnsembleMethod, "method: ensemble, proposed, oc, sb, otsu or tar (--preset paper: proposed)")
	fs.Float64Var(&o.contamination, "contamination", 0, "the anomaly ratio when you know it (ensemble): the top share of rows is flagged instead of a rule's choice")
	fs.IntVar(&o.members, "members", training.EnsembleSize, "ensemble: members trained in lockstep from one --seed s (seeds s, s+1, ...)")
	fs.Float64Var(&o.ratio, "ratio", 0, "ν for sb, the anomaly ratio for tar (an error for the other methods)")
	fs.StringVar(&o.arch, "arch", "", "hidden layer widths, e.g. 32,16,8 (default: the paper's preset for the data set's name, else 32,16,8)")
	fs.StringVar(&o.threshold, "threshold", "", "ensemble's threshold rule ("+strings.Join(thresholdNames(), ", ")+"; default "+training.DefaultThresholdRule+") or proposed's δ rule ("+strings.Join(dynamics.RuleNames(), ", ")+"; default "+dynamics.DefaultRule().Name()+")")
	fs.StringVar(&o.ties, "ties", "largest", "how the paper rule breaks ties of Eq. (5)'s minimum: smallest, largest or median")
	fs.StringVar(&o.scores, "rank-scores", string(d.Scores), "scores the selectors rank each epoch: train (the training pass) or eval (an eval-mode pass after the epoch)")
	fs.IntVar(&o.PretrainEpochs, "pretrain-epochs", d.PretrainEpochs, "autoencoder pretraining epochs")
	fs.IntVar(&o.Epochs, "epochs", d.Epochs, "fine-tuning epochs (--preset paper: 50)")
	fs.IntVar(&o.BatchSize, "batch-size", d.BatchSize, "minibatch rows")
	fs.Float64Var(&o.LR, "lr", d.LR, "Adam learning rate of fine-tuning, and of pretraining unless --pretrain-lr is set (--preset paper: 1e-3)")
	fs.Float64Var(&o.PretrainLR, "pretrain-lr", d.PretrainLR, "Adam learning rate of pretraining; 0 means --lr (--preset paper: 0)")
	fs.Float64Var(&o.WeightDecay, "weight-decay", d.WeightDecay, "Adam L2 weight decay")
	fs.StringVar(&o.seeds, "seed", "0", "random seed (ensemble: members seed, seed+1, ...); a list or range such as 0-9 names every member's seed (trained in lockstep)")
	fs.StringVar(&o.seeds, "seeds", "0", "the same as --seed: --seeds 0-9")
	fs.StringVar(&o.Device, "device", d.Device, "cpu, cuda or cuda:N")
	fs.IntVar(&o.threads, "threads", 1, "libtorch CPU threads (results are bit-identical for the same count)")
	fs.BoolVar(&o.force, "force", false, "replace --out even when it holds files udocc did not write (they are deleted)")
	fs.BoolVar(&o.json, "json", false, "print summary.json to stdout and nothing else there")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress on stderr")
}

// ruleFor builds proposed's δ rule from the flags.
func ruleFor(name, ties string) (dynamics.Rule, error) {
	t, err := dynamics.ParseTieRule(ties)
	if err != nil {
		return nil, usagef("--ties: %v", err)
	}
	r, err := dynamics.NewRule(name, t)
	if err != nil {
		return nil, usagef("--threshold: %v", err)
	}
	return r, nil
}

// parseSeeds reads "3", "0-9" or "1,4,7"; a seed named twice is an error, since its
// members would be the same network saved to the same file.
func parseSeeds(s string) ([]uint64, error) {
	var out []uint64
	seen := map[uint64]bool{}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.ParseUint(lo, 10, 64)
		if err != nil {
			return nil, usagef("--seed %q: %q is not a seed", s, part)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(hi, 10, 64); err != nil || b < a || b-a > 1000 {
				return nil, usagef("--seed %q: %q is not a range", s, part)
			}
		}
		for v := a; v <= b; v++ {
			if seen[v] {
				return nil, usagef("--seed %q: seed %d is named twice", s, v)
			}
			seen[v] = true
			out = append(out, v)
		}
	}
	return out, nil
}

// deviceUsable says whether this libtorch can run on dev, a form checkDevice accepted,
// so that a fit or a bench fails before it trains or writes anything.
func deviceUsable(dev string) error {
	if dev == "cpu" {
		return nil
	}
	if !torch.CUDACompiled() {
		return fmt.Errorf("--device %s: this libtorch was built without CUDA; use --device cpu", dev)
	}
	count := torch.CUDADeviceCount()
	idx := 0
	if n, ok := strings.CutPrefix(dev, "cuda:"); ok {
		idx, _ = strconv.Atoi(n)
	}
	// The shim's own words (torch/shim parse_device), so the CLI and the library say one thing.
	if count == 0 {
		return fmt.Errorf("--device %s: libtorch has CUDA but no CUDA device is visible (CUDA_VISIBLE_DEVICES=%q)",
			dev, os.Getenv("CUDA_VISIBLE_DEVICES"))
	}
	if idx >= count {
		return fmt.Errorf("--device %s: only %d CUDA device(s) visible", dev, count)
	}
	return nil
}

// checkDevice accepts the --device forms udocc documents: cpu, cuda or cuda:N. Whether
// that device exists is libtorch's to say, at run time.
func checkDevice(dev string) error {
	if dev == "cpu" || dev == "cuda" {
		return nil
	}
	if n, ok := strings.CutPrefix(dev, "cuda:"); ok {
		if _, err := strconv.ParseUint(n, 10, 31); err == nil {
			return nil
		}
	}
	return usagef("--device %q: want cpu, cuda or cuda:N", dev)
}

// check validates the flags that do not depend on the data.
func (o *fitOptions) check(fs *pflag.FlagSet) error {
	if err := o.applyPreset(fs); err != nil {
		return err
	}
	o.Config.Scores = training.ScoreSource(o.scores)
	o.Config.Hidden = []int{1} // checked with the data
	if err := o.Config.Validate(); err != nil {
		return usageError{err}
	}
	if o.method != training.EnsembleMethod && !contains(training.Methods, o.method) {
		return usagef("--method %q: one of %s, %s", o.method, training.EnsembleMethod, strings.Join(training.Methods, ", "))
	}
	if err := o.checkEnsemble(fs); err != nil {
		return err
	}
	if training.UsesRatio(o.method) && !(o.ratio > 0 && o.ratio < 1) {
		return usagef("--method %s needs --ratio in (0, 1)", o.method)
	}
	if !training.UsesRatio(o.method) && fs.Changed("ratio") {
		return usagef("--ratio is only for --method sb or tar")
	}
	if o.method == "proposed" && o.Epochs < 2 {
		// Algorithm 1 searches δ from epoch 2 on: with one epoch there is no threshold.
		return usagef("--epochs %d: --method proposed needs at least 2 fine-tuning epochs to pick a threshold", o.Epochs)
	}
	if _, err := data.ParseHeader(o.header); err != nil {
		return usagef("--header %q: want yes, no or auto", o.header)
	}
	if fs.Changed("threshold") && o.method != "proposed" && o.method != training.EnsembleMethod {
		return usagef("--threshold is only for --method ensemble or proposed")
	}
	if o.method == "proposed" {
		if _, err := ruleFor(o.threshold, o.ties); err != nil {
			return err
		}
	}
	if o.arch != "" {
		if _, err := models.ParseHidden(o.arch); err != nil {
			return usagef("--arch: %v", err)
		}
	}
	if err := checkDevice(o.Device); err != nil {
		return err
	}
	if o.threads < 1 || o.threads > 4*runtime.NumCPU() {
		return usagef("--threads %d: want 1..%d", o.threads, 4*runtime.NumCPU())
	}
	_, err := parseSeeds(o.seeds)
	return err
}

// checkData validates the flags against the table, before anything is trained.
func (o *fitOptions) checkData(ds *data.Dataset) error {
	if o.contamination > 0 && o.contamination*float64(ds.N) < 1 {
		return usagef("--contamination %g of %d rows is fewer than one row; want --contamination >= %.3g", o.contamination, ds.N, 1/float64(ds.N))
	}
	if training.UsesRatio(o.method) && o.ratio*float64(ds.N) < 1 {
		return usagef("--ratio %g of %d rows is fewer than one row; want --ratio >= %.3g", o.ratio, ds.N, 1/float64(ds.N))
	}
	return deviceUsable(o.Device)
}

// fitOutputs are the paths udocc fit writes into --out, as outdir.Begin matches them.
var fitOutputs = []string{"summary.json", "scores.csv", "history.csv", "delta_curve.png", "selected_ratio.png",
	"scores.png", "loss.png", "model", "model/" + models.MetaFile, "model/member-*.pt", "model/autoencoder-*.pt"}

func runFit(args []string, stdout, stderr io.Writer) error {
	var o fitOptions
	fs := newFlags("fit", "[flags] DATA", "Train a Deep SVDD model on DATA (.csv, .tsv, .txt, each optionally .gz, .parquet, .mat, .npy or .npz; - is stdin), score and label every row.", stdout)
	addFitFlags(fs, &o)
	fs.StringVar(&o.out, "out", "", "output folder (default udocc-out/<data name>)")
	fs.StringVar(&o.label, "label", "", "label column (CSV: name or 0-based index) or variable (MAT/NPZ: default y); used only to report metrics, never to train")
	fs.StringVar(&o.xVar, "x-var", "X", "the data variable of a MAT or NPZ file")
	fs.StringVar(&o.header, "header", "auto", "CSV: is the first row a header? yes, no, or auto (a header when not all numbers)")
	addTableFlags(fs, &o.table)
	fs.IntVar(&o.nproc, "nproc", 1, "data-parallel: train as this many ranks on this machine, each a process holding its block of the rows (torchrun --standalone; docs/distributed.md)")
	fs.DurationVar(&o.distTimeout, "dist-timeout", torch.DefaultDistTimeout, "data-parallel: how long a rank waits for the others, at the start and in each exchange, before it fails")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("want one DATA file, have %d arguments", fs.NArg())
	}
	if err := o.check(fs); err != nil {
		return err
	}
	if err := o.table.check(o.json); err != nil {
		return err
	}
	if o.nproc < 1 || o.nproc > 1024 {
		return usagef("--nproc %d: want 1..1024", o.nproc)
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
		return launchRanks(o.nproc, args, stdout, stderr)
	}
	d, err := lib.JoinFromEnv(o.Device, o.distTimeout)
	if err != nil {
		return err
	}
	if d != nil {
		defer d.Close()
		o.dist = d
		o.quiet = o.quiet || d.Rank() != 0 // one progress line: rank 0's
		if d.Rank() != 0 {
			// Rank 0 reads every row (its outputs need them all); the others their block.
			o.table.part = data.Part{Index: d.Rank(), Of: d.World()}
		}
	}
	in, err := loadTable(fs.Arg(0), o.label, o.xVar, o.header, o.table, o.table.selection())
	if err != nil {
		return err
	}
	defer in.remove()
	ds := in.ds
	o.in = in
	if o.out == "" {
		o.out = filepath.Join("udocc-out", ds.Name)
	}
	_, err = fitWriteReport(ds, o, stdout, stderr)
	return err
}

// fitWriteReport fits ds, writes every output into o.out as one transaction and prints
// the summary. The output folder is locked and checked before training, so that a
// folder that cannot be written fails at once.
func fitWriteReport(ds *data.Dataset, o fitOptions, stdout, stderr io.Writer) (summary, error) {
	if o.dist != nil && o.dist.Rank() != 0 {
		// Rank 0 checks the flags against the whole table and writes every output; the
		// others, which hold their block of the rows, only train with it.
		if err := deviceUsable(o.Device); err != nil {
			return summary{}, err
		}
		f, err := fitTable(ds, o, newProgress(stderr, true))
		if err != nil {
			return summary{}, err
		}
		f.run.Close()
		return f.summary, nil
	}
	if err := o.checkData(ds); err != nil {
		return summary{}, err
	}
	tx, err := outdir.Begin(o.out, fitOutputs, o.force)
	if err != nil {
		return summary{}, err
	}
	defer tx.Abort()
	for _, name := range ds.LikelyLabels() {
		fmt.Fprintf(stderr, "udocc fit: column %q takes two values and looks like a label, but is trained on as a feature; to keep it out, use --label %s\n", name, name)
	}
	f, err := fitTable(ds, o, newProgress(stderr, o.quiet))
	if err != nil {
		return summary{}, err
	}
	defer f.run.Close()
	if err := f.write(tx.Dir()); err != nil {
		return summary{}, err
	}
	if err := tx.Commit(); err != nil {
		return summary{}, err
	}
	f.dir = o.out
	if err := sendOutputs(o.table, o.in, f.dir, f.scores, f.labels, stdout); err != nil {
		return summary{}, err
	}
	return f.summary, report(f, o, o.table.reportTo(stdout, stderr))
}

// report prints the summary: JSON with --json, a few lines otherwise.
func report(f *fitted, o fitOptions, stdout io.Writer) error {
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(f.summary)
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
	if s.SelectedRatio != nil {
		fmt.Fprintf(stdout, "  selected anomaly ratio %.4f", *s.SelectedRatio)
		if s.DeltaBar != nil {
			fmt.Fprintf(stdout, " (δ̄ = %.1f of n = %d)", *s.DeltaBar, s.N)
		}
		fmt.Fprintln(stdout)
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
	}
	fmt.Fprintf(stdout, "  %.1f s (pretraining %.1f s, fine-tuning %.1f s); results in %s\n",
		s.Timings.TotalSeconds, s.Timings.PretrainSeconds, s.Timings.FinetuneSeconds, f.dir)
	return nil
}

func seedText(seeds []uint64) string {
	if len(seeds) == 1 {
		return fmt.Sprintf("seed %d", seeds[0])
	}
	return fmt.Sprintf("%d seeds", len(seeds))
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

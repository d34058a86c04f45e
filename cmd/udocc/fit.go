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

	"github.com/spf13/pflag"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/dynamics"
	"github.com/udocc/udocc/models"
	"github.com/udocc/udocc/training"
)

// fitOptions are the flags of udocc fit, one to one.
type fitOptions struct {
	method    string
	ratio     float64
	arch      string
	threshold string
	ties      string
	scores    string
	training.Config
	seeds   string
	threads int
	out     string
	label   string
	xVar    string
	json    bool
	quiet   bool
}

// addFitFlags declares the training flags shared by fit and demo.
func addFitFlags(fs *pflag.FlagSet, o *fitOptions) {
	d := training.DefaultConfig()
	fs.StringVar(&o.method, "method", "proposed", "method: proposed, oc, sb, otsu or tar")
	fs.Float64Var(&o.ratio, "ratio", 0, "ν for sb, the anomaly ratio for tar (an error for the other methods)")
	fs.StringVar(&o.arch, "arch", "", "hidden layer widths, e.g. 32,16,8 (default: the paper's preset for the data set's name, else 32,16,8)")
	fs.StringVar(&o.threshold, "threshold", dynamics.DefaultRule().Name(), "proposed's δ rule: "+strings.Join(dynamics.RuleNames(), ", "))
	fs.StringVar(&o.ties, "ties", "largest", "how the paper rule breaks ties of Eq. (5)'s minimum: smallest, largest or median")
	fs.StringVar(&o.scores, "rank-scores", string(d.Scores), "scores the selectors rank each epoch: train (the training pass) or eval (an eval-mode pass after the epoch)")
	fs.IntVar(&o.PretrainEpochs, "pretrain-epochs", d.PretrainEpochs, "autoencoder pretraining epochs")
	fs.IntVar(&o.Epochs, "epochs", d.Epochs, "fine-tuning epochs")
	fs.IntVar(&o.BatchSize, "batch-size", d.BatchSize, "minibatch rows")
	fs.Float64Var(&o.LR, "lr", d.LR, "Adam learning rate of fine-tuning, and of pretraining unless --pretrain-lr is set")
	fs.Float64Var(&o.PretrainLR, "pretrain-lr", d.PretrainLR, "Adam learning rate of pretraining; 0 means --lr")
	fs.Float64Var(&o.WeightDecay, "weight-decay", d.WeightDecay, "Adam L2 weight decay")
	fs.StringVar(&o.seeds, "seed", "0", "random seed; a list or range such as 0-9 trains a seed ensemble in lockstep")
	fs.StringVar(&o.seeds, "seeds", "0", "the same as --seed, for ensembles: --seeds 0-9")
	fs.StringVar(&o.Device, "device", d.Device, "cpu, cuda or cuda:N")
	fs.IntVar(&o.threads, "threads", 1, "libtorch CPU threads (results are bit-identical for the same count)")
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

// parseSeeds reads "3", "0-9" or "1,4,7".
func parseSeeds(s string) ([]uint64, error) {
	var out []uint64
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
			out = append(out, v)
		}
	}
	return out, nil
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
	o.Config.Scores = training.ScoreSource(o.scores)
	o.Config.Hidden = []int{1} // checked with the data
	if err := o.Config.Validate(); err != nil {
		return usageError{err}
	}
	if !contains(training.Methods, o.method) {
		return usagef("--method %q: one of %s", o.method, strings.Join(training.Methods, ", "))
	}
	if training.UsesRatio(o.method) && !(o.ratio > 0 && o.ratio < 1) {
		return usagef("--method %s needs --ratio in (0, 1)", o.method)
	}
	if !training.UsesRatio(o.method) && fs.Changed("ratio") {
		return usagef("--ratio is only for --method sb or tar")
	}
	if fs.Changed("threshold") && o.method != "proposed" {
		return usagef("--threshold is only for --method proposed")
	}
	if _, err := ruleFor(o.threshold, o.ties); err != nil {
		return err
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

func runFit(args []string, stdout, stderr io.Writer) error {
	var o fitOptions
	fs := newFlags("fit", "[flags] DATA", "Train a Deep SVDD model on DATA (.mat, .csv, .npy or .npz), score and label every row.", stdout)
	addFitFlags(fs, &o)
	fs.StringVar(&o.out, "out", "", "output folder (default udocc-out/<data name>)")
	fs.StringVar(&o.label, "label", "", "label column (CSV: name or 0-based index) or variable (MAT/NPZ: default y); used only to report metrics, never to train")
	fs.StringVar(&o.xVar, "x-var", "X", "the data variable of a MAT or NPZ file")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("want one DATA file, have %d arguments", fs.NArg())
	}
	if err := o.check(fs); err != nil {
		return err
	}
	path := fs.Arg(0)
	ds, err := data.Load(path, loadOptions(path, o.label, o.xVar))
	if err != nil {
		return err
	}
	if o.out == "" {
		o.out = filepath.Join("udocc-out", ds.Name)
	}
	_, err = fitWriteReport(ds, o, stdout, stderr)
	return err
}

// fitWriteReport fits ds, writes every output into o.out and prints the summary.
func fitWriteReport(ds *data.Dataset, o fitOptions, stdout, stderr io.Writer) (summary, error) {
	f, err := fitTable(ds, o, newProgress(stderr, o.quiet))
	if err != nil {
		return summary{}, err
	}
	defer f.run.Close()
	if err := f.write(o.out); err != nil {
		return summary{}, err
	}
	return f.summary, report(f, o, stdout)
}

// loadOptions maps --label and --x-var onto the reader of path's kind.
func loadOptions(path, label, xVar string) data.LoadOptions {
	opts := data.DefaultLoadOptions()
	opts.XVar = xVar
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		if i, err := strconv.Atoi(label); err == nil {
			opts.LabelIndex = i
		} else {
			opts.LabelColumn = label
		}
	default:
		opts.YVar = label
	}
	return opts
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

// mkdirOut makes the output folder.
func mkdirOut(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("output folder: %w", err)
	}
	return nil
}

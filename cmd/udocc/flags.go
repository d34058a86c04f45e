package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/udocc/udocc/internal/dynamics"
	"github.com/udocc/udocc/internal/method"
	"github.com/udocc/udocc/internal/torch"
	"github.com/udocc/udocc/internal/training"
	"io"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/udocc/udocc/data"
	lib "github.com/udocc/udocc/internal/detector"
	"github.com/udocc/udocc/internal/outdir"
	"github.com/udocc/udocc/internal/seedlist"
)

// The flags that several subcommands take are declared here, once, so that every
// subcommand spells them the same way and says the same about them.

// outputFlags say where a command's results go and how it talks: fit, score and demo.
type outputFlags struct {
	out   string
	force bool
	json  bool
	quiet bool
}

func addOutputFlags(fs *pflag.FlagSet, o *outputFlags, outHelp string) {
	fs.StringVar(&o.out, "out", o.out, outHelp)
	fs.BoolVar(&o.force, "force", false, "replace --out even when it holds files udocc did not write (they are deleted), and a --scores-to or --append-to file that udocc did not write")
	fs.BoolVar(&o.json, "json", false, "print summary.json to stdout and nothing else there")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress on stderr")
}

// beginOutputs locks and checks --out and opens the transaction its outputs are
// written in (internal/outdir).
func beginOutputs(o outputFlags, outputs []string) (*outdir.Tx, error) {
	tx, err := outdir.Begin(o.out, outputs, o.force)
	if errors.Is(err, outdir.ErrForeign) {
		return nil, fmt.Errorf("%w; choose another --out, or --force to replace it whole", err)
	}
	return tx, err
}

// commit swaps the outputs into --out, unless ctx was cancelled (Ctrl-C) while they
// were written: then --out is left as it was.
func commit(ctx context.Context, tx *outdir.Tx, out string) error {
	if err := ctx.Err(); err != nil {
		return interrupted(ctx, out, err)
	}
	return tx.Commit()
}

// interrupted says, for an error of a cancelled ctx, that the command stopped on a
// signal and left out as it was; other errors pass unchanged.
func interrupted(ctx context.Context, out string, err error) error {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return fmt.Errorf("interrupted: stopped before writing anything; %s is as it was", out)
	}
	return err
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// inputFlags say how to read DATA: fit and score.
type inputFlags struct {
	label  string
	xVar   string
	header string
}

func addInputFlags(fs *pflag.FlagSet, in *inputFlags) {
	fs.StringVar(&in.label, "label", "", "label column (CSV: name or 0-based index) or variable (MAT/NPZ: default y); used only to report metrics, never to train")
	fs.StringVar(&in.xVar, "x-var", "X", "the data variable of a MAT or NPZ file")
	fs.StringVar(&in.header, "header", "auto", "CSV: is the first row a header? yes, no, or auto (a header when not all numbers)")
}

func (in inputFlags) check() error {
	if _, err := parseHeader(in.header); err != nil {
		return usagef("--header %q: want yes, no or auto", in.header)
	}
	if i, err := strconv.Atoi(in.label); err == nil && i < 0 {
		// A negative index would read as "no label", and the label column be trained on.
		return usagef("--label %d: want a column name or a 0-based column index (0 is the first)", i)
	}
	return nil
}

// addDeviceFlags declares --device and --threads, whose default is def: fit, score,
// demo and explain take every core the process may use (usableCores), bench one thread
// per data set and --jobs data sets at once.
func addDeviceFlags(fs *pflag.FlagSet, device *string, threads *int, def int) {
	fs.StringVar(device, "device", "cpu", "cpu, cuda or cuda:N")
	fs.IntVar(threads, "threads", def, "CPU threads to parse a text table, train and score on (results are bit-identical for any count)")
}

// usableCores is the number of cores this process may use: its CPU affinity, capped by
// a cgroup CPU quota (Go's GOMAXPROCS follows both).
func usableCores() int { return runtime.GOMAXPROCS(0) }

// checkThreads accepts --threads from 1 to 4 per CPU.
func checkThreads(n int) error {
	if n < 1 || n > 4*runtime.NumCPU() {
		return usagef("--threads %d: want 1..%d", n, 4*runtime.NumCPU())
	}
	return nil
}

// addSeedFlags declares --seed and its synonym --seeds: fit, demo and bench.
func addSeedFlags(fs *pflag.FlagSet, seeds *string, def, help string) {
	fs.StringVar(seeds, "seed", def, help)
	fs.StringVar(seeds, "seeds", def, "the same as --seed")
}

// checkSeedFlags refuses --seed and --seeds given together: they set the same list,
// and the last would silently win.
func checkSeedFlags(fs *pflag.FlagSet) error {
	if fs.Changed("seed") && fs.Changed("seeds") {
		return usagef("--seed and --seeds are one flag under two names; give one")
	}
	return nil
}

// lowerRate says which learning rate to lower for err, a lib.ErrDiverged: the
// pretraining one for the autoencoders' phase, the fine-tuning one otherwise.
func lowerRate(err error, o lib.Options) string {
	if errors.Is(err, training.ErrPretrainDiverged) {
		if o.PretrainLR == 0 {
			return fmt.Sprintf("try a lower --pretrain-lr (pretraining now takes --lr, %g)", o.LR)
		}
		return fmt.Sprintf("try a lower --pretrain-lr (now %g)", o.PretrainLR)
	}
	return fmt.Sprintf("try a lower --lr (now %g)", o.LR)
}

// parseSeeds reads --seed (or, as flag names it, --seeds) with seedlist.Parse.
func parseSeeds(flag, s string) ([]uint64, error) {
	seeds, err := seedlist.Parse(s)
	if err != nil {
		return nil, usagef("--%s %q: %v", flag, s, err)
	}
	return seeds, nil
}

// optionFlags are the flags of the library's settings' fields, for its Validate errors.
var optionFlags = map[string]string{
	"Method": "method", "Hidden": "arch", "Epochs": "epochs", "PretrainEpochs": "pretrain-epochs", "ScreenEpochs": "screen-epochs", "Trim": "trim", "TrainRows": "train-rows", "Components": "components", "Gaussian": "gaussian",
	"LR": "lr", "PretrainLR": "pretrain-lr", "BatchSize": "batch-size", "WeightDecay": "weight-decay",
	"Members": "members", "Seeds": "seed", "Device": "device", "Threads": "threads",
	"Count": "threshold", "Delta": "threshold", "Ties": "ties", "Contamination": "contamination", "Ratio": "ratio", "Nu": "ratio", "RankScores": "rank-scores",
}

// optionsError is a usage error for an error of lib.Validate, naming the flag of an
// *lib.OptionError's field instead of the field.
func optionsError(err error) error {
	var oe *lib.OptionError
	if errors.As(err, &oe) && optionFlags[oe.Field] != "" {
		return usagef("--%s %s", optionFlags[oe.Field], oe.Reason)
	}
	if oe != nil && oe.Type == "Method" {
		return usagef("--method: %s", oe.Reason)
	}
	return usageError{errors.New(strings.TrimPrefix(err.Error(), "udocc: "))}
}

// orList is "a, b or c".
func orList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

// methodOf is the method of --method.
func methodOf(name string) (lib.Method, error) {
	if m, err := lib.MethodNamed(name); err == nil && name != "" {
		return m, nil
	}
	return nil, usagef("--method: unknown method %q: want one of %s", name, strings.Join(methodNames(), ", "))
}

func methodNames() []string {
	var out []string
	for _, m := range method.AllMethods {
		out = append(out, m.Name)
	}
	return out
}

func thresholdNames() []string { return lib.CountRules() }

func deltaNames() []string { return dynamics.RuleNames() }

// parseHidden reads --arch, layer widths such as "32,16,8".
func parseHidden(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 1 {
			return nil, fmt.Errorf("architecture %q: %q is not a positive width", s, f)
		}
		out = append(out, v)
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

// deviceUsable says whether this libtorch can run on dev, a form checkDevice accepted (the
// shim decides, with the message a group on dev would fail with),
// so that a fit or a bench fails before it trains or writes anything.
func deviceUsable(dev string) error {
	if err := torch.CheckDevice(dev); err != nil {
		return fmt.Errorf("--device %s: %w", dev, err)
	}
	return nil
}

// parseHeader reads --header: "yes", "no" or "auto" (or "").
func parseHeader(s string) (data.Header, error) {
	switch s {
	case "yes", "no":
		return data.Header(s), nil
	case "auto", "":
		return data.HeaderAuto, nil
	}
	return "", fmt.Errorf("--header %q: want yes, no or auto", s)
}

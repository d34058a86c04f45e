package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/udocc/udocc/bench/internal/bench"
	"github.com/udocc/udocc/internal/method"
)

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o := bench.DefaultOptions()
	fs := newFlags("udocc-bench", "[flags]",
		"Run the paper's benchmark grid (data sets x methods x seeds) with the paper's settings, append one\n"+
			"JSON line per finished run to OUT/"+bench.ResultsFile+" (a rerun skips the runs already there) and write\n"+
			"OUT/"+bench.ReportFile+" with its figures, ours beside the paper's Tables II-IV and Figs. 3-4.\n"+
			"'udocc-bench datasets list|fetch' lists or downloads the ten ODDS files.", stdout)
	fs.StringVar(&o.DataDir, "data", o.DataDir, "folder of the data files (the ODDS .mat files; other names are read from NAME.mat or NAME.npz)")
	datasets := fs.String("datasets", strings.Join(o.Datasets, ","), "data sets, comma-separated")
	methods := fs.String("methods", strings.Join(o.Methods, ","),
		"methods, comma-separated: sb, oc, otsu, tar, proposed (the default δ rule), or proposed:RULE[/TIES] with RULE one of "+
			strings.Join(deltaNames(), ", ")+" and TIES smallest, largest (default) or median")
	var seeds string
	addSeedFlags(fs, &seeds, "0-9", "seeds of every data set and method: a range such as 0-9, a list such as 1,4,7, or both")
	fs.IntVar(&o.Jobs, "jobs", o.Jobs, "data sets trained concurrently (each group on one libtorch thread)")
	group := fs.String("group", string(o.Group), "lockstep groups: dataset (all pending runs of a data set in one group), seed (one per data set and seed) or run (one per run)")
	addDeviceFlags(fs, &o.Train.Device, &o.Threads)
	fs.StringVar(&o.Out, "out", o.Out, "output folder: "+bench.ResultsFile+", "+bench.SessionsFile+", "+bench.ReportFile+", "+bench.FiguresDir+"/")
	fs.IntVar(&o.Train.PretrainEpochs, "pretrain-epochs", o.Train.PretrainEpochs, "autoencoder pretraining epochs (the paper: 100)")
	fs.IntVar(&o.Train.Epochs, "epochs", o.Train.Epochs, "fine-tuning epochs (the paper: 50)")
	fs.Float64Var(&o.Train.LR, "lr", o.Train.LR, "Adam learning rate of fine-tuning, and of pretraining unless --pretrain-lr is set (the paper: 1e-3)")
	fs.Float64Var(&o.Train.PretrainLR, "pretrain-lr", o.Train.PretrainLR, "Adam learning rate of pretraining; 0 means --lr")
	fs.Float64Var(&o.Train.WeightDecay, "weight-decay", o.Train.WeightDecay, "Adam's L2 weight decay of pretraining and fine-tuning (the paper: 1e-6)")
	fs.IntVar(&o.Train.BatchSize, "batch-size", o.Train.BatchSize, "minibatch rows of pretraining and fine-tuning (the paper: 128)")
	reportOnly := fs.Bool("report-only", false, "train nothing: regenerate the report from OUT/"+bench.ResultsFile+" alone")
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	study := fs.Bool("study", false, "instead of the grid: the score and threshold study of udocc fit's defaults on the paper sets and the\n"+
		"semi-synthetic tables made from their normal rows (OUT/"+bench.StudyFile+", OUT/"+bench.StudyReport+"; default --out bench/study)")
	maxNormals := fs.Int("max-normals", 600, "--study: normal rows kept per synthetic table (0: all)")
	noSynthetic := fs.Bool("no-synthetic", false, "--study: the paper sets only")
	genSeed := fs.Uint64("generator-seed", 0, "--study: seed of the synthetic tables (0: the study's own, on which the defaults were chosen;\n"+
		"another draws new tables from the same normal rows, to check a choice on tables it never saw)")
	realGroup := fs.Bool("real", false, "--study: the real group instead: the default fit (the library's own) on the paper sets and the\n"+
		"tables of --extra, one fit at a time (OUT/"+bench.RealFile+", raw scores in OUT/"+bench.RealRaw+"/, OUT/"+bench.RealReport+"; default --out bench/study-real)")
	extra := fs.String("extra", "", "--study --real: folder of the other real tables, NAME.npz or NAME.mat (default: adbench beside --data's folder)")
	corpus := fs.String("corpus", "", "--study --real: a data folder with GROUPS.csv (odds/, adbench/, real/): every table it lists, by source group,\n"+
		"instead of the paper sets and --extra")
	learnCount := fs.String("learn-count", "", "--study --real: fit nothing; learn the default count from the fits in --out and write its model to\n"+
		"this path (internal/count/model.json ships in the binary), with the leave-one-group-out report OUT/"+bench.CountReport)
	components := fs.Int("components", -1, "--study --real: the fits' principal components of a table of more than 300 columns\n"+
		"(udocc fit --components); -1: every column, the material the count is learned on; 0: the default's")
	judgeCount := fs.String("judge-count", "", "--study --real --learn-count: also judge the count, held out by group, on the fits in this folder\n"+
		"(the same tables and seeds fitted with another --components: the default's own fits)")
	copies := fs.Int("copies", 0, "--study --real --corpus: resampled copies of every table, its anomalies subsampled to shares drawn\n"+
		"log-uniformly from 0.2 % to 40 % (fitted at the first seed)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usagef("unexpected arguments %q", fs.Args())
	}
	if err := checkDevice(o.Train.Device); err != nil {
		return err
	}
	if err := checkThreads(o.Threads); err != nil {
		return err
	}
	if err := checkSeedFlags(fs); err != nil {
		return err
	}
	if err := checkRates(o.Train.LR, o.Train.PretrainLR, o.Train.WeightDecay); err != nil {
		return err // before bench.Run, which writes results.jsonl
	}
	if err := deviceUsable(o.Train.Device); err != nil {
		return err // before bench.Run, which would write an empty report
	}
	if *study && *realGroup {
		if fs.Changed("judge-count") && *learnCount == "" {
			return usagef("--judge-count applies only with --learn-count")
		}
		if *learnCount != "" {
			if fs.Changed("components") {
				return usagef("--components applies to the study's fits, not to --learn-count (which fits nothing)")
			}
			out := o.Out
			if !fs.Changed("out") {
				out = "bench/study-real"
			}
			if err := bench.LearnCount(out, *learnCount, *judgeCount, stderr); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "udocc-bench --study --real --learn-count: model in %s, report in %s\n", *learnCount, filepath.Join(out, bench.CountReport))
			return nil
		}
		if *copies < 0 {
			return usagef("--copies %d < 0", *copies)
		}
		if fs.Changed("copies") && *corpus == "" {
			return usagef("--copies applies only with --corpus")
		}
		return runStudyReal(ctx, fs, o, seeds, *extra, *corpus, *copies, *components, *reportOnly, *quiet, stdout, stderr)
	}
	for _, name := range []string{"real", "extra", "corpus", "copies", "learn-count", "components", "judge-count"} {
		if fs.Changed(name) && !*study {
			return usagef("--%s applies only with --study", name)
		}
	}
	if fs.Changed("extra") && !*realGroup {
		return usagef("--extra applies only with --study --real")
	}
	if *study {
		so := bench.StudyOptions{MaxNormals: *maxNormals, Synthetic: !*noSynthetic, GeneratorSeed: *genSeed, ReportOnly: *reportOnly}
		return runStudy(ctx, fs, o, so, seeds, *datasets, *quiet, stdout, stderr)
	}
	for _, name := range []string{"max-normals", "no-synthetic", "generator-seed"} {
		if fs.Changed(name) {
			return usagef("--%s applies only with --study", name)
		}
	}
	o.Datasets, o.Methods, o.Group = bench.ParseList(*datasets), bench.ParseList(*methods), bench.GroupMode(*group)
	return runGrid(ctx, o, seeds, *reportOnly, *quiet, args, stdout, stderr)
}

// runGrid runs `udocc-bench`: the grid of o, or with reportOnly its report alone.
func runGrid(ctx context.Context, o bench.Options, seeds string, reportOnly, quiet bool, args []string, stdout, stderr io.Writer) error {
	if reportOnly {
		path, err := bench.WriteReport(o.Out)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "udocc-bench: report in %s\n", path)
		return nil
	}
	var err error
	if o.Seeds, err = parseSeeds("seeds", seeds); err != nil {
		return err
	}
	prog := newProgress(stderr, quiet)
	o.Version, o.Args, o.Progress = Version, append([]string{"udocc-bench"}, args...), prog.show
	if err := o.Validate(); err != nil {
		return usageError{err}
	}
	sum, err := bench.Run(ctx, o)
	prog.end()
	if sum != nil {
		fmt.Fprintf(stdout, "udocc-bench: %d runs in the grid: %d already done, %d trained now, %d failed\n",
			sum.Planned, sum.Skipped, sum.Trained, sum.Failed)
		if sum.Report != "" {
			fmt.Fprintf(stdout, "udocc-bench: report in %s\n", sum.Report)
		}
	}
	return err
}

// runStudy runs `udocc-bench --study`.
func runStudy(ctx context.Context, fs *pflag.FlagSet, o bench.Options, so bench.StudyOptions, seeds, datasets string, quiet bool, stdout, stderr io.Writer) error {
	so.Data, so.Datasets, so.Jobs, so.Out, so.Device = o.DataDir, bench.ParseList(datasets), o.Jobs, o.Out, o.Train.Device
	if !fs.Changed("out") {
		so.Out = "bench/study"
	}
	var err error
	if so.Seeds, err = parseSeeds("seeds", seeds); err != nil {
		return err
	}
	if so.MaxNormals < 0 {
		return usagef("--max-normals %d: want 0 (all) or more", so.MaxNormals)
	}
	if !quiet {
		so.Progress = func(done, total int, name string) {
			fmt.Fprintf(stderr, "udocc-bench --study: %d/%d %s\n", done, total, name)
		}
	}
	if err := bench.Study(ctx, so); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "udocc-bench --study: report in %s\n", filepath.Join(so.Out, bench.StudyReport))
	return nil
}

// runStudyReal runs `udocc-bench --study --real`.
func runStudyReal(ctx context.Context, fs *pflag.FlagSet, o bench.Options, seeds, extra, corpus string, copies, components int, reportOnly, quiet bool, stdout, stderr io.Writer) error {
	if components > method.EnsembleProjectAbove {
		return usagef("--components %d: want -1, 0 or 1 to %d", components, method.EnsembleProjectAbove)
	}
	ro := bench.RealOptions{Paper: o.DataDir, Extra: extra, Out: o.Out, Device: o.Train.Device, ReportOnly: reportOnly,
		Corpus: corpus, Copies: copies, Components: components}
	if !fs.Changed("out") {
		ro.Out = "bench/study-real"
	}
	if !fs.Changed("extra") {
		ro.Extra = filepath.Join(filepath.Dir(filepath.Clean(o.DataDir)), "adbench")
	}
	if !fs.Changed("seeds") && !fs.Changed("seed") {
		seeds = "0-2"
	}
	var err error
	if ro.Seeds, err = parseSeeds("seeds", seeds); err != nil {
		return err
	}
	if !quiet {
		ro.Progress = func(done, total int, name string) {
			fmt.Fprintf(stderr, "udocc-bench --study --real: %d/%d %s\n", done, total, name)
		}
	}
	if err := bench.StudyReal(ctx, ro); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "udocc-bench --study --real: report in %s\n", filepath.Join(ro.Out, bench.RealReport))
	return nil
}

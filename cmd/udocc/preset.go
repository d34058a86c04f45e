package main

import (
	"slices"
	"strings"

	"github.com/spf13/pflag"

	lib "github.com/udocc/udocc/internal/detector"
)

// applyPreset fills the flags the user did not set from --preset: default (the flags'
// own defaults, the ensemble's) or paper (the paper's method, Proposed, and its
// settings). It also resolves the default --threshold of the chosen method.
func (o *fitOptions) applyPreset(fs *pflag.FlagSet) error {
	switch o.preset {
	case "default":
	case "paper":
		m, p := lib.Defaults(lib.Proposed{})
		if !fs.Changed("method") {
			o.method = m.Name()
		}
		if !fs.Changed("lr") {
			o.LR = p.LR
		}
		if !fs.Changed("pretrain-lr") {
			o.PretrainLR = p.PretrainLR
		}
		if !fs.Changed("epochs") {
			o.Epochs = p.Epochs
		}
		if !fs.Changed("pretrain-epochs") {
			o.PretrainEpochs = p.PretrainEpochs
		}
	default:
		return usagef("--preset %q: want default or paper", o.preset)
	}
	if !fs.Changed("threshold") {
		// Each method's own default: the ensemble's and proposed's presets say it.
		o.threshold = string(lib.LearnedCount)
		if o.method != ensembleMethod {
			o.threshold = string(lib.Accumulated)
		}
	}
	return nil
}

// checkEnsemble checks the flags that belong to --method ensemble.
func (o *fitOptions) checkEnsemble(fs *pflag.FlagSet) error {
	if o.Method != ensembleMethod {
		for _, name := range []string{"contamination", "members", "screen-epochs", "trim", "train-rows", "components", "gaussian"} {
			if fs.Changed(name) {
				return usagef("--%s is only for --method ensemble", name)
			}
		}
		o.Members, o.ScreenEpochs, o.TrainRows, o.Components, o.Gaussian = 1, 0, 0, 0, 0
		return nil
	}
	if fs.Changed("contamination") && fs.Changed("threshold") {
		return usagef("--contamination and --threshold both set the threshold: give one")
	}
	if seeds, err := parseSeeds("seed", o.seeds); err == nil && len(seeds) > 1 && fs.Changed("members") {
		return usagef("--members %d with --seed %s: give one seed (members s, s+1, ...) or the list of members' seeds, not both", o.Members, o.seeds)
	}
	o.Count = nil
	for _, name := range strings.Split(o.threshold, "+") {
		if !slices.Contains(lib.CountRules(), name) {
			return usagef("--threshold %q: one of %v, or several joined by +", o.threshold, thresholdNames())
		}
		o.Count = append(o.Count, lib.CountRule(name))
	}
	return nil
}

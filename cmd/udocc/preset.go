package main

import (
	"github.com/spf13/pflag"

	"github.com/udocc/udocc/dynamics"
	"github.com/udocc/udocc/threshold"
	"github.com/udocc/udocc/training"
)

// applyPreset fills the flags the user did not set from --preset: default (the flags'
// own defaults, training.EnsembleConfig and --method ensemble) or paper (the paper's
// method and settings, training.DefaultConfig and --method proposed). It also resolves
// the default --threshold of the chosen method.
func (o *fitOptions) applyPreset(fs *pflag.FlagSet) error {
	switch o.preset {
	case "default":
	case "paper":
		p := training.DefaultConfig()
		if !fs.Changed("method") {
			o.method = "proposed"
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
		switch o.method {
		case training.EnsembleMethod:
			o.threshold = training.DefaultThresholdRule
		default:
			o.threshold = dynamics.DefaultRule().Name()
		}
	}
	return nil
}

// checkEnsemble checks the flags that belong to --method ensemble.
func (o *fitOptions) checkEnsemble(fs *pflag.FlagSet) error {
	if o.method != training.EnsembleMethod {
		for _, name := range []string{"contamination", "members"} {
			if fs.Changed(name) {
				return usagef("--%s is only for --method ensemble", name)
			}
		}
		return nil
	}
	if fs.Changed("contamination") && !(o.contamination > 0 && o.contamination < 0.5) {
		return usagef("--contamination %g: want a share of rows in (0, 0.5)", o.contamination)
	}
	if fs.Changed("contamination") && fs.Changed("threshold") {
		return usagef("--contamination and --threshold both set the threshold: give one")
	}
	if o.members < 1 || o.members > 100 {
		return usagef("--members %d: want 1..100", o.members)
	}
	if seeds, err := parseSeeds(o.seeds); err == nil && len(seeds) > 1 && fs.Changed("members") {
		return usagef("--members %d with --seed %s: give one seed (members s, s+1, ...) or the list of members' seeds, not both", o.members, o.seeds)
	}
	if _, err := threshold.ByName(o.threshold); err != nil {
		return usagef("--threshold %q: one of %v", o.threshold, thresholdNames())
	}
	return nil
}

func thresholdNames() []string {
	var out []string
	for _, r := range threshold.All() {
		out = append(out, r.Name())
	}
	return out
}

package main

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	lib "github.com/udocc/udocc/internal/detector"
	"github.com/udocc/udocc/internal/dynamics"
	"github.com/udocc/udocc/internal/seedlist"
	"github.com/udocc/udocc/internal/torch"
)

// addSeedFlags declares --seed and its synonym --seeds.
func addSeedFlags(fs *pflag.FlagSet, seeds *string, def, help string) {
	fs.StringVar(seeds, "seed", def, help)
	fs.StringVar(seeds, "seeds", def, "the same as --seed")
}

// checkSeedFlags refuses --seed and --seeds given together: the last would silently win.
func checkSeedFlags(fs *pflag.FlagSet) error {
	if fs.Changed("seed") && fs.Changed("seeds") {
		return usagef("--seed and --seeds are one flag under two names; give one")
	}
	return nil
}

// parseSeeds reads --seeds with seedlist.Parse.
func parseSeeds(flag, s string) ([]uint64, error) {
	seeds, err := seedlist.Parse(s)
	if err != nil {
		return nil, usagef("--%s %q: %v", flag, s, err)
	}
	return seeds, nil
}

// addDeviceFlags declares --device and --threads: one thread per data set, --jobs data
// sets at once.
func addDeviceFlags(fs *pflag.FlagSet, device *string, threads *int) {
	fs.StringVar(device, "device", "cpu", "cpu, cuda or cuda:N")
	fs.IntVar(threads, "threads", 1, "CPU threads of each data set's group (results are bit-identical for any count)")
}

// checkThreads accepts --threads from 1 to 4 per CPU.
func checkThreads(n int) error {
	if n < 1 || n > 4*runtime.NumCPU() {
		return usagef("--threads %d: want 1..%d", n, 4*runtime.NumCPU())
	}
	return nil
}

// checkDevice accepts the --device forms cpu, cuda and cuda:N.
func checkDevice(dev string) error {
	ok := dev == "cpu" || dev == "cuda"
	if n, isCUDA := strings.CutPrefix(dev, "cuda:"); isCUDA {
		_, err := strconv.ParseUint(n, 10, 31)
		ok = err == nil
	}
	if !ok {
		return usagef("--device %q: want cpu, cuda or cuda:N", dev)
	}
	return nil
}

// deviceUsable asks the shim whether this libtorch can run on dev, so that a grid fails
// before it writes anything.
func deviceUsable(dev string) error {
	if err := torch.CheckDevice(dev); err != nil {
		return fmt.Errorf("--device %s: %w", dev, err)
	}
	return nil
}

// checkRates names the flag of a learning rate or weight decay that training cannot
// take. The library reads a zero rate as its default and a negative decay as none; the
// bench takes the values it is given, so it refuses both.
func checkRates(lr, pretrainLR, weightDecay float64) error {
	if lr == 0 {
		return usagef("--lr 0: want a number in (0, %.4g]", float64(math.MaxFloat32))
	}
	if weightDecay < 0 || math.IsNaN(weightDecay) {
		return usagef("--weight-decay %g: want a number in [0, %.4g]", weightDecay, float64(math.MaxFloat32))
	}
	o := lib.Options{LR: lr, PretrainLR: pretrainLR, WeightDecay: weightDecay}
	if weightDecay == 0 {
		o.WeightDecay = -1 // none
	}
	err := lib.Validate(lib.Proposed{}, o)
	var oe *lib.OptionError
	if errors.As(err, &oe) {
		flag := map[string]string{"LR": "lr", "PretrainLR": "pretrain-lr", "WeightDecay": "weight-decay"}[oe.Field]
		return usagef("--%s %s", flag, oe.Reason)
	}
	return err
}

func deltaNames() []string { return dynamics.RuleNames() }

package bench

import (
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/udocc/udocc/internal/method"
	"github.com/udocc/udocc/internal/odds"
	"github.com/udocc/udocc/internal/training"
)

// GroupMode says how the pending runs of a data set are split into lockstep groups.
type GroupMode string

const (
	// GroupDataset trains all pending runs of one data set in one training.FitGroup
	// call: the default.
	GroupDataset GroupMode = "dataset"
	// GroupSeed trains one group per (data set, seed).
	GroupSeed GroupMode = "seed"
	// GroupRun trains every run alone (each pretrains its own autoencoder, which gives
	// the same weights as a shared one, since pretraining depends on the seed only).
	GroupRun GroupMode = "run"
)

// GroupModes lists the group modes by their flag spelling, the default first.
var GroupModes = []GroupMode{GroupDataset, GroupSeed, GroupRun}

// DefaultMethods are the paper's five methods, in the order of its tables.
var DefaultMethods = []string{method.SB.Name, method.OC.Name, method.Otsu.Name, method.TAR.Name, method.Proposed.Name}

// Files in the output folder.
const (
	ResultsFile  = "results.jsonl"
	SessionsFile = "sessions.json"
	ReportFile   = "report.md"
	FiguresDir   = "figures"
)

// ErrOptions reports options that cannot be used; Run and Validate wrap it.
var ErrOptions = errors.New("bench: invalid options")

// Options is one benchmark grid. The zero value is not usable; start from
// DefaultOptions, which holds the paper's grid and settings.
type Options struct {
	DataDir  string          // folder of the data files (<name>.mat, or the ODDS registry's file)
	Datasets []string        // data set names, in report order
	Methods  []string        // method specs (see ParseSpec)
	Seeds    []uint64        // seeds of every (data set, method)
	Jobs     int             // data sets trained concurrently (default: every core the process may use)
	Threads  int             // libtorch threads per group
	Group    GroupMode       // how pending runs are grouped
	Out      string          // output folder: results.jsonl, sessions.json, report.md, figures/
	Train    training.Config // settings; Hidden is ignored (the paper's preset per data set)
	Version  string          // udocc's version, recorded in every line
	Args     []string        // the command line, recorded in sessions.json
	// Progress, when set, hears the grid's progress (see Progress); calls come one at a
	// time, from the goroutines of the jobs.
	Progress func(Progress)
}

// DefaultOptions returns the paper's grid: the ten ODDS sets of Table I, the five
// methods, seeds 0–9, the paper's training settings (training.DefaultConfig), one group
// per data set, one job, results in bench/results.
func DefaultOptions() Options {
	var names []string
	for _, s := range odds.Sets() {
		names = append(names, s.Name)
	}
	seeds := make([]uint64, 10)
	for i := range seeds {
		seeds[i] = uint64(i)
	}
	return Options{
		DataDir:  odds.FindDir(),
		Datasets: names,
		Methods:  append([]string(nil), DefaultMethods...),
		Seeds:    seeds,
		Jobs:     runtime.GOMAXPROCS(0), // every core the process may use
		Threads:  1,
		Group:    GroupDataset,
		Out:      "bench/results",
		Train:    training.DefaultConfig(),
	}
}

// Validate reports the first option that cannot be used; it does not look at the data.
func (o Options) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrOptions, fmt.Sprintf(format, args...))
	}
	switch {
	case o.DataDir == "":
		return bad("no data folder (pass --data or set UDOCC_DATA; 'udocc-bench datasets fetch' downloads the ODDS files)")
	case len(o.Datasets) == 0:
		return bad("no data sets")
	case len(o.Methods) == 0:
		return bad("no methods")
	case len(o.Seeds) == 0:
		return bad("no seeds")
	case o.Jobs < 1:
		return bad("jobs %d < 1", o.Jobs)
	case o.Out == "":
		return bad("no output folder")
	}
	if !validGroup(o.Group) {
		return bad("group %q: want one of %s", o.Group, joinModes())
	}
	if err := dupes("data set", o.Datasets); err != nil {
		return bad("%v", err)
	}
	var specs []string
	for _, m := range o.Methods {
		s, err := ParseSpec(m)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrOptions, err)
		}
		specs = append(specs, s.Name)
	}
	if err := dupes("method", specs); err != nil {
		return bad("%v", err)
	}
	seen := map[uint64]bool{}
	for _, s := range o.Seeds {
		if seen[s] {
			return bad("seed %d given twice", s)
		}
		seen[s] = true
	}
	cfg := o.Train
	cfg.Hidden = []int{1} // the presets are checked per data set
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrOptions, err)
	}
	return nil
}

func validGroup(g GroupMode) bool {
	for _, m := range GroupModes {
		if g == m {
			return true
		}
	}
	return false
}

func joinModes() string {
	var s []string
	for _, m := range GroupModes {
		s = append(s, string(m))
	}
	return strings.Join(s, ", ")
}

func dupes(what string, xs []string) error {
	seen := map[string]bool{}
	for _, x := range xs {
		if seen[x] {
			return fmt.Errorf("%s %q given twice", what, x)
		}
		seen[x] = true
	}
	return nil
}

// ParseList splits a comma-separated list, dropping blanks around the items.
func ParseList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

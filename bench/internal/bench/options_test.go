package bench

import (
	"errors"
	"testing"

	"github.com/udocc/udocc/internal/dynamics"
)

func TestParseSpec(t *testing.T) {
	def := "proposed:" + ruleLabel(dynamics.DefaultRule())
	for _, c := range []struct {
		name, in, want, rule string
		ok                   bool
	}{
		{"baseline keeps its name", "otsu", "otsu", "", true},
		{"plain proposed is the default rule", "proposed", "proposed", def[len("proposed:"):], true},
		{"paper rule ties to largest by default", "proposed:paper", "proposed:paper/largest", "paper/largest", true},
		{"paper rule with ties", "proposed:paper/smallest", "proposed:paper/smallest", "paper/smallest", true},
		{"paper rule with median ties", "proposed:paper/median", "proposed:paper/median", "paper/median", true},
		{"blanks are trimmed", " tar ", "tar", "", true},
		{"unknown method", "svdd", "", "", false},
		{"rule on a baseline", "oc:paper", "", "", false},
		{"unknown rule", "proposed:nope", "", "", false},
		{"unknown tie rule", "proposed:paper/first", "", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := ParseSpec(c.in)
			if (err == nil) != c.ok {
				t.Fatalf("ParseSpec(%q) error %v, want ok %v", c.in, err, c.ok)
			}
			if c.ok && (s.Name != c.want || s.RuleLabel() != c.rule) {
				t.Errorf("ParseSpec(%q) = %q rule %q, want %q rule %q", c.in, s.Name, s.RuleLabel(), c.want, c.rule)
			}
		})
	}
}

// TestEveryRuleParses takes the rule names from the registry, so a new rule is in the
// benchmark as soon as dynamics registers it.
func TestEveryRuleParses(t *testing.T) {
	for _, name := range dynamics.RuleNames() {
		s, err := ParseSpec("proposed:" + name)
		if err != nil {
			t.Errorf("proposed:%s: %v", name, err)
			continue
		}
		if _, err := s.member(0, 50, 0.1); err != nil {
			t.Errorf("proposed:%s: member: %v", name, err)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Options)
		ok   bool
	}{
		{"defaults with a data folder", func(o *Options) {}, true},
		{"no data folder", func(o *Options) { o.DataDir = "" }, false},
		{"no seeds", func(o *Options) { o.Seeds = nil }, false},
		{"seed twice", func(o *Options) { o.Seeds = []uint64{1, 1} }, false},
		{"data set twice", func(o *Options) { o.Datasets = []string{"wbc", "wbc"} }, false},
		{"same spec twice", func(o *Options) { o.Methods = []string{"proposed:paper", "proposed:paper/largest"} }, false},
		{"bad method", func(o *Options) { o.Methods = []string{"sb", "x"} }, false},
		{"zero jobs", func(o *Options) { o.Jobs = 0 }, false},
		{"unknown group mode", func(o *Options) { o.Group = "member" }, false},
		{"zero epochs", func(o *Options) { o.Train.Epochs = 0 }, false},
		{"no pretraining is allowed", func(o *Options) { o.Train.PretrainEpochs = 0 }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := DefaultOptions()
			o.DataDir = "somewhere"
			c.edit(&o)
			err := o.Validate()
			if (err == nil) != c.ok {
				t.Errorf("Validate() = %v, want ok %v", err, c.ok)
			}
			if err != nil && !errors.Is(err, ErrOptions) {
				t.Errorf("Validate() = %v, does not wrap ErrOptions", err)
			}
		})
	}
}

func TestSplit(t *testing.T) {
	var tasks []task
	for _, m := range []string{"oc", "proposed", "tar"} {
		s, _ := ParseSpec(m)
		for seed := range uint64(4) {
			tasks = append(tasks, task{spec: s, seed: seed})
		}
	}
	for _, c := range []struct {
		mode          GroupMode
		groups, first int
	}{
		{GroupDataset, 1, 12},
		{GroupSeed, 4, 3},
		{GroupRun, 12, 1},
	} {
		t.Run(string(c.mode), func(t *testing.T) {
			gs := split(tasks, c.mode)
			total := 0
			for _, g := range gs {
				total += len(g)
			}
			if len(gs) != c.groups || len(gs[0]) != c.first || total != len(tasks) {
				t.Errorf("%d groups, the first of %d, %d tasks; want %d, %d, %d", len(gs), len(gs[0]), total, c.groups, c.first, len(tasks))
			}
			if c.mode == GroupSeed && seedsOf(gs[1]) != 1 {
				t.Errorf("a seed group holds %d seeds", seedsOf(gs[1]))
			}
		})
	}
}

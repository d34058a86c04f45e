package bench

import (
	"fmt"
	"slices"
	"strings"

	"github.com/udocc/udocc/internal/dynamics"
	"github.com/udocc/udocc/internal/method"
	"github.com/udocc/udocc/internal/training"
)

// Spec is one method of the grid: a training method and, for proposed, its δ rule.
//
// Spellings: a method of method.Methods ("sb", "oc", "otsu", "tar", "proposed"); plain
// "proposed" uses dynamics.DefaultRule(), whatever it is when the run is trained.
// "proposed:RULE" names a rule of dynamics.RuleNames(); the paper rule takes a tie rule
// for Eq. (5)'s minimum, "proposed:paper/TIES" (smallest, largest, median; largest when
// left out).
type Spec struct {
	// Name is the canonical spelling, the "method" of a results line: "proposed:" and
	// the rule's label for a named rule ("proposed:paper" is "proposed:paper/largest").
	Name string
	// Method is the training method.
	Method string
	// Rule is the named rule ("" for plain "proposed" and the other methods).
	Rule string
	// Ties breaks ties of the paper rule.
	Ties dynamics.TieRule
}

// ParseSpec reads a method spec.
func ParseSpec(s string) (Spec, error) {
	base, rule, named := strings.Cut(strings.TrimSpace(s), ":")
	if !slices.Contains(method.Methods, base) {
		return Spec{}, fmt.Errorf("method %q: want one of %s, or proposed:RULE[/TIES]", s, strings.Join(method.Methods, ", "))
	}
	if !named {
		return Spec{Name: base, Method: base}, nil
	}
	if m, _ := method.MethodNamed(base); !m.Rule {
		return Spec{}, fmt.Errorf("method %q: only proposed takes a δ rule", s)
	}
	name, ties, hasTies := strings.Cut(rule, "/")
	if !slices.Contains(dynamics.RuleNames(), name) {
		return Spec{}, fmt.Errorf("method %q: δ rule %q is not one of %s", s, name, strings.Join(dynamics.RuleNames(), ", "))
	}
	t := dynamics.TieLargest
	if hasTies {
		var err error
		if t, err = dynamics.ParseTieRule(ties); err != nil {
			return Spec{}, fmt.Errorf("method %q: %w", s, err)
		}
	}
	r, err := dynamics.NewRule(name, t)
	if err != nil {
		return Spec{}, fmt.Errorf("method %q: %w", s, err)
	}
	if _, paper := r.(dynamics.Paper); hasTies && !paper {
		return Spec{}, fmt.Errorf("method %q: δ rule %q takes no tie rule", s, name)
	}
	return Spec{Name: "proposed:" + ruleLabel(r), Method: base, Rule: name, Ties: t}, nil
}

// newRule returns a fresh δ rule for one proposed member (rules may keep state), nil for
// the other methods.
func (s Spec) newRule() (dynamics.Rule, error) {
	switch {
	case s.Method != method.Proposed.Name:
		return nil, nil
	case s.Rule == "":
		return dynamics.DefaultRule(), nil
	}
	return dynamics.NewRule(s.Rule, s.Ties)
}

// RuleLabel is the resolved δ rule of a proposed spec as it is recorded ("paper/largest"),
// "" for the other methods. Plain "proposed" resolves to today's default rule, so the
// label, not the spec, says which rule a line was trained with.
func (s Spec) RuleLabel() string {
	r, err := s.newRule()
	if err != nil || r == nil {
		return ""
	}
	return ruleLabel(r)
}

// ruleLabel names a rule with its tie rule when it is the paper's.
func ruleLabel(r dynamics.Rule) string {
	if p, ok := r.(dynamics.Paper); ok {
		return r.Name() + "/" + p.Ties.String()
	}
	return r.Name()
}

// soft says whether the spec's method has SB's soft-boundary objective, whose radius
// the loss learns.
func (s Spec) soft() bool {
	m, err := method.MethodNamed(s.Method)
	return err == nil && m.Soft
}

// member builds the training member of this spec for a data set of n rows with the
// given true anomaly ratio (SB's ν and TAR's ratio, as in the paper).
func (s Spec) member(seed uint64, n int, trueRatio float64) (training.Member, error) {
	rule, err := s.newRule()
	if err != nil {
		return training.Member{}, err
	}
	m, err := method.MethodNamed(s.Method)
	if err != nil {
		return training.Member{}, err
	}
	opt := method.MethodOptions{Rule: rule}
	if m.Ratio {
		opt.Ratio = trueRatio
	}
	return m.NewMember(seed, n, opt)
}

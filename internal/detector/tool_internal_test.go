package detector

import (
	"testing"

	"github.com/udocc/udocc/internal/tool"
)

// TestToolNames checks that package tool spells the learned count as the root does, and
// that its count rules are the ones Options.Count and a cut accept: every one validates,
// and a name outside them does not.
func TestToolNames(t *testing.T) {
	if tool.LearnedCount != string(LearnedCount) {
		t.Errorf("tool.LearnedCount %q, udocc.LearnedCount %q", tool.LearnedCount, LearnedCount)
	}
	rules := tool.CountRules()
	if len(rules) < 2 || rules[0] != string(LearnedCount) {
		t.Fatalf("tool.CountRules() = %q, want learned first and the rules of the scores", rules)
	}
	for _, r := range rules {
		if err := validateCut(tool.Cut{Rule: r}); err != nil {
			t.Errorf("cut by rule %q: %v", r, err)
		}
		if r == string(LearnedCount) {
			continue
		}
		if err := (Options{Count: []CountRule{CountRule(r)}}).Validate(); err != nil {
			t.Errorf("Options.Count %q: %v", r, err)
		}
	}
	if err := validateCut(tool.Cut{Rule: "magic"}); err == nil {
		t.Error(`cut by rule "magic": no error`)
	}
}

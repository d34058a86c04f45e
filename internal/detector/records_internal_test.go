package detector

import (
	"testing"
)

// TestToolNames checks that package tool spells the learned count as the root does, and
// that its count rules are the ones Ensemble.Count and a cut accept: every one validates,
// and a name outside them does not.
func TestToolNames(t *testing.T) {
	if string(LearnedCount) != string(LearnedCount) {
		t.Errorf("string(LearnedCount) %q, udocc.LearnedCount %q", string(LearnedCount), LearnedCount)
	}
	rules := CountRules()
	if len(rules) < 2 || rules[0] != string(LearnedCount) {
		t.Fatalf("CountRules() = %q, want learned first and the rules of the scores", rules)
	}
	for _, r := range rules {
		if err := validateCut(Cut{Rule: r}); err != nil {
			t.Errorf("cut by rule %q: %v", r, err)
		}
		if r == string(LearnedCount) {
			continue
		}
		if err := Validate(Ensemble{Count: []CountRule{CountRule(r)}}, Options{}); err != nil {
			t.Errorf("Ensemble.Count %q: %v", r, err)
		}
	}
	if err := validateCut(Cut{Rule: "magic"}); err == nil {
		t.Error(`cut by rule "magic": no error`)
	}
}

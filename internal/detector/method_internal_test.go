package detector

import "testing"

// TestDefaultCount checks that the default count is the learned one, and that a fit's
// method configuration (the one translation of the settings) carries the count as the
// ensemble reads it: the learned count alone; kmeans alone with its interval; a
// contamination overriding the rules; several rules without an interval.
func TestDefaultCount(t *testing.T) {
	def, _ := Defaults(nil)
	if def.(Ensemble).Count != nil || defaultCount != LearnedCount || RuleOf(nil) != string(LearnedCount) {
		t.Fatalf("the default rule is %v (%q), want nil (%q)", def.(Ensemble).Count, RuleOf(nil), LearnedCount)
	}
	for _, c := range []struct {
		count         []CountRule
		contamination float64
		learned       bool
		rules         int
		interval      bool
		rule          string
	}{
		{nil, 0, true, 0, false, "learned"},
		{[]CountRule{kmeansRule}, 0, false, 1, true, "kmeans"},
		{[]CountRule{kmeansRule}, 0.1, false, 0, false, "contamination=0.1"},
		{[]CountRule{"kmeans", "mad"}, 0, false, 2, false, "kmeans+mad"},
	} {
		cfg := newSettings(Ensemble{Count: c.count, Contamination: c.contamination}, Options{}).method(4, false)
		if cfg.Learned != c.learned || len(cfg.Count) != c.rules || cfg.KMeansInterval != c.interval ||
			cfg.Contamination != c.contamination || cfg.Rule != c.rule {
			t.Errorf("count %v, contamination %g: learned %v, %d rules, interval %v, contamination %g, rule %q; want %v, %d, %v, %g, %q",
				c.count, c.contamination, cfg.Learned, len(cfg.Count), cfg.KMeansInterval, cfg.Contamination, cfg.Rule,
				c.learned, c.rules, c.interval, c.contamination, c.rule)
		}
	}
}

package bench

import (
	"slices"
	"testing"
)

// A count that lacks a group's fits (the dynamics counts, on the tables a fit trains on
// a sample of) is compared with another only on the groups both have: counting the
// missing group as an error of 0 made the report read the shipped count as worse.
func TestPairedDiffsSkipMissingGroups(t *testing.T) {
	shipped := map[string]countAgg{"a": {absLn: 1.0}, "b": {absLn: 0.5}, "c": {absLn: 2.0}}
	dynamics := map[string]countAgg{"a": {absLn: 1.5}, "c": {absLn: 2.5}}
	got := pairedDiffs(shipped, dynamics, []string{"a", "b", "c"})
	if want := []float64{-0.5, -0.5}; !slices.Equal(got, want) {
		t.Fatalf("pairedDiffs = %v, want %v (group b has no dynamics fit)", got, want)
	}
	if got := pairedDiffs(shipped, shipped, []string{"a", "b", "c"}); len(got) != 3 {
		t.Fatalf("pairedDiffs of a count with itself: %v, want 3 zeros", got)
	}
}

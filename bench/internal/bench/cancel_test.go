package bench

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestCancel cancels the tiny grid in the first fine-tuning epoch of its second group:
// Run stops at the end of that epoch and returns context.Canceled, with the first
// group's 4 lines written and none of the second's; Options.Progress heard the share of
// the work grow and the group's interruption; a rerun trains the 4 missing runs only.
func TestCancel(t *testing.T) {
	dataDir, out := tinyData(t), t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	testHookEpoch = func(written int) {
		if written > 0 {
			cancel()
		}
	}
	defer func() { testHookEpoch = nil }()
	var heard []Progress
	o := tinyOptions(dataDir, out)
	o.Progress = func(p Progress) { heard = append(heard, p) }
	sum, err := Run(ctx, o)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v, want context.Canceled", err)
	}
	if sum.Planned != 8 || sum.Trained != 4 || sum.Failed != 0 {
		t.Errorf("cancelled session: %+v, want 8 planned, 4 trained, 0 failed", *sum)
	}
	res, err := ReadResults(filepath.Join(out, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Lines) != 4 {
		t.Errorf("%d lines after the cancel, want the first group's 4", len(res.Lines))
	}
	for i := 1; i < len(heard); i++ {
		if heard[i].Done < heard[i-1].Done || heard[i].Runs != 8 {
			t.Fatalf("progress %d: %+v after %+v", i, heard[i], heard[i-1])
		}
	}
	if len(heard) == 0 || !strings.HasSuffix(heard[len(heard)-1].Event, "interrupted") {
		t.Errorf("the last progress %+v does not say the group was interrupted", heard)
	}

	testHookEpoch = nil
	again, err := Run(context.Background(), tinyOptions(dataDir, out))
	if err != nil {
		t.Fatal(err)
	}
	if again.Skipped != 4 || again.Trained != 4 {
		t.Errorf("rerun: %+v, want 4 skipped and 4 trained", *again)
	}
}

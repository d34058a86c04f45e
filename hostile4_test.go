package udocc_test

import (
	"context"
	"strings"
	"testing"

	"github.com/udocc/udocc"
)

// TestHiddenWidthsCheckedAgainstMemory checks that layer widths whose networks cannot
// fit in memory are refused before any is built, with the need named (hostile round 4,
// B4: --arch 1000000000,1 allocated until the OOM killer fired).
func TestHiddenWidthsCheckedAgainstMemory(t *testing.T) {
	rows := table(40, 3, 1)
	for _, hidden := range [][]int{{10_000_000_000, 1}, {200_000_000, 1}, {1 << 62, 1 << 62}} {
		o := quick()
		o.Hidden = hidden
		m, err := udocc.Fit(context.Background(), rows, o)
		if err == nil {
			m.Close()
			t.Fatalf("Hidden %v: fitted", hidden)
		}
		if !strings.Contains(err.Error(), "Hidden") || !strings.Contains(err.Error(), "more than the") {
			t.Fatalf("Hidden %v: error %v, want the networks' need against the memory available", hidden, err)
		}
	}
}

// TestEmptyHiddenRefused checks that Options.Hidden set to an empty list is refused by
// Validate, as nil is the default (hostile round 4, L25).
func TestEmptyHiddenRefused(t *testing.T) {
	o := udocc.DefaultOptions()
	o.Hidden = []int{}
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "Hidden") {
		t.Fatalf("Validate: %v", err)
	}
}

package memory

import (
	"errors"
	"testing"
)

// TestCheck refuses what no machine holds, and accepts a little.
func TestCheck(t *testing.T) {
	if _, ok := Available(); !ok {
		t.Skip("the memory available cannot be read here")
	}
	if err := Check("a table", 1<<62); !errors.Is(err, ErrNoMemory) {
		t.Errorf("2^62 bytes: got %v, want ErrNoMemory", err)
	}
	if err := Check("a table", 1<<20); err != nil {
		t.Errorf("1 MiB: %v", err)
	}
}

package models

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadMetaRefusesNonRegular: a model.json that is a link to /dev/zero (endless) or
// a FIFO is refused before it is read, and so is one larger than a model holds.
func TestReadMetaRefusesNonRegular(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	if err := os.Symlink("/dev/zero", filepath.Join(dir, MetaFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadMeta(dir); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("link to /dev/zero: %v", err)
	}
	big := t.TempDir()
	f, err := os.Create(filepath.Join(big, MetaFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxMetaBytes + 1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	if _, err := ReadMeta(big); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "more than a model description holds") {
		t.Errorf("oversized: %v", err)
	}
}

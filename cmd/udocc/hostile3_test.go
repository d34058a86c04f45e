package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// smallDisk mounts a tmpfs of size at a temporary folder for the test, or skips the test
// where it cannot (only root can mount).
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a %s tmpfs (needs root): %v", size, err)
	}
	t.Cleanup(func() { unix.Unmount(dir, 0) })
	return dir
}

// TestSpoolBounded: stdin spooled into a small TMPDIR stops while a tenth of the disk
// is still free, with an error naming TMPDIR (a stream used to fill the disk whole), and
// leaves nothing there either way; a stream that fits is read whole.
func TestSpoolBounded(t *testing.T) {
	dir := smallDisk(t, "16m")
	path, done, err := spool(bytes.NewReader(bytes.Repeat([]byte("1,2\n"), 1<<20)), dir, "csv")
	if err != nil {
		t.Fatalf("4 MiB into 16 MiB: %v", err)
	}
	if b, err := os.ReadFile(path); err != nil || len(b) != 4<<20 {
		t.Errorf("the spooled copy: %d bytes, %v; want 4 MiB", len(b), err)
	}
	done()
	_, _, err = spool(io.LimitReader(zeros{}, 64<<20), dir, "csv")
	if err == nil || !strings.Contains(err.Error(), "(TMPDIR) has") || !strings.Contains(err.Error(), "give DATA as a file") {
		t.Errorf("64 MiB into 16 MiB: %v, want an error naming TMPDIR's free space", err)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 || st.Bfree != st.Blocks {
		t.Errorf("TMPDIR holds %d entries and %d of %d blocks used after the spools", len(es), st.Blocks-st.Bfree, st.Blocks)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

package regfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpenRefusesNonRegular: a named pipe with no writer, a link to /dev/zero and a
// folder are refused at once (the pipe used to block the open, /dev/zero to be read
// forever); a link to a regular file is read.
func TestOpenRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, zero, dir} {
		if _, err := ReadFile(p, 1<<20); !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadFile(%s): %v, want ErrNotRegular", p, err)
		}
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(link, 3); err != nil || string(b) != "abc" {
		t.Errorf("ReadFile(link to a file): %q, %v", b, err)
	}
	if _, err := ReadFile(file, 2); err == nil {
		t.Errorf("ReadFile(3 bytes, max 2): no error")
	}
}

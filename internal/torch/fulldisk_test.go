package torch

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// smallDisk mounts a tmpfs of size bytes at a temporary folder for the test, or skips
// the test where it cannot (not root, no mount namespace to do it in).
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a %s tmpfs to fill (needs root): %v", size, err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// TestSaveFullDisk saves a member onto a disk too small for it: Save returns an error
// naming the disk's complaint (it used to end the process with an uncaught c10::Error,
// SIGABRT), and leaves no partial file behind.
func TestSaveFullDisk(t *testing.T) {
	if os.Getenv("UDOCC_FULLDISK_CHILD") == "" {
		// The old failure aborts the process: run the save in a child so that the
		// report says so instead of killing the test binary.
		cmd := exec.Command(os.Args[0], "-test.run", "^TestSaveFullDisk$", "-test.v")
		cmd.Env = append(os.Environ(), "UDOCC_FULLDISK_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the save on a full disk ended the process: %v\n%s", err, out)
		}
		if strings.Contains(string(out), "--- SKIP") {
			t.Skip(lastLine(string(out)))
		}
		return
	}
	dir := smallDisk(t, "64k")
	d := 64
	g, err := NewGroup([]int{d, 256, 128}, 1, true, "cpu", []uint64{1})
	must(t, err)
	defer g.Close()
	path := filepath.Join(dir, "member.pt")
	err = g.Save(0, path)
	if err == nil {
		t.Fatal("Save on a full disk returned no error")
	}
	if !strings.Contains(err.Error(), "no space") {
		t.Errorf("Save on a full disk: %v, want the disk's complaint (no space left)", err)
	}
	if _, serr := os.Stat(path); serr == nil {
		t.Errorf("Save on a full disk left %s behind", path)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], "SKIP") || strings.Contains(lines[i], "fulldisk_test") {
			return strings.TrimSpace(lines[i])
		}
	}
	return lines[len(lines)-1]
}

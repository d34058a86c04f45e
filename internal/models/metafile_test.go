package models

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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
	fifo := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(fifo, MetaFile), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadMeta(fifo); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("named pipe: %v", err)
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
	if _, err := ReadMeta(big); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "more than the") {
		t.Errorf("oversized: %v", err)
	}
}

// TestCheckFilesRefusesNonRegular: a member file that is a named pipe or a link to
// /dev/zero is refused at once (the pipe blocked the open and /dev/zero was hashed
// forever, so that `udocc score` hung), and one of another size than model.json records
// is refused before it is read.
func TestCheckFilesRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	m := &Meta{Method: "oc", Members: []Member{{Seed: 1, Network: "member-1.pt"}}}
	path := filepath.Join(dir, "member-1.pt")
	if err := os.WriteFile(path, []byte("network"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.RecordFiles(dir); err != nil {
		t.Fatal(err)
	}
	if m.Files[0].Bytes != int64(len("network")) {
		t.Fatalf("RecordFiles: bytes %d, want %d", m.Files[0].Bytes, len("network"))
	}
	if err := m.CheckFiles(dir); err != nil {
		t.Fatalf("the file as written: %v", err)
	}
	if err := os.WriteFile(path, []byte("network, and more"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.CheckFiles(dir); !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "17 bytes, but the model's model.json records 7") {
		t.Errorf("a file of another size: %v", err)
	}
	os.Remove(path)
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.CheckFiles(dir); err == nil || !strings.Contains(err.Error(), "named pipe, not a regular file") {
		t.Errorf("a named pipe: %v", err)
	}
	os.Remove(path)
	if err := os.Symlink("/dev/zero", path); err != nil {
		t.Fatal(err)
	}
	if err := m.CheckFiles(dir); err == nil || !strings.Contains(err.Error(), "character device, not a regular file") {
		t.Errorf("a link to /dev/zero: %v", err)
	}
}

// TestCheckFilesNamesField: a hand-edited member seed is named by the field of files
// that disagrees, with both values (it printed the whole entry as a Go struct).
func TestCheckFilesNamesField(t *testing.T) {
	dir := t.TempDir()
	m := &Meta{Method: "oc", Members: []Member{{Seed: 1, Network: "member-1.pt"}}}
	if err := os.WriteFile(filepath.Join(dir, "member-1.pt"), []byte("network"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.RecordFiles(dir); err != nil {
		t.Fatal(err)
	}
	m.Members[0].Seed = 2
	err := m.CheckFiles(dir)
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "model.json: files[0].seed is 1, but members[0] makes it 2") {
		t.Errorf("a seed edited: %v", err)
	}
}

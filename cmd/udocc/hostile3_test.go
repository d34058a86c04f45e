package main

import (
	"bytes"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

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

// TestRound3CLI is issue 47's command-line findings, on one small fitted model.
func TestRound3CLI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 60, 3, false, 47)
	// A folder named with glob characters: the guards must read it literally.
	mustUdocc(t, dir, fitArgs("--out", "m[1]*", "table.csv")...)
	at := func(p string) string { return filepath.Join(dir, p) }
	modelJSON, err := os.ReadFile(at("m[1]*/model/model.json"))
	if err != nil {
		t.Fatal(err)
	}

	t.Run("--scores-to a file of a --model with glob characters", func(t *testing.T) {
		// filepath.Glob read "m[1]*" as a pattern, matched nothing, and let --force
		// write scores over the model's model.json.
		r := inProcess("score", "--model", at("m[1]*/model"), "--scores-to", at("m[1]*/model/model.json"), "--force", "--out", at("s"), at("table.csv"))
		oneErrorLine(t, r, 2, "is the input "+at("m[1]*/model/model.json"))
		if b, _ := os.ReadFile(at("m[1]*/model/model.json")); !bytes.Equal(b, modelJSON) {
			t.Error("model.json changed")
		}
	})

	t.Run("--scores-to and --append-to one file", func(t *testing.T) {
		for _, args := range [][]string{
			{"--scores-to", at("same.csv"), "--append-to", at("same.csv")},
			{"--scores-to", at("same.csv"), "--append-to", at("./x/../same.csv")},
		} {
			r := inProcess(append(fitArgs(args...), "--out", at("o"), at("table.csv"))...)
			oneErrorLine(t, r, 2, "are the same file")
		}
	})

	t.Run("--nproc beyond the machine", func(t *testing.T) {
		r := inProcess(fitArgs("--nproc", "100", "--out", at("o"), at("table.csv"))...)
		oneErrorLine(t, r, 2, "--nproc 100: want 1 to")
	})

	t.Run("more ranks than rows", func(t *testing.T) {
		writeText(t, dir, "three.csv", "a,b\n1,2\n3,4\n5,7\n")
		r := udocc(t, dir, fitArgs("--nproc", "2", "--dist-timeout", "20s", "--out", "o3", "three.csv")...)
		if r.code == 0 || !strings.Contains(r.stderr, "every rank needs at least 2") {
			t.Errorf("exit %d, stderr %q; want a refusal naming the rows each rank needs", r.code, r.stderr)
		}
	})

	for _, kind := range []string{"named pipe", "link to /dev/zero"} {
		t.Run("a member file that is a "+kind, func(t *testing.T) {
			// score used to hang on it, deaf to SIGTERM.
			model := at("dev-" + strings.ReplaceAll(kind, " ", "-"))
			copyDir(t, at("m[1]*/model"), model)
			member := filepath.Join(model, "member-0.pt")
			os.Remove(member)
			if kind == "named pipe" {
				if err := syscall.Mkfifo(member, 0o644); err != nil {
					t.Fatal(err)
				}
			} else if err := os.Symlink("/dev/zero", member); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(udoccBin, "score", "--model", model, "--out", model+"-s", "--quiet", at("table.csv"))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(stderr.String(), "not a regular file") {
					t.Errorf("exit %v, stderr %q; want a refusal of a file that is not regular", err, stderr.String())
				}
			case <-time.After(60 * time.Second):
				cmd.Process.Signal(syscall.SIGTERM)
				t.Errorf("score still runs after 60 s on a %s", kind)
				<-done
			}
		})
	}
}

// TestFitFullDisk fits onto a disk too small for the model: an error, exit 1 (it was an
// abort, exit 134, leaving partial .pt files), the previous --out whole, and no
// temporary folder left on the disk.
func TestFitFullDisk(t *testing.T) {
	disk := smallDisk(t, "512k")
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 60, 3, false, 48)
	out := filepath.Join(disk, "out")
	mustUdocc(t, dir, fitArgs("--arch", "4,2", "--out", out, "table.csv")...)
	before := snapshot(t, out)
	r := udocc(t, dir, fitArgs("--arch", "512,256", "--out", out, "table.csv")...)
	if r.code != 1 || !strings.Contains(r.stderr, "no space left") {
		t.Errorf("exit %d, stderr %q; want exit 1 and the disk's complaint", r.code, r.stderr)
	}
	if after := snapshot(t, out); !maps.Equal(before, after) {
		t.Error("the previous --out changed")
	}
	if es, _ := os.ReadDir(disk); len(es) != 1 {
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Errorf("the disk holds %v, want out alone", names)
	}
}

// copyDir copies the files of the folder from into a new folder to.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	es, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

package outdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

var owned = []string{"summary.json", "model", "model/*.pt"}

// write makes the files of rel (slash-separated) under dir, each holding its own name.
func write(t *testing.T, dir string, rel ...string) {
	t.Helper()
	for _, r := range rel {
		p := filepath.Join(dir, filepath.FromSlash(r))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(r), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// tree lists every path under dir, and the names beside it in its parent.
func tree(t *testing.T, dir string) (inside, beside []string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err == nil && p != dir {
			rel, _ := filepath.Rel(dir, p)
			inside = append(inside, filepath.ToSlash(rel))
		}
		return nil
	})
	es, _ := os.ReadDir(filepath.Dir(dir))
	for _, e := range es {
		beside = append(beside, e.Name())
	}
	return inside, beside
}

func TestTransaction(t *testing.T) {
	t.Run("a new folder is made whole and nothing is left beside it", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		tx, err := Begin(out, owned, false)
		if err != nil {
			t.Fatal(err)
		}
		write(t, tx.Dir(), "summary.json", "model/a.pt")
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		in, beside := tree(t, out)
		if !slices.Equal(in, []string{"model", "model/a.pt", "summary.json"}) || !slices.Equal(beside, []string{"out"}) {
			t.Errorf("inside %v, beside %v", in, beside)
		}
	})
	t.Run("a new result replaces the old one whole", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		write(t, out, "summary.json", "model/a.pt", "model/b.pt")
		tx, err := Begin(out, owned, false)
		if err != nil {
			t.Fatal(err)
		}
		write(t, tx.Dir(), "summary.json", "model/c.pt")
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		in, beside := tree(t, out)
		if !slices.Equal(in, []string{"model", "model/c.pt", "summary.json"}) || !slices.Equal(beside, []string{"out"}) {
			t.Errorf("inside %v, beside %v", in, beside)
		}
	})
	t.Run("an aborted run leaves the old result and no debris", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		write(t, out, "summary.json")
		tx, err := Begin(out, owned, false)
		if err != nil {
			t.Fatal(err)
		}
		write(t, tx.Dir(), "model/c.pt")
		tx.Abort()
		tx.Abort()
		in, beside := tree(t, out)
		if !slices.Equal(in, []string{"summary.json"}) || !slices.Equal(beside, []string{"out"}) {
			t.Errorf("inside %v, beside %v", in, beside)
		}
	})
	t.Run("temporaries of a killed run are removed by the next", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		write(t, filepath.Dir(out), ".out.udocc-123.tmp/summary.json", ".out.udocc-lock")
		tx, err := Begin(out, owned, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if _, beside := tree(t, out); !slices.Equal(beside, []string{"out"}) {
			t.Errorf("beside %v", beside)
		}
	})
	t.Run("a folder with the user's files is refused, and replaced with force", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		write(t, out, "summary.json", "model/notes.txt")
		if _, err := Begin(out, owned, false); !errors.Is(err, ErrForeign) {
			t.Fatalf("err %v, want ErrForeign", err)
		}
		if in, _ := tree(t, out); len(in) != 3 {
			t.Errorf("the refused folder changed: %v", in)
		}
		tx, err := Begin(out, owned, true)
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if in, _ := tree(t, out); len(in) != 0 {
			t.Errorf("inside %v, want the new, empty result", in)
		}
	})
	t.Run("a second run on the same folder is refused while the first holds it", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		tx, err := Begin(out, owned, false)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Begin(out, owned, true); !errors.Is(err, ErrBusy) {
			t.Fatalf("err %v, want ErrBusy", err)
		}
		tx.Abort()
		tx2, err := Begin(out, owned, false)
		if err != nil {
			t.Fatalf("after the first ended: %v", err)
		}
		tx2.Abort()
	})
	t.Run("a file in the folder's place is refused", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		write(t, filepath.Dir(out), "out")
		if _, err := Begin(out, owned, true); err == nil {
			t.Fatal("no error")
		}
	})
	t.Run("an aborted run removes the folders it made above the target", func(t *testing.T) {
		root := t.TempDir()
		tx, err := Begin(filepath.Join(root, "a", "b", "out"), owned, false)
		if err != nil {
			t.Fatal(err)
		}
		tx.Abort()
		if es, _ := os.ReadDir(root); len(es) != 0 {
			t.Errorf("left %v", es)
		}
	})
	t.Run("a folder that cannot be made fails at Begin", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, "file")
		if _, err := Begin(filepath.Join(dir, "file", "out"), owned, false); err == nil {
			t.Fatal("no error")
		}
	})
}

// TestGlobTargetSparesOthers: a target named with glob characters removes only its own
// killed runs' temporaries, never a concurrent run's on a target the pattern would
// match (filepath.Glob on the name did: `--out 'a*'` deleted `ab`'s folder in progress),
// and never a file or folder of another name that merely starts like one.
func TestGlobTargetSparesOthers(t *testing.T) {
	for _, base := range []string{"a*", "a?", "[a]b", "a"} {
		t.Run(base, func(t *testing.T) {
			parent := t.TempDir()
			other, err := Begin(filepath.Join(parent, "ab"), owned, false)
			if err != nil {
				t.Fatal(err)
			}
			defer other.Abort()
			mine := filepath.Join(parent, "."+base+".udocc-12345.tmp") // a killed run's
			decoy := filepath.Join(parent, "."+base+".udocc-mine.tmp")
			for _, d := range []string{mine, decoy} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			tx, err := Begin(filepath.Join(parent, base), owned, false)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Abort()
			if _, err := os.Stat(other.Dir()); err != nil {
				t.Errorf("the concurrent run's temporary folder %s: %v", other.Dir(), err)
			}
			if _, err := os.Stat(decoy); err != nil {
				t.Errorf("%s, not a name udocc gives: %v", decoy, err)
			}
			if _, err := os.Stat(mine); err == nil {
				t.Errorf("the killed run's %s was left", mine)
			}
		})
	}
}

// result reads the result a folder holds: "old" or "new" when its two files both say
// so, "" when it is missing or not whole.
func result(dir string) string {
	a, err1 := os.ReadFile(filepath.Join(dir, "summary.json"))
	b, err2 := os.ReadFile(filepath.Join(dir, "model", "a.pt"))
	if err1 != nil || err2 != nil || string(a) != string(b) {
		return ""
	}
	return string(a)
}

// writeResult makes a whole result, both files saying which.
func writeResult(t *testing.T, dir, which string) {
	t.Helper()
	for _, r := range []string{"summary.json", "model/a.pt"} {
		p := filepath.Join(dir, filepath.FromSlash(r))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(which), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCrashWithoutExchange cuts Commit's renames on a file system without
// RENAME_EXCHANGE after each of them, as a crash would, and checks that the disk holds a
// whole result at every point, and that the next Begin on the folder leaves a whole one
// at its name: the new one once the previous one went aside, the previous one before.
func TestCrashWithoutExchange(t *testing.T) {
	steps := len(swapSteps("tmp", "target"))
	for done := 0; done <= steps; done++ {
		t.Run(fmt.Sprintf("crash after %d of %d renames", done, steps), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			writeResult(t, out, "old")
			tx, err := Begin(out, owned, false)
			if err != nil {
				t.Fatal(err)
			}
			writeResult(t, tx.Dir(), "new")
			for _, step := range swapSteps(tx.Dir(), out)[:done] {
				if err := step(); err != nil {
					t.Fatal(err)
				}
			}
			// The crash: the lock goes with the process, nothing else is cleaned.
			tx.lock.Close()
			os.Remove(tx.lock.Name())
			var whole []string
			for _, d := range []string{out, tx.Dir(), tx.Dir() + asideSuffix} {
				if r := result(d); r != "" {
					whole = append(whole, r)
				}
			}
			if len(whole) == 0 {
				t.Fatalf("no whole result on disk after %d renames", done)
			}
			next, err := Begin(out, owned, false)
			if err != nil {
				t.Fatal(err)
			}
			next.Abort()
			want := "new"
			if done == 0 {
				want = "old"
			}
			if got := result(out); got != want {
				t.Errorf("after the next Begin the folder holds %q, want %q", got, want)
			}
			if _, beside := tree(t, out); !slices.Equal(beside, []string{"out"}) {
				t.Errorf("left beside the folder: %v", beside)
			}
		})
	}
	t.Run("Commit without the exchange", func(t *testing.T) {
		defer func(f func(a, b string) error) { exchange = f }(exchange)
		exchange = func(a, b string) error { return unix.EINVAL }
		out := filepath.Join(t.TempDir(), "out")
		writeResult(t, out, "old")
		tx, err := Begin(out, owned, false)
		if err != nil {
			t.Fatal(err)
		}
		writeResult(t, tx.Dir(), "new")
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if got := result(out); got != "new" {
			t.Errorf("the folder holds %q, want new", got)
		}
		if _, beside := tree(t, out); !slices.Equal(beside, []string{"out"}) {
			t.Errorf("left beside the folder: %v", beside)
		}
	})
	t.Run("a failed second rename puts the previous result back", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		writeResult(t, out, "old")
		tx, err := Begin(out, owned, false)
		if err != nil {
			t.Fatal(err)
		}
		s := swapSteps(tx.Dir(), out)
		if err := os.RemoveAll(tx.Dir()); err != nil { // the second rename then fails
			t.Fatal(err)
		}
		if err := s[0](); err != nil {
			t.Fatal(err)
		}
		if err := s[1](); err == nil {
			t.Fatal("the second rename of a missing folder succeeded")
		}
		if got := result(out); got != "old" {
			t.Errorf("the folder holds %q, want the previous result", got)
		}
		tx.Abort()
	})
}

package outdir

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
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

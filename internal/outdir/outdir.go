// Package outdir writes a command's output folder as one transaction: everything goes
// into a fresh temporary folder beside the target, which is swapped in by one rename at
// the end. A reader of the target sees the previous result whole or the new one whole;
// a killed run leaves the previous result and a temporary folder that the next run on
// the same target removes. A lock file beside the target keeps two runs from writing it
// at once, and a target holding files the command does not write is refused unless
// forced, so that a user's own files are never deleted without a word.
//
// Start from Begin; write into Tx.Dir; end with Tx.Commit or Tx.Abort.
package outdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

var (
	// ErrBusy reports a target that another run is writing now.
	ErrBusy = errors.New("another udocc run is writing it")
	// ErrForeign reports a target that holds files the command did not write.
	ErrForeign = errors.New("it holds files udocc did not write")
)

// Tx is one transaction on an output folder.
type Tx struct {
	target string   // the output folder, absolute
	tmp    string   // where this run writes, beside target
	lock   *os.File // flock held until Commit or Abort
	made   []string // the folders above target that Begin made, deepest first
	done   bool
}

// Begin locks the output folder dir, finishes a Commit that a crash cut short (finishSwap),
// removes the temporaries of earlier killed runs on it, checks that what dir holds now is the command's own (every path inside, relative
// and slash-separated, matches one of owned, as path.Match reads it) unless force, and
// makes the temporary folder the run writes into. Because it creates files beside dir,
// it also proves that dir's parent can be written, before any work is done.
func Begin(dir string, owned []string, force bool) (*Tx, error) {
	target, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("output folder %s: %w", dir, err)
	}
	parent, base := filepath.Dir(target), filepath.Base(target)
	if target == parent {
		return nil, fmt.Errorf("output folder %s: a root folder cannot be replaced", dir)
	}
	var made []string
	for p := parent; ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil || p == filepath.Dir(p) {
			break
		}
		made = append(made, p)
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("output folder %s: %w", dir, err)
	}
	lock, err := acquire(filepath.Join(parent, "."+base+".udocc-lock"))
	if err != nil {
		removeEmpty(made)
		return nil, fmt.Errorf("output folder %s: %w", dir, err)
	}
	t := &Tx{target: target, lock: lock, made: made}
	fail := func(err error) (*Tx, error) {
		t.Abort()
		return nil, fmt.Errorf("output folder %s: %w", dir, err)
	}
	if err := finishSwap(parent, base); err != nil {
		return fail(err)
	}
	stale, err := staleTemps(parent, base)
	if err != nil {
		return fail(err)
	}
	for _, s := range stale {
		if err := os.RemoveAll(s); err != nil {
			return fail(err)
		}
	}
	if err := checkOwned(target, owned, force); err != nil {
		return fail(err)
	}
	if t.tmp, err = os.MkdirTemp(parent, "."+base+".udocc-*.tmp"); err != nil {
		return fail(err)
	}
	if err := os.Chmod(t.tmp, 0o755); err != nil { // MkdirTemp makes it 0700
		return fail(err)
	}
	return t, nil
}

// staleTemps are the temporary folders that earlier runs on the target base in parent
// left when they were killed: the names MkdirTemp gave them (."+base+".udocc-DIGITS.tmp,
// and Commit's aside name, that with ".old.udocc-x.tmp" added), matched literally, never
// as a pattern: a target named with glob characters ("a*", "[x]") must not reach the
// temporaries of another target. Only folders count; only the lock holder calls it, so
// none of them belongs to a live run.
func staleTemps(parent, base string) ([]string, error) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil, err
	}
	prefix := "." + base + ".udocc-"
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, prefix) {
			continue
		}
		rest := strings.TrimSuffix(name[len(prefix):], asideSuffix)
		digits, ok := strings.CutSuffix(rest, ".tmp")
		if ok && digits != "" && strings.Trim(digits, "0123456789") == "" {
			out = append(out, filepath.Join(parent, name))
		}
	}
	return out, nil
}

// acquire opens and flocks path without waiting. It retries when the file it locked was
// unlinked meanwhile by a run that finished, so two runs never hold two different files.
func acquire(path string) (*os.File, error) {
	for range 10 {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return nil, err
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				return nil, fmt.Errorf("%w (lock %s held)", ErrBusy, path)
			}
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		var held, now unix.Stat_t
		if unix.Fstat(int(f.Fd()), &held) == nil && unix.Stat(path, &now) == nil && held.Ino == now.Ino && held.Dev == now.Dev {
			return f, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("lock %s: %w", path, ErrBusy)
}

// checkOwned returns ErrForeign, naming up to three paths, when target holds a path that
// no pattern of owned matches; a missing or empty target is fine, a file is not.
func checkOwned(target string, owned []string, force bool) error {
	info, err := os.Lstat(target)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("it is not a folder")
	}
	if force {
		return nil
	}
	var foreign []string
	err = filepath.WalkDir(target, func(path string, e fs.DirEntry, err error) error {
		if err != nil || path == target {
			return err
		}
		rel, _ := filepath.Rel(target, path)
		if !matchAny(filepath.ToSlash(rel), owned) {
			foreign = append(foreign, rel)
			if e.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(foreign) == 0 {
		return nil
	}
	more := ""
	if len(foreign) > 3 {
		foreign, more = foreign[:3], fmt.Sprintf(" and %d more", len(foreign)-3)
	}
	return fmt.Errorf("%w (%s%s)", ErrForeign, strings.Join(foreign, ", "), more)
}

func matchAny(rel string, patterns []string) bool {
	for _, p := range patterns {
		if ok, _ := filepath.Match(p, rel); ok {
			return true
		}
	}
	return false
}

// Dir is the temporary folder to write the outputs into.
func (t *Tx) Dir() string { return t.tmp }

// Commit syncs what was written and swaps it in for the output folder in one atomic
// exchange of the two folders (renameat2 RENAME_EXCHANGE); the previous result, now at
// the temporary name, is then removed. On a file system without the exchange it takes
// the steps of swapSteps: the previous result is renamed aside, then the new one into
// place, then the previous one removed. Between the first two renames no folder stands
// at the target's name, but the disk holds both results whole (the new one synced before
// the first rename): a crash there leaves the target missing, the new result complete in
// the temporary folder and the previous one aside, and the next Begin on the target
// renames the new one into place (finishSwap). A failed second rename puts the previous
// result back.
func (t *Tx) Commit() error {
	if t.done {
		return errors.New("outdir: transaction already ended")
	}
	defer t.Abort()
	if err := syncTree(t.tmp); err != nil {
		return fmt.Errorf("output folder %s: %w", t.target, err)
	}
	err := exchange(t.tmp, t.target)
	switch {
	case errors.Is(err, unix.ENOENT):
		err = os.Rename(t.tmp, t.target)
	case errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP):
		err = nil
		for _, step := range swapSteps(t.tmp, t.target) {
			if err = step(); err != nil {
				break
			}
		}
	}
	if err != nil {
		return fmt.Errorf("output folder %s: %w", t.target, err)
	}
	t.made = nil
	return syncDir(filepath.Dir(t.target))
}

// exchange swaps the folders a and b in one atomic rename; a variable so that a test can
// take the path of a file system without the exchange.
var exchange = func(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}

// asideSuffix names the previous result while swapSteps replace it: tmp + asideSuffix.
const asideSuffix = ".old.udocc-x.tmp"

// swapSteps are Commit's renames where the file system cannot exchange two folders, in
// order; after any prefix of them has run (a crash), the disk holds a whole result, and
// Begin's finishSwap puts the new one at target where the crash left none there. A failed
// second step puts the previous result back before it reports.
func swapSteps(tmp, target string) []func() error {
	aside := tmp + asideSuffix
	return []func() error{
		func() error { return os.Rename(target, aside) },
		func() error {
			err := os.Rename(tmp, target)
			if err != nil {
				if back := os.Rename(aside, target); back != nil {
					return fmt.Errorf("%w; and the previous result could not be put back from %s: %w", err, aside, back)
				}
			}
			return err
		},
		func() error { return os.RemoveAll(aside) },
	}
}

// finishSwap finishes a Commit that a crash cut between swapSteps' first two renames: where
// target is missing and a previous result stands aside, the new result (synced before
// the previous one went aside) is renamed into place, or, where it is gone, the previous
// one is put back. Only the lock holder calls it.
func finishSwap(parent, base string) error {
	target := filepath.Join(parent, base)
	if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
		return nil // a result stands at target: the asides are stale temporaries
	}
	stale, err := staleTemps(parent, base)
	if err != nil {
		return err
	}
	for _, s := range stale {
		tmp, ok := strings.CutSuffix(s, asideSuffix)
		if !ok {
			continue
		}
		if _, err := os.Lstat(tmp); err == nil {
			return os.Rename(tmp, target)
		}
		return os.Rename(s, target)
	}
	return nil
}

// Abort removes the temporary folder (after Commit: the previous result) and releases
// the lock. It is safe to call more than once.
func (t *Tx) Abort() {
	if t.done {
		return
	}
	t.done = true
	if t.tmp != "" {
		os.RemoveAll(t.tmp)
	}
	os.Remove(t.lock.Name()) // while still held: a run that opened it meanwhile retries
	t.lock.Close()
	removeEmpty(t.made)
}

// removeEmpty removes the folders of dirs, deepest first, that are empty: those that
// Begin made for a run that then wrote nothing.
func removeEmpty(dirs []string) {
	for _, d := range dirs {
		if os.Remove(d) != nil {
			return
		}
	}
}

// syncTree flushes every file under dir, and the folders, to the disk.
func syncTree(dir string) error {
	return filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			return syncDir(path)
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		return f.Sync()
	})
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// Package atomicfile writes files so that a reader sees the old file or the whole new
// one, never a half-written one: the content goes to a temporary file in the same
// folder, which is synced and renamed over the target.
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write calls fill with a temporary file beside path and renames it to path when fill
// and the sync succeed; otherwise the temporary file is removed and path is untouched.
func Write(path string, fill func(w io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = fill(f); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// WriteBytes writes b to path atomically.
func WriteBytes(path string, b []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// ErrLocked reports a results file that another udocc-bench is writing.
var ErrLocked = errors.New("another udocc-bench is writing this results file")

// Results are the readable lines of a results file and the places of those that are not.
type Results struct {
	Lines []Line
	// Bad lists the 1-based line numbers that are not a complete JSON line: a line torn by
	// a kill mid-write, or an edit by hand. They are skipped.
	Bad []int
}

// ReadResults reads a results file. A missing file is an error; bad lines are not.
func ReadResults(path string) (*Results, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	defer f.Close()
	res, err := readResults(f)
	if err != nil {
		return nil, fmt.Errorf("bench: %s: %w", path, err)
	}
	return res, nil
}

func readResults(r io.Reader) (*Results, error) {
	res := &Results{}
	br := bufio.NewReaderSize(r, 1<<16)
	for row := 1; ; row++ {
		b, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			var l Line
			if b[len(b)-1] != '\n' || json.Unmarshal(b, &l) != nil || l.Dataset == "" || l.Method == "" {
				res.Bad = append(res.Bad, row)
			} else {
				res.Lines = append(res.Lines, l)
			}
		}
		if err == io.EOF {
			return res, nil
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", row, err)
		}
	}
}

// store is the open results file of a running benchmark: locked against a second
// writer, appended to one whole line per write, each write synced.
type store struct {
	path string
	mu   sync.Mutex
	f    *os.File
	done map[Key]bool
	bad  int
}

// openStore opens (creating) the results file at path, locks it and reads the keys of
// the runs already in it. A torn last line (no newline: the writer was killed mid-write)
// is closed with a newline so that the next line starts clean; the torn one stays and is
// skipped by readers.
func openStore(path string) (*store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("bench: output folder: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("bench: %s: %w (%v)", path, ErrLocked, err)
	}
	s := &store{path: path, f: f, done: map[Key]bool{}}
	res, err := readResults(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("bench: %s: %w", path, err)
	}
	for i := range res.Lines {
		s.done[res.Lines[i].Key()] = true
	}
	s.bad = len(res.Bad)
	if err := s.closeTornLine(); err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

func (s *store) closeTornLine() error {
	fi, err := s.f.Stat()
	if err != nil || fi.Size() == 0 {
		return err
	}
	last := make([]byte, 1)
	if _, err := s.f.ReadAt(last, fi.Size()-1); err != nil {
		return fmt.Errorf("bench: %s: %w", s.path, err)
	}
	if last[0] == '\n' {
		return nil
	}
	if _, err := s.f.Write([]byte("\n")); err != nil {
		return fmt.Errorf("bench: %s: %w", s.path, err)
	}
	return s.f.Sync()
}

// has reports whether the run of k is already in the file.
func (s *store) has(k Key) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done[k]
}

// append writes l as one line in one write and syncs it to disk.
func (s *store) append(l *Line) error {
	b, err := json.Marshal(l)
	if err != nil {
		return fmt.Errorf("bench: %s: %v: %w", s.path, l.Key(), err)
	}
	b = append(b, '\n')
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.f.Write(b); err != nil {
		return fmt.Errorf("bench: %s: %w", s.path, err)
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("bench: %s: %w", s.path, err)
	}
	s.done[l.Key()] = true
	return nil
}

// close unlocks and closes the file.
func (s *store) close() error { return s.f.Close() }

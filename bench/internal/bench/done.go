package bench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// DoneLines reads the JSON lines a measurement has already appended to path (none where
// the file does not exist), each as a T, and returns the set of their keys: a tool that
// appends a line a fit skips the fits it finds there, and an interrupted run goes on
// where it stopped.
func DoneLines[T any](path string, key func(T) string) (map[string]bool, error) {
	done := map[string]bool{}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return done, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		var r T
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		done[key(r)] = true
	}
	return done, sc.Err()
}

package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/udocc/udocc/internal/atomicfile"
)

// Session is one invocation of Run, kept in sessions.json beside the results so that the
// report can give the grid's wall time. A session that was killed has no End; the report
// then takes the time of its last line.
type Session struct {
	ID      string     `json:"id"` // the start time, RFC 3339 with nanoseconds; lines name it
	Start   time.Time  `json:"start"`
	End     *time.Time `json:"end"`
	Args    []string   `json:"args,omitempty"`
	Planned int        `json:"planned"` // runs in the grid
	Skipped int        `json:"skipped"` // runs already in the results file
	Trained int        `json:"trained"` // lines written by this session
	Failed  int        `json:"failed"`  // runs whose group failed
	Jobs    int        `json:"jobs"`
	Group   string     `json:"group"`
	Device  string     `json:"device"`
	CPUs    int        `json:"cpus"`
}

// ReadSessions reads sessions.json; a missing file is no sessions.
func ReadSessions(path string) ([]Session, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	var s []Session
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("bench: %s: %w", path, err)
	}
	return s, nil
}

// putSession adds s to sessions.json, or replaces the session with its ID, atomically.
func putSession(path string, s Session) error {
	all, err := ReadSessions(path)
	if err != nil {
		return err
	}
	replaced := false
	for i := range all {
		if all[i].ID == s.ID {
			all[i], replaced = s, true
		}
	}
	if !replaced {
		all = append(all, s)
	}
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(path, append(b, '\n')); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return nil
}

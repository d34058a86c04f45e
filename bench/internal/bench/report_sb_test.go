package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWriteSpheres checks the SB boundary table: the model's sphere and the loss's last
// one side by side, and no table where SB's lines predate the loss's sphere.
func TestWriteSpheres(t *testing.T) {
	write := func(t *testing.T, withSphere bool) string {
		out := t.TempDir()
		f, err := os.Create(filepath.Join(out, ResultsFile))
		if err != nil {
			t.Fatal(err)
		}
		enc := json.NewEncoder(f)
		for seed := range uint64(2) {
			l := fakeLine("cardio", "sb", seed, 100, 10, 0.6, 0.2, 0.3)
			l.Flagged = 10
			if withSphere {
				// Seeds 0 and 1 flag 2 and 4 rows with F1 0.1 and 0.3: means 0.03 and 20.0 ± 10.0.
				f1 := 0.1 + 0.2*float64(seed)
				l.LossSphere = &Sphere{Radius: 0.5, Flagged: 2 + 2*int(seed), F1: Num(f1), Precision: 0.5, Recall: Num(f1)}
			}
			if err := enc.Encode(&l); err != nil {
				t.Fatal(err)
			}
		}
		f.Close()
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		if err := putSession(filepath.Join(out, SessionsFile), Session{ID: "s1", Start: start, Planned: 2, Trained: 2, Jobs: 1, Group: "dataset", Device: "cpu"}); err != nil {
			t.Fatal(err)
		}
		return reportText(t, out)
	}
	t.Run("both spheres beside the paper", func(t *testing.T) {
		md := write(t, true)
		row := "| cardio | 0.100 | 0.100 | 30.0 ± 0.0 | 0.030 | 20.0 ± 10.0 | 50.0 | 20.0 | 24.1 ± 6.7 |"
		if !strings.Contains(md, "### SB's boundary: which R labels the rows") || !strings.Contains(md, row) {
			t.Errorf("report lacks the sphere table or its row %q", row)
		}
	})
	t.Run("no table for lines without the loss's sphere", func(t *testing.T) {
		if md := write(t, false); strings.Contains(md, "SB's boundary") {
			t.Error("report has a sphere table for lines that do not record the loss's sphere")
		}
	})
}

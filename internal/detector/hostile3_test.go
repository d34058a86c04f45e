package detector_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/udocc/udocc/internal/detector"
)

// TestSaveRefusesForeign: Save refuses a path that is a file, or a folder holding files
// it did not write, and leaves them as they were (it used to replace the file and
// delete the folder's other files); a folder it wrote is replaced.
func TestSaveRefusesForeign(t *testing.T) {
	m := fitted(t, detector.Ensemble{}, table(60, 3, 1))
	dir := t.TempDir()
	file := filepath.Join(dir, "report.txt")
	if err := os.WriteFile(file, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.Save(file); !errors.Is(err, detector.ErrNotModelFolder) {
		t.Errorf("Save over a file: %v, want ErrNotModelFolder", err)
	}
	if b, _ := os.ReadFile(file); string(b) != "mine" {
		t.Errorf("the file now holds %q", b)
	}
	folder := filepath.Join(dir, "results")
	notes := filepath.Join(folder, "notes.txt")
	os.Mkdir(folder, 0o755)
	if err := os.WriteFile(notes, []byte("notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.Save(folder); !errors.Is(err, detector.ErrNotModelFolder) || !strings.Contains(err.Error(), "notes.txt") {
		t.Errorf("Save into a folder with notes.txt: %v, want ErrNotModelFolder naming it", err)
	}
	if b, _ := os.ReadFile(notes); string(b) != "notes" {
		t.Errorf("notes.txt now holds %q", b)
	}
	model := filepath.Join(dir, "model")
	for range 2 { // a new folder, then the one Save wrote
		if err := m.Save(model); err != nil {
			t.Fatal(err)
		}
	}
	if es, _ := os.ReadDir(dir); len(es) != 3 {
		t.Errorf("beside the model: %d entries, want report.txt, results and model", len(es))
	}
}

// TestSaveFullDisk saves a large model over a small one on a disk too small for it: an
// error (it was an uncaught c10::Error that aborted the host program), the small model
// still there and loadable, and no temporary folder left. It needs a tmpfs, which only
// root can mount; it skips elsewhere.
func TestSaveFullDisk(t *testing.T) {
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=256k"); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (needs root): %v", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, 0) })
	rows := table(60, 3, 1)
	o := quick()
	o.Hidden = []int{8, 4}
	small, err := detector.Fit(context.Background(), rows, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	o.Hidden = []int{512, 256}
	large, err := detector.Fit(context.Background(), rows, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	defer large.Close()
	path := filepath.Join(dir, "model")
	if err := small.Save(path); err != nil {
		t.Fatal(err)
	}
	err = large.Save(path)
	if err == nil {
		t.Fatal("Save of a model larger than the disk: no error")
	}
	if !strings.Contains(err.Error(), "no space left") {
		t.Errorf("Save on a full disk: %v, want the disk's complaint", err)
	}
	l, err := detector.Load(path, "cpu")
	if err != nil {
		t.Fatalf("the model saved before: %v", err)
	}
	defer l.Close()
	if !slices.Equal(l.Hidden(), []int{8, 4}) {
		t.Errorf("the model at %s has hidden sizes %v, want the small one's", path, l.Hidden())
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Errorf("the disk holds %v, want the model alone", names)
	}
}

// TestFitNilContext: a nil ctx is context.Background(), not a panic.
func TestFitNilContext(t *testing.T) {
	//lint:ignore SA1012 the nil context is what the test is about
	m, err := detector.Fit(nil, table(60, 3, 1), nil, quick())
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
}

// TestCloseDuringScore closes a model while goroutines score with it (run with -race):
// each Score either gives the scores or fails with ErrClosed, never a crash or bogus
// non-finite scores as before, and every call after Close fails with ErrClosed.
func TestCloseDuringScore(t *testing.T) {
	rows := table(200, 3, 1)
	m, err := detector.Fit(context.Background(), rows, nil, quick())
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.Score(context.Background(), rows)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	started := make(chan struct{}, 4)
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				if i == 1 {
					started <- struct{}{}
				}
				got, err := m.Score(context.Background(), rows)
				if errors.Is(err, detector.ErrClosed) {
					return
				}
				if err != nil {
					errs <- err
					return
				}
				if !slices.Equal(got, want) {
					errs <- errors.New("scores differ from the model's before Close")
					return
				}
			}
		}()
	}
	for range 4 {
		<-started
	}
	m.Close()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if _, err := m.Score(context.Background(), rows); !errors.Is(err, detector.ErrClosed) {
		t.Errorf("Score after Close: %v, want ErrClosed", err)
	}
	if _, err := m.Explain(context.Background(), rows[:2]); !errors.Is(err, detector.ErrClosed) {
		t.Errorf("Explain after Close: %v, want ErrClosed", err)
	}
	if err := m.Save(filepath.Join(t.TempDir(), "m")); !errors.Is(err, detector.ErrClosed) {
		t.Errorf("Save after Close: %v, want ErrClosed", err)
	}
}

// TestExplainStepsCap: ExplainOptions.Steps beyond MaxExplainSteps is refused before
// any work (it was unbounded: a billion steps held the process).
func TestExplainStepsCap(t *testing.T) {
	m := fitted(t, detector.Ensemble{}, table(60, 3, 1))
	rows := table(2, 3, 2)
	ds := dataset(t, rows)
	for _, steps := range []int{-1, detector.MaxExplainSteps + 1, math.MaxInt} {
		_, err := m.ExplainDataset(context.Background(), ds, nil, detector.ExplainOptions{Method: detector.IntegratedGradients, Steps: steps})
		if err == nil || !strings.Contains(err.Error(), "ExplainOptions.Steps") {
			t.Errorf("Steps %d: %v, want an error naming ExplainOptions.Steps", steps, err)
		}
	}
	if _, err := m.ExplainDataset(context.Background(), ds, nil, detector.ExplainOptions{Method: detector.IntegratedGradients, Steps: detector.MaxExplainSteps}); err != nil {
		t.Errorf("Steps %d: %v", detector.MaxExplainSteps, err)
	}
}

// TestTiesAtTheCut: 400 rows of which 30 are one identical far point, contamination
// 0.05 (20 rows): the tied block at the cut is flagged whole (it was flagged not at all:
// the threshold was their score and a row is flagged only above it), in the training
// labels and by Predict alike.
func TestTiesAtTheCut(t *testing.T) {
	rows := table(400, 3, 1)
	for i := range rows {
		for j := range rows[i] {
			if i%10 == 9 {
				rows[i][j] -= 8 // the table's anomalies back among the normal rows
			}
		}
		if i < 30 {
			rows[i] = []float64{40, -40, 40}
		}
	}
	o := quick()
	m, err := detector.Fit(context.Background(), rows, detector.Ensemble{Contamination: 0.05}, o)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	pred, err := m.Predict(context.Background(), rows)
	if err != nil {
		t.Fatal(err)
	}
	for name, labels := range map[string][]bool{"Labels": m.Labels(), "Predict": pred} {
		n := 0
		for i, l := range labels {
			if l {
				n++
			}
			if i < 30 && !l {
				t.Errorf("%s: row %d of the tied block is not flagged", name, i+1)
				break
			}
		}
		if n < 30 {
			t.Errorf("%s flags %d rows, want the 30 tied ones at least", name, n)
		}
	}
}

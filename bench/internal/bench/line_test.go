package bench

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/udocc/udocc/internal/training"
)

func TestNumJSON(t *testing.T) {
	for _, c := range []struct {
		name string
		in   Num
		want string
	}{
		{"finite", 0.25, "0.25"},
		{"NaN is null", NaN(), "null"},
		{"Inf is null", Num(math.Inf(1)), "null"},
		{"shortest exact", Num(1.0 / 3), "0.3333333333333333"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := json.Marshal(c.in)
			if err != nil || string(b) != c.want {
				t.Fatalf("Marshal(%v) = %s, %v; want %s", float64(c.in), b, err, c.want)
			}
			var back Num
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if back.Valid() != c.in.Valid() || (back.Valid() && back != c.in) {
				t.Errorf("round trip of %v gave %v", float64(c.in), float64(back))
			}
		})
	}
}

func TestReadResults(t *testing.T) {
	good := `{"dataset":"wbc","method":"oc","seed":1,"rocauc":0.8,"f1":null}`
	for _, c := range []struct {
		name  string
		text  string
		lines int
		bad   []int
	}{
		{"empty", "", 0, nil},
		{"two lines", good + "\n" + good + "\n", 2, nil},
		{"blank lines are skipped", good + "\n\n" + good + "\n", 2, nil},
		{"torn last line", good + "\n" + good[:20], 1, []int{2}},
		{"torn line closed by a resume", good + "\n" + good[:20] + "\n" + good + "\n", 2, []int{2}},
		{"not a run", good + "\n{}\n", 1, []int{2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := readResults(strings.NewReader(c.text))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Lines) != c.lines || !slices.Equal(res.Bad, c.bad) {
				t.Errorf("%d lines, bad %v; want %d, %v", len(res.Lines), res.Bad, c.lines, c.bad)
			}
			for _, l := range res.Lines {
				if l.F1.Valid() || float64(l.ROCAUC) != 0.8 {
					t.Errorf("line read as ROCAUC %v F1 %v", l.ROCAUC, l.F1)
				}
			}
		})
	}
}

// TestStoreLock keeps a second benchmark from writing the same results file.
func TestStoreLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), ResultsFile)
	s, err := openStore(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if s2, err := openStore(path); err == nil {
		s2.close()
		t.Fatal("a second store opened a locked results file")
	}
	l := &Line{Dataset: "wbc", Method: "oc", Seed: 3, Config: Config{Fingerprint: "f"}}
	if err := s.append(l); err != nil {
		t.Fatal(err)
	}
	if !s.has(l.Key()) {
		t.Error("an appended run is not done")
	}
	b, _ := os.ReadFile(path)
	if strings.Count(string(b), "\n") != 1 {
		t.Errorf("file %q is not one line", b)
	}
}

// TestFingerprint: every setting that changes the numbers changes the key.
func TestFingerprint(t *testing.T) {
	base := training.DefaultConfig()
	fp := recordConfig(base).Fingerprint
	if fp != recordConfig(training.DefaultConfig()).Fingerprint {
		t.Fatal("fingerprint is not deterministic")
	}
	for _, c := range []struct {
		name string
		edit func(*training.Config)
	}{
		{"epochs", func(c *training.Config) { c.Epochs = 49 }},
		{"pretrain epochs", func(c *training.Config) { c.PretrainEpochs = 2 }},
		{"architecture", func(c *training.Config) { c.Hidden = []int{32, 16, 4} }},
		{"batch size", func(c *training.Config) { c.BatchSize = 64 }},
		{"learning rate", func(c *training.Config) { c.LR = 1e-4 }},
		{"rank scores", func(c *training.Config) { c.Scores = training.EvalScores }},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := training.DefaultConfig()
			c.edit(&cfg)
			if recordConfig(cfg).Fingerprint == fp {
				t.Errorf("changing %s keeps the fingerprint", c.name)
			}
		})
	}
	t.Run("device does not count", func(t *testing.T) {
		cfg := training.DefaultConfig()
		cfg.Device = "cuda"
		if recordConfig(cfg).Fingerprint != fp {
			t.Error("the device changes the fingerprint")
		}
	})
}

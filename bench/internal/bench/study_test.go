package bench

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/udocc/udocc/internal/method"
	"github.com/udocc/udocc/internal/odds"
	"github.com/udocc/udocc/internal/threshold"
)

// TestStudy runs the study on glass and its four synthetic tables at one ratio: one
// record per table, every source measured, every rule judged with a ratio in [0, 1],
// the scores kept for re-evaluation, a rerun that trains nothing, and a report with
// its sections.
func TestStudy(t *testing.T) {
	dir := odds.FindDir()
	if _, err := os.Stat(filepath.Join(dir, "glass.mat")); err != nil {
		t.Skipf("no ODDS glass.mat in %q (set UDOCC_DATA): %v", dir, err)
	}
	out := t.TempDir()
	o := StudyOptions{Data: dir, Datasets: []string{"glass"}, Seeds: []uint64{0}, MaxNormals: 100,
		Synthetic: true, Ratios: []float64{0.1}, Jobs: 2, Out: out}
	if err := Study(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	recs, err := readStudy(filepath.Join(out, StudyFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 5 {
		t.Fatalf("%d records, want 5 (glass and 4 synthetic tables)", len(recs))
	}
	kinds := map[string]bool{}
	for _, r := range recs {
		kinds[r.Kind] = true
		if r.Group == "synthetic" && (r.N < 100 || math.Abs(r.TrueRatio-0.1) > 0.01) {
			t.Errorf("%s: n %d, true ratio %v: want 100 normals and ratio 0.1", r.Table, r.N, r.TrueRatio)
		}
		want := []string{"old", "iforest"}
		for _, w := range Weights {
			want = append(want, sourceKey(w))
		}
		for _, s := range want {
			se, ok := r.Sources[s]
			if !ok {
				t.Fatalf("%s: no source %s", r.Table, s)
			}
			if !(se.ROCAUC >= 0 && se.ROCAUC <= 1 && se.PRAUC > 0 && se.PRAUC <= 1) {
				t.Errorf("%s %s: ROCAUC %v PRAUC %v", r.Table, s, se.ROCAUC, se.PRAUC)
			}
			for _, rule := range threshold.All() {
				re, ok := se.Rules[rule.Name()]
				if !ok || !(re.Ratio >= 0 && re.Ratio <= 1) {
					t.Errorf("%s %s: rule %s: %+v, %v", r.Table, s, rule.Name(), re, ok)
				}
			}
		}
		if _, ok := r.Sources["old"].Rules["dynamics"]; !ok {
			t.Errorf("%s: the old default's own threshold is not judged", r.Table)
		}
		if _, err := os.Stat(scorePath(filepath.Join(out, "scores"), r.Table, r.Seed)); err != nil {
			t.Errorf("%s: scores not kept: %v", r.Table, err)
		}
	}
	for _, k := range []string{"", "local", "global", "dependency", "clustered"} {
		if !kinds[k] {
			t.Errorf("no table of kind %q", k)
		}
	}
	// Re-evaluation from the kept scores gives what the fit recorded.
	fresh, err := readStudy(filepath.Join(out, StudyFile)) // maps of its own: reevaluate writes into them
	if err != nil {
		t.Fatal(err)
	}
	again := reevaluate(fresh, filepath.Join(out, "scores"), 2)
	def := sourceKey(method.DistanceWeight)
	for i := range recs {
		a, b := recs[i].Sources[def], again[i].Sources[def]
		if math.Abs(a.ROCAUC-b.ROCAUC) > 1e-9 {
			t.Errorf("%s: ROCAUC %v recorded, %v re-evaluated", recs[i].Table, a.ROCAUC, b.ROCAUC)
		}
	}
	if err := Study(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if again, _ := readStudy(filepath.Join(out, StudyFile)); len(again) != 5 {
		t.Errorf("a rerun left %d records, want the same 5", len(again))
	}
	b, err := os.ReadFile(filepath.Join(out, StudyReport))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Scores: mean ROCAUC / PRAUC", "## Thresholds", "### source " + def, "| glass (1 seeds) |", "Best distance weight"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// TestStudyGeneratorSeed checks that the generator seed draws other synthetic tables
// from the same normal rows (and the same ones again when repeated), leaves the paper
// sets alone, and that a folder of one seed's tables refuses to be resumed with another.
func TestStudyGeneratorSeed(t *testing.T) {
	dir := odds.FindDir()
	if _, err := os.Stat(filepath.Join(dir, "glass.mat")); err != nil {
		t.Skipf("no ODDS glass.mat in %q (set UDOCC_DATA): %v", dir, err)
	}
	o := StudyOptions{Data: dir, Datasets: []string{"glass"}, Seeds: []uint64{0}, MaxNormals: 100,
		Synthetic: true, Ratios: []float64{0.1}}
	tables := func(seed uint64) []studyTable {
		o.GeneratorSeed = seed
		ts, err := studyTables(o)
		if err != nil {
			t.Fatal(err)
		}
		if len(ts) != 5 {
			t.Fatalf("generator seed %d: %d tables, want glass and 4 synthetic", seed, len(ts))
		}
		return ts
	}
	a, b, again := tables(0), tables(1), tables(1)
	for i := range a {
		same := slices.Equal(a[i].ds.X, b[i].ds.X)
		if a[i].group == "paper" {
			if !same || a[i].genSeed != 0 || b[i].genSeed != 0 {
				t.Errorf("%s: the paper set changed with the generator seed", a[i].name)
			}
			continue
		}
		if same {
			t.Errorf("%s: generator seeds 0 and 1 gave the same rows", a[i].name)
		}
		if b[i].genSeed != 1 || b[i].name != a[i].name {
			t.Errorf("%s: seed %d, name %q; want seed 1 and the same name", a[i].name, b[i].genSeed, b[i].name)
		}
		if !slices.Equal(b[i].ds.X, again[i].ds.X) || !slices.Equal(b[i].ds.Y, again[i].ds.Y) {
			t.Errorf("%s: generator seed 1 twice gave different tables", a[i].name)
		}
	}

	out := t.TempDir()
	rec := StudyRecord{Table: "glass-local-10", Group: "synthetic", Base: "glass", Kind: "local", Ratio: 0.1, GeneratorSeed: 1}
	line, _ := json.Marshal(rec)
	if err := os.WriteFile(filepath.Join(out, StudyFile), append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	o.GeneratorSeed, o.Out = 0, out
	err := Study(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "generator seed 1, not 0") {
		t.Fatalf("resuming seed 1's folder with seed 0: %v; want a refusal naming both seeds", err)
	}

	// A report of a folder without records is refused, and the report there is kept.
	empty := t.TempDir()
	report := filepath.Join(empty, StudyReport)
	if err := os.WriteFile(report, []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	o.Out, o.ReportOnly = empty, true
	if err := Study(context.Background(), o); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), StudyFile) {
		t.Errorf("report of a folder without records: %v; want an error naming %s", err, StudyFile)
	}
	if b, _ := os.ReadFile(report); string(b) != "kept" {
		t.Errorf("the report there became %q", b)
	}
}

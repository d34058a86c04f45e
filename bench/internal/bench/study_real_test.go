package bench

import (
	"context"
	countmodel "github.com/udocc/udocc/internal/count"
	"github.com/udocc/udocc/internal/threshold"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/udocc/udocc/data"
	udocc "github.com/udocc/udocc/internal/detector"
	"github.com/udocc/udocc/internal/method"
	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/odds"
)

func glassPath(t *testing.T) (string, string) {
	t.Helper()
	dir := odds.FindDir()
	p := filepath.Join(dir, "glass.mat")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no ODDS glass.mat in %q (set UDOCC_DATA): %v", dir, err)
	}
	return dir, p
}

// TestRealOnePipeline: the study's default scores are the library's: the real group's fit
// of a table gives the very scores and labels udocc.FitDataset gives it with the default
// options, and the two parts the paper/synthetic study splits them into add up to the
// same scores at the default distance weight. The table is glass under the name of
// another paper set (arrhythmia), whose paper widths differ from the default's: the
// study, like the library, takes no widths from a table's name (it once did, and its
// corpus fits of mnist and arrhythmia were not the product's).
func TestRealOnePipeline(t *testing.T) {
	_, glass := glassPath(t)
	if h, ok := models.Preset("arrhythmia"); !ok || slices.Equal(h, models.EnsembleHidden(9)) {
		t.Fatalf("arrhythmia's paper widths %v are the default's: the test would not tell", h)
	}
	b, err := os.ReadFile(glass)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "arrhythmia.mat")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	rec, raw, err := realFit(context.Background(), realTable{name: "glass", group: "paper", path: path}, 3, "cpu", 0)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := data.Load(path, data.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := udocc.FitDataset(context.Background(), ds, nil, udocc.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	want := m.Scores()
	if len(raw.Scores) != len(want) || rec.N != ds.N {
		t.Fatalf("%d study scores of %d rows, the library %d of %d", len(raw.Scores), rec.N, len(want), ds.N)
	}
	for i := range want {
		if raw.Scores[i] != want[i] {
			t.Fatalf("row %d: study score %v, library %v", i, raw.Scores[i], want[i])
		}
	}
	if raw.Flagged != int(math.Round(m.Ratio()*float64(ds.N))) || rec.Default.Selected != m.Ratio() {
		t.Errorf("study flags %d rows (ratio %v), the library %v", raw.Flagged, rec.Default.Selected, m.Ratio())
	}
	// The count study's learned count, drawn from the raw scores with the product's own
	// code, flags the rows the library flagged, with the library's interval.
	cm, err := countmodel.Default()
	if err != nil {
		t.Fatal(err)
	}
	members, distRec := countmodel.Agreements(raw.Dist, raw.Rec)
	est, err := cm.Estimate(&countmodel.Inputs{Final: raw.Scores, Screen: raw.Screen, MemberAgreement: members, DistRecAgreement: distRec})
	if err != nil {
		t.Fatal(err)
	}
	k := min(max(int(est.Share*float64(ds.N)+0.5), 1), ds.N-1)
	thr, err := threshold.TopCount(raw.Scores, k)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := m.RatioInterval()
	if got := threshold.Count(raw.Scores, thr); got != raw.Flagged || est.Low != lo || est.High != hi {
		t.Errorf("the study's learned count flags %d rows in [%v, %v], the library %d in [%v, %v]", got, est.Low, est.High, raw.Flagged, lo, hi)
	}
	if len(raw.Dist) != method.EnsembleSize || len(raw.Rec) != method.EnsembleSize || len(raw.Screen) != ds.N {
		t.Fatalf("%d members' distances, %d reconstruction errors, %d screening scores", len(raw.Dist), len(raw.Rec), len(raw.Screen))
	}
	dist, recs := make([][]float64, len(raw.Dist)), make([][]float64, len(raw.Rec))
	for k := range dist {
		dist[k], recs[k] = widen(raw.Dist[k]), widen(raw.Rec[k])
	}
	parts, err := ensembleScores(dist, recs, ds.Y)
	if err != nil {
		t.Fatal(err)
	}
	w := method.DistanceWeight
	for i := range want {
		if got := w*parts.D[i] + (1-w)*parts.R[i]; math.Abs(got-want[i]) > 1e-9*(1+math.Abs(want[i])) {
			t.Fatalf("row %d: the study's source w%.2f is %v, the library's score %v", i, w, got, want[i])
		}
	}
}

// TestStudyReal runs the real group on one small paper set and seed: one record with
// sane numbers, its raw file, a rerun that fits nothing, a report with its sections, and
// the learned candidates measured without the table itself.
func TestStudyReal(t *testing.T) {
	dir, _ := glassPath(t)
	out := t.TempDir()
	o := RealOptions{Paper: dir, Datasets: []string{"glass", "wbc"}, Seeds: []uint64{0}, Out: out}
	if _, err := os.Stat(filepath.Join(dir, "wbc.mat")); err != nil {
		t.Skipf("no ODDS wbc.mat in %q: %v", dir, err)
	}
	if err := StudyReal(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	recs, err := readReal(filepath.Join(out, RealFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	for _, r := range recs {
		if r.N != r.FullN || !(r.TrueRatio > 0 && r.TrueRatio < 0.1) || !(r.Default.ROCAUC > 0.5) || !(r.IForest.ROCAUC > 0.5) ||
			!(r.Default.Selected > 0 && r.Default.Selected < 1) {
			t.Errorf("record %+v", r)
		}
		if _, err := readRaw(filepath.Join(out, RealRaw), r); err != nil {
			t.Error(err)
		}
	}
	if err := StudyReal(context.Background(), o); err != nil { // everything done: fits nothing
		t.Fatal(err)
	}
	if again, _ := readReal(filepath.Join(out, RealFile)); len(again) != 2 {
		t.Errorf("a rerun left %d records, want 2", len(again))
	}
	b, err := os.ReadFile(filepath.Join(out, RealReport))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"## Scores per table", "## Candidate counts", "| glass |", "fixed-10%", "gammagmm/paper", "loto/best-single"} {
		if !strings.Contains(string(b), s) {
			t.Errorf("report lacks %q", s)
		}
	}
	// Leave one table out: a table's learned share does not move when its own true share
	// is changed.
	cases := realCases(recs, filepath.Join(out, RealRaw), 1)
	addCalibrated(cases, "c", []string{"rule/kmeans"})
	before := cases[0].ratios["c"]
	cases[0].r.TrueRatio *= 3
	addCalibrated(cases, "c", []string{"rule/kmeans"})
	if cases[0].ratios["c"] != before {
		t.Errorf("the learned share of %s moved from %v to %v with its own true share", cases[0].r.Table, before, cases[0].ratios["c"])
	}
}

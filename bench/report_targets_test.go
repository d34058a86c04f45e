package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// targetLines are the runs of TestTargets: cardio (n 90, 9 anomalies, true ratio 0.1,
// bound 40.5) and thyroid (n 80, 2 anomalies, true ratio 0.025, bound 39), each with
// OC+TAR and two proposed variants over seeds 0 and 1, their selected ratio, F1,
// training set sizes and per-epoch selected ratios set by hand:
//
//	                    selected ratio (÷ true)   F1 (− OC+TAR's)     smallest train size
//	cardio  proposed    0.12, 0.14 → 1.30  in     46, 48 → −3  in     85, 85
//	cardio  paper       0.20, 0.22 → 2.10  out    60, 60 → +10 in     2 (below 40.5), 41
//	thyroid proposed    0.02, 0.02 → 0.80  in     20, 20 → −10 out    75, 39 (not below 39)
//	thyroid paper       0.010, 0.012 → 0.44 out   25, 27 → −4  in     75, 75
//
// with OC+TAR's F1 50 on cardio and 30 on thyroid.
func targetLines() []Line {
	type run struct {
		ds, method string
		n, anom    int
		sel, f1    [2]float64
	}
	runs := []run{
		{"cardio", "tar", 90, 9, [2]float64{0.1, 0.1}, [2]float64{0.5, 0.5}},
		{"cardio", "proposed", 90, 9, [2]float64{0.12, 0.14}, [2]float64{0.46, 0.48}},
		{"cardio", "proposed:paper", 90, 9, [2]float64{0.20, 0.22}, [2]float64{0.6, 0.6}},
		{"thyroid", "tar", 80, 2, [2]float64{0.025, 0.025}, [2]float64{0.3, 0.3}},
		{"thyroid", "proposed", 80, 2, [2]float64{0.02, 0.02}, [2]float64{0.2, 0.2}},
		{"thyroid", "proposed:paper", 80, 2, [2]float64{0.010, 0.012}, [2]float64{0.25, 0.27}},
	}
	var lines []Line
	for _, r := range runs {
		for seed := range uint64(2) {
			l := fakeLine(r.ds, r.method, seed, r.n, r.anom, 0.5, 0.2, r.f1[seed])
			l.SelectedRatio = Num(r.sel[seed])
			lines = append(lines, l)
		}
	}
	at := func(ds, method string, seed uint64) *Line {
		for i := range lines {
			if l := &lines[i]; l.Dataset == ds && l.Base == "proposed" && strings.HasPrefix(l.Method, method) && l.Seed == seed {
				return l
			}
		}
		panic("no line " + ds + " " + method)
	}
	at("cardio", "proposed:paper", 0).Epochs.TrainSize = []int{90, 2, 40}
	at("cardio", "proposed:paper", 1).Epochs.TrainSize = []int{90, 41, 41}
	at("thyroid", "proposed:paper", 0).Epochs.TrainSize = []int{80, 80, 75}
	at("thyroid", "proposed", 1).Epochs.TrainSize = []int{80, 39, 60}
	// Spreads over the last 25 epochs: {0.1, 0.3} has std 0.1, a constant run 0; the
	// 30-epoch run is 0.9 for 5 epochs, then 0.2 for its last 25 (std 0 there, not over
	// all 30). Both cells average 0.05.
	at("cardio", "proposed", 0).Epochs.SelectedRatio = []Num{NaN(), 0.1, 0.3}
	at("cardio", "proposed", 1).Epochs.SelectedRatio = []Num{NaN(), 0.2, 0.2}
	long := []Num{NaN(), 0.9, 0.9, 0.9, 0.9}
	for range 25 {
		long = append(long, 0.2)
	}
	at("thyroid", "proposed", 0).Epochs.SelectedRatio = long
	at("thyroid", "proposed", 1).Epochs.SelectedRatio = []Num{NaN(), 0.1, 0.3}
	return lines
}

// TestTargets writes a report from targetLines and checks the targets section's rows
// and counts against the hand-computed values in targetLines' table.
func TestTargets(t *testing.T) {
	out := t.TempDir()
	lines := targetLines()
	f, err := os.Create(filepath.Join(out, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(f)
	for i := range lines {
		if err := enc.Encode(&lines[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	md := reportText(t, out)
	def := "`proposed` (" + lines[2].Rule + ")"
	paper := "`proposed:paper/largest`"
	for _, c := range []struct{ name, want string }{
		{"summary of the default", "| " + def + " | 2 of 2 (target ≥ 8 of 10) | 1 of 2 (target ≥ 7 of 10) | 0 of 4 |"},
		{"summary of the paper rule", "| " + paper + " | 0 of 2 (target ≥ 8 of 10) | 2 of 2 (target ≥ 7 of 10) | 1 of 4 |"},
		{"ratio within", "| cardio | " + def + " | 2 | 0.100 | 0.130 ± 0.010 | 1.30 | yes |"},
		{"ratio below the factor", "| thyroid | " + paper + " | 2 | 0.025 | 0.011 ± 0.001 | 0.44 | **no** |"},
		{"ratio above the factor", "| cardio | " + paper + " | 2 | 0.100 | 0.210 ± 0.010 | 2.10 | **no** |"},
		{"ratio prose", paper + " is within a factor of 1.5 on 0 of 2 data sets run (target: at least 8 of 10) and is open: it needs 8 more within among the 8 data sets not run yet. Too few anomalies selected on thyroid (0.44×). Too many on cardio (2.10×)."},
		{"F1 far below", "| thyroid | " + def + " | 2 | 20.0 ± 0.0 | 30.0 ± 0.0 | -10.0 | **no** |"},
		{"F1 above the oracle is within", "| cardio | " + paper + " | 2 | 60.0 ± 0.0 | 50.0 ± 0.0 | +10.0 | yes |"},
		{"F1 prose", "More than 5 points below on thyroid (-10.0)."},
		{"AUC beside the paper", "| cardio | " + lines[2].Rule + " | 50.0 ± 0.0 | 85.2 ± 4.5 | 50.0 ± 0.0 | 20.0 ± 0.0 | 44.5 ± 12.0 | 20.0 ± 0.0 |"},
		{"collapse below", "| cardio | " + paper + " | 2 | 2 | 40.5 | **1** |"},
		{"collapse at the bound is not below", "| thyroid | " + def + " | 2 | 39 | 39 | 0 |"},
		{"collapse total", "**1 runs of 8 fell below half the true normal count** (" + def + " 0 of 4, " + paper + " 1 of 4)."},
		{"spread of the last epochs", "| cardio | 0.0500 |"},
		{"spread of the last 25 of 30 epochs", "| thyroid | 0.0500 |"},
		{"figure", "![selected anomaly ratio against the true ratio](figures/ratio_vs_true.png)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(md, c.want) {
				t.Errorf("report lacks %q", c.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(out, FiguresDir, "ratio_vs_true.png")); err != nil {
		t.Error(err)
	}
}

// TestTargetVerdict pins the verdict on a target of 8 of 10 data sets, with the data
// sets not run yet counted as open.
func TestTargetVerdict(t *testing.T) {
	for _, c := range []struct {
		name     string
		hit, ran int
		want     string
	}{
		{"met", 8, 10, "meets the target"},
		{"met before all ran", 8, 8, "meets the target"},
		{"missed with all run", 7, 10, "**misses the target**"},
		{"missed whatever the rest do", 2, 5, "**misses the target** even if all 5 data sets not run yet meet it"},
		{"still open", 3, 5, "is open: it needs 5 more within among the 5 data sets not run yet"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := targetVerdict(c.hit, c.ran, 8); got != c.want {
				t.Errorf("targetVerdict(%d, %d, 8) = %q, want %q", c.hit, c.ran, got, c.want)
			}
		})
	}
}

// TestVariants checks that plain proposed makes one variant per δ rule it recorded, so
// that runs of two default rules are never averaged together.
func TestVariants(t *testing.T) {
	var lines []Line
	for _, ds := range []string{"cardio", "thyroid"} {
		lines = append(lines, fakeLine(ds, "proposed", 0, 90, 9, 0.5, 0.2, 0.1), fakeLine(ds, "proposed:paper", 0, 90, 9, 0.5, 0.2, 0.1))
	}
	lines[2].Rule = "older"
	r := collect(&Results{Lines: lines}, nil)
	got := variantList(r.variants())
	want := "`proposed` (" + lines[0].Rule + "), `proposed` (older), `proposed:paper/largest`"
	if got != want {
		t.Errorf("variants = %s, want %s", got, want)
	}
}

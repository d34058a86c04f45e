package bench

import (
	"encoding/json"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// fakeLine is a results line of a made-up run whose metrics are set by the test.
func fakeLine(dataset, method string, seed uint64, n, anomalies int, roc, pr, f1 float64) Line {
	s, err := ParseSpec(method)
	if err != nil {
		panic(err)
	}
	l := Line{
		Dataset: dataset, File: dataset + ".mat", DataSHA: "abc", N: n, D: 3, Anomalies: anomalies,
		TrueRatio: Num(float64(anomalies) / float64(n)), Method: s.Name, Base: s.Method, Rule: s.RuleLabel(), Seed: seed,
		Param: NaN(), ROCAUC: Num(roc), PRAUC: Num(pr), F1: Num(f1), Precision: Num(f1), Recall: Num(f1),
		SelectedRatio: NaN(), DeltaBar: NaN(), Threshold: NaN(),
		Timing:   Timing{GroupID: "1", PretrainSeconds: 2, FinetuneSeconds: 3, EpochSeconds: []float64{0.1, 0.1, 0.1}, GroupSize: 18, GroupSeeds: 3, Threads: 1},
		Config:   recordConfig(DefaultOptions().Train),
		Versions: Versions{Udocc: "test", Libtorch: "1.13.0", Go: "go"},
		Device:   "cpu", Group: "dataset", Session: "s1", Finished: time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC).Format(time.RFC3339Nano),
	}
	if s.Method == "oc" {
		l.F1, l.Precision, l.Recall = NaN(), NaN(), NaN()
	} else {
		l.SelectedRatio = Num(float64(anomalies) / float64(n))
	}
	if s.Method == "proposed" {
		bar := float64(n - anomalies - int(seed))
		l.DeltaBar, l.SelectedRatio = Num(bar), Num((float64(n)-bar)/float64(n))
		l.Epochs = &EpochTrace{
			DeltaStar:     []int{0, n - 1, n - anomalies},
			DeltaBar:      []Num{NaN(), Num(n - 1), Num(bar)},
			SelectedRatio: []Num{NaN(), Num(1 / float64(n)), l.SelectedRatio},
			Ties:          []int{0, 3, 1}, MinScaled: []Num{NaN(), 0, 0.1}, TrainSize: []int{n, n, n - 5},
			Floored: []bool{false, false, false},
		}
		l.Search = &SearchStats{Epochs: 2, HighEdge: 1, Tied: 1}
		l.Crossings = make([]int, n+1)
		for d := range l.Crossings {
			l.Crossings[d] = int(math.Abs(float64(d-(n-anomalies)))) + int(seed)
		}
	}
	return l
}

// TestWriteReport writes a report from a made-up results file: two data sets of the
// paper, every method and a rule variant, three seeds. Cardio's OC equals the paper's
// mean and its SB is 30 points off, so the comparison columns are known.
func TestWriteReport(t *testing.T) {
	out := t.TempDir()
	var lines []Line
	for _, ds := range []struct {
		name    string
		n, anom int
	}{{"cardio", 90, 9}, {"thyroid", 80, 2}} {
		for _, m := range []string{"sb", "oc", "otsu", "tar", "proposed", "proposed:paper/smallest"} {
			for seed := range uint64(3) {
				roc, pr, f1 := 0.5, 0.2, 0.1
				if ds.name == "cardio" && m == "oc" {
					roc, pr = 0.806, 0.318 // Table II exactly
				}
				if ds.name == "cardio" && m == "sb" {
					roc = 0.424 + 0.01*float64(seed) // 30 points below 72.4 ± 6.2
				}
				lines = append(lines, fakeLine(ds.name, m, seed, ds.n, ds.anom, roc, pr, f1))
			}
		}
	}
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
	f.Close()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := putSession(filepath.Join(out, SessionsFile), Session{ID: "s1", Start: start, Planned: len(lines), Trained: len(lines), Jobs: 1, Group: "dataset", Device: "cpu"}); err != nil {
		t.Fatal(err)
	}

	md := reportText(t, out)
	for _, want := range []string{
		"## ROCAUC (paper Tables II and IV)",
		"## PRAUC (paper Tables II and IV)",
		"## F1 (paper Tables III and IV)",
		"| cardio | oc | 3 | 80.6 ± 0.0 | 80.6 ± 4.4 | II | +0.0 | yes |",
		"| cardio | sb | 3 | 43.4 ± 0.8 | 72.4 ± 6.2 | II | -29.0 | **no** |",
		"| thyroid | tar | 3 | 50.0 ± 0.0 | 91.8 ± 3.8 | IV | -41.8 | **no** |",
		"| cardio | proposed:paper/smallest | 3 |",
		"population standard deviation",
		"## Selected anomaly ratio against the true ratio (paper Fig. 4)",
		"| cardio | proposed | 3 | 0.100 | 0.111 ± 0.009 |",
		"## Eq. (5) accumulated over all epochs (paper Fig. 3)",
		"| cardio | proposed | 3 | 81 | 0.100 | 0.100 | 1.00 |",
		"**Total wall time of the grid: 1m0s** over 1 session(s)",
		"36 readable lines; no unreadable lines",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// Within the paper's std: cardio's OC (ROCAUC, PRAUC); PRAUC 20 of cardio's SB and of
	// thyroid's SB, OC and OC+Otsu; F1 10 of both OC+Otsu. 8 of 34 comparisons.
	if !strings.Contains(md, "in 26 of 34 comparisons** (ROCAUC 11 of 12, PRAUC 7 of 12, F1 8 of 10)") {
		t.Errorf("report lacks the verdict 26 of 34 beyond the paper's std")
	}
	links := regexp.MustCompile(`\]\((figures/[^)]+\.png)\)`).FindAllStringSubmatch(md, -1)
	want := map[string]bool{"figures/fig3_cardio.png": false, "figures/fig3_thyroid.png": false, "figures/fig4_cardio.png": false, "figures/fig4_thyroid.png": false}
	for _, l := range links {
		want[l[1]] = true
		f, err := os.Open(filepath.Join(out, l[1]))
		if err != nil {
			t.Errorf("linked figure: %v", err)
			continue
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || cfg.Width < 100 {
			t.Errorf("%s is not a PNG figure: %v", l[1], err)
		}
	}
	for name, linked := range want {
		if !linked {
			t.Errorf("report does not show %s", name)
		}
	}
}

// TestCompareWithin pins the comparison rule: ours, rounded to one decimal as the paper
// prints, within the paper's std of its mean.
func TestCompareWithin(t *testing.T) {
	for _, c := range []struct {
		name string
		ours float64
		want bool
	}{
		{"equal", 80.6, true},
		{"at the std", 76.2, true},
		{"rounds onto the std", 85.04, true},
		{"just beyond", 85.06, false},
		{"far below", 50, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmp := comparison{ours: stat{Mean: c.ours, K: 3}, paper: paperCell{80.6, 4.4}, hasPaper: true}
			if got := cmp.within(); got != c.want {
				t.Errorf("within(%g vs 80.6 ± 4.4) = %v, want %v", c.ours, got, c.want)
			}
		})
	}
}

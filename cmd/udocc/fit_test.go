package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/udocc/udocc/internal/method"
	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/odds"
)

// figureFiles are the four figures of a proposed fit.
var figureFiles = []string{"delta_curve.png", "selected_ratio.png", "scores.png", "loss.png"}

// TestFitCSV fits a generated CSV with the paper's method (--preset paper), its label
// column named by --label and no --out, and checks every output in udocc-out/<data
// name>, δ̄ and the figures of proposed included. The default method's outputs are
// TestEnsembleFit's.
func TestFitCSV(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const n = 200
	tab := writeTable(t, filepath.Join(dir, "table.csv"), n, 3, true, 1)
	r := mustUdocc(t, dir, fitArgs("--preset", "paper", "--label", "y", "table.csv")...)
	out := filepath.Join(dir, "udocc-out", "table")

	t.Run("report names the table on stdout", func(t *testing.T) {
		if want := "udocc fit: table (200 rows x 3 features), method proposed, seed 0 on cpu"; !strings.Contains(r.stdout, want) {
			t.Errorf("stdout %q lacks %q", r.stdout, want)
		}
		if r.stderr != "" {
			t.Errorf("--quiet, but stderr %q", r.stderr)
		}
	})
	t.Run("every output exists, no temporary file is left", func(t *testing.T) {
		files := append([]string{"scores.csv", "summary.json", "history.csv", "model/model.json", "model/member-0.pt"}, figureFiles...)
		for _, f := range files {
			if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
				t.Errorf("%s: %v", f, err)
			}
		}
		if l := leftovers(t, out); len(l) > 0 {
			t.Errorf("temporary files left: %v", l)
		}
		if fi, err := os.Stat(filepath.Join(out, "model")); err != nil || fi.Mode().Perm()&0o055 != 0o055 {
			t.Errorf("model folder: %v, mode %v; want it readable by all, as the other outputs", err, fi.Mode())
		}
	})
	s := readSummary(t, filepath.Join(out, "summary.json"))
	t.Run("summary describes the fit", func(t *testing.T) {
		if s["method"] != "proposed" || number(t, s, "n") != n || number(t, s, "d") != 3 || s["device"] != "cpu" {
			t.Errorf("method %v, n %v, d %v, device %v; want proposed, 200, 3 (the label is no feature), cpu",
				s["method"], s["n"], s["d"], s["device"])
		}
		cfg, _ := s["config"].(map[string]any)
		want := map[string]any{"arch": []any{32.0, 16.0, 8.0}, "pretrain_epochs": 2.0, "epochs": 4.0,
			"batch_size": 128.0, "lr": 1e-3, "weight_decay": 1e-6, "preset": "paper", "threshold_rule": "accumulated"}
		for k, v := range want {
			got, _ := json.Marshal(cfg[k])
			exp, _ := json.Marshal(v)
			if !bytes.Equal(got, exp) {
				t.Errorf("config %s = %s, want %s", k, got, exp)
			}
		}
		if got := number(t, s, "true_ratio"); got != 0.1 {
			t.Errorf("true_ratio %v, want 0.1", got)
		}
	})
	sc := readCSV(t, filepath.Join(out, "scores.csv"))
	t.Run("scores.csv has a row per input row and the right header", func(t *testing.T) {
		want := []string{"row", "score", "rank", "label", "probability", "true_label", "feature_1", "share_1", "feature_2", "share_2", "feature_3", "share_3"}
		if !slices.Equal(sc.header, want) {
			t.Fatalf("header %v, want %v", sc.header, want)
		}
		if len(sc.rows) != n {
			t.Fatalf("%d rows, want %d", len(sc.rows), n)
		}
		for i, v := range sc.col(t, "row") {
			if v != strconv.Itoa(i+1) { // 1-based
				t.Fatalf("row %d is numbered %s", i, v)
			}
		}
		for i, v := range sc.col(t, "true_label") {
			if v != strconv.Itoa(tab.y[i]) {
				t.Fatalf("row %d: true_label %s, the file says %d", i, v, tab.y[i])
			}
		}
	})
	t.Run("ranks order the scores, 1 the most anomalous", func(t *testing.T) {
		scores, ranks := sc.floats(t, "score"), sc.floats(t, "rank")
		byRank := make([]float64, n)
		for i, r := range ranks {
			if r < 1 || r > n || byRank[int(r)-1] != 0 {
				t.Fatalf("row %d: rank %v is out of range or repeated", i, r)
			}
			byRank[int(r)-1] = scores[i] + 1 // scores are ≥ 0; +1 marks the slot taken
		}
		slices.Reverse(byRank)
		if !slices.IsSorted(byRank) {
			t.Error("scores do not fall with rank")
		}
	})
	t.Run("labels are the scores above the threshold", func(t *testing.T) {
		checkLabels(t, sc, s, "score", "label")
	})
	t.Run("history.csv has one row per epoch", func(t *testing.T) {
		h := readCSV(t, filepath.Join(out, "history.csv"))
		for _, c := range []string{"epoch", "loss", "train_size", "delta_star", "delta_bar", "selected_ratio", "rocauc", "prauc", "f1"} {
			h.col(t, c)
		}
		if len(h.rows) != tinyEpochs {
			t.Fatalf("%d rows, want %d", len(h.rows), tinyEpochs)
		}
		for i, e := range h.col(t, "epoch") {
			if e != strconv.Itoa(i+1) {
				t.Errorf("row %d is epoch %s", i, e)
			}
		}
		last := len(h.rows) - 1
		for _, k := range []string{"delta_bar", "selected_ratio"} {
			got, err := strconv.ParseFloat(h.col(t, k)[last], 64)
			if err != nil || got != number(t, s, k) {
				t.Errorf("last epoch's %s %v (%v), summary's %v", k, got, err, number(t, s, k))
			}
		}
		for _, v := range h.floats(t, "loss") {
			if !(v >= 0) || math.IsInf(v, 0) {
				t.Errorf("loss %v", v)
			}
		}
	})
	t.Run("figures are PNG images", func(t *testing.T) {
		for _, f := range figureFiles {
			checkPNG(t, filepath.Join(out, f))
		}
	})
}

// checkLabels checks that the label column is 1 exactly where the score column is above
// the summary's threshold, and that the summary's flagged counts them.
func checkLabels(t *testing.T, sc csvFile, s map[string]any, scoreCol, labelCol string) {
	t.Helper()
	thr := number(t, s, "threshold")
	flagged := 0
	for i, sv := range sc.floats(t, scoreCol) {
		want := "0"
		if sv > thr {
			want = "1"
			flagged++
		}
		if got := sc.col(t, labelCol)[i]; got != want {
			t.Fatalf("row %d: score %v, threshold %v, label %q, want %q", i, sv, thr, got, want)
		}
	}
	if got := number(t, s, "flagged"); int(got) != flagged {
		t.Errorf("summary flagged %v, scores.csv has %d", got, flagged)
	}
}

// TestFitODDS fits the smallest ODDS benchmark file with the default method, whose name
// picks the paper's architecture and whose y variable gives the metrics.
func TestFitODDS(t *testing.T) {
	t.Parallel()
	odds := odds.FindDir()
	path := filepath.Join(odds, "glass.mat")
	if _, err := os.Stat(path); odds == "" || err != nil {
		t.Skipf("glass.mat not found (ODDS folder %q): set UDOCC_DATA or run 'udocc-bench datasets fetch glass'", odds)
	}
	path, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mustUdocc(t, dir, fitArgs("--out", "glass", path)...)
	s := readSummary(t, filepath.Join(dir, "glass", "summary.json"))
	if number(t, s, "n") != 214 || number(t, s, "d") != 9 || s["data"] != "glass" || s["method"] != "ensemble" {
		t.Errorf("data %v, n %v, d %v, method %v; want glass, 214, 9, ensemble", s["data"], s["n"], s["d"], s["method"])
	}
	preset, _ := models.Preset("glass")
	got, _ := json.Marshal(s["config"].(map[string]any)["arch"])
	want, _ := json.Marshal(preset)
	if !bytes.Equal(got, want) {
		t.Errorf("arch %s, want %s", got, want)
	}
	if tr := number(t, s, "true_ratio"); !closeEnough(tr, 9.0/214) {
		t.Errorf("true_ratio %v, want 9/214", tr)
	}
	for _, k := range []string{"rocauc", "prauc", "f1", "precision", "recall"} {
		if v := number(t, s, k); v < 0 || v > 1 {
			t.Errorf("%s %v outside [0, 1]", k, v)
		}
	}
	sc := readCSV(t, filepath.Join(dir, "glass", "scores.csv"))
	if len(sc.rows) != 214 {
		t.Errorf("scores.csv: %d rows, want 214", len(sc.rows))
	}
	anomalies := 0
	for _, v := range sc.col(t, "true_label") {
		if v == "1" {
			anomalies++
		}
	}
	if anomalies != 9 {
		t.Errorf("scores.csv's true_label holds %d anomalies, want glass's 9", anomalies)
	}
}

// summaryKeys are the keys summary.json must have; labelKeys those it must have for a
// table with known labels.
var (
	summaryKeys = []string{"method", "n", "d", "config", "seed", "device", "libtorch", "delta_bar",
		"selected_ratio", "threshold", "timings"}
	labelKeys = []string{"rocauc", "prauc", "f1", "precision", "recall", "true_ratio"}
)

// TestFitJSON checks that --json prints summary.json, whole and alone, on stdout while
// progress goes on to stderr.
func TestFitJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 120, 3, true, 2)
	r := mustUdocc(t, dir, "fit", "--pretrain-epochs", "2", "--epochs", "4", "--json", "--label", "y", "--out", "o", "table.csv")

	t.Run("stdout is one JSON object and nothing else", func(t *testing.T) {
		dec := json.NewDecoder(strings.NewReader(r.stdout))
		var v map[string]any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("stdout %q: %v", r.stdout, err)
		}
		if _, err := dec.Token(); err != io.EOF {
			t.Errorf("more than one JSON value on stdout: %q", r.stdout)
		}
	})
	t.Run("stdout is summary.json", func(t *testing.T) {
		b, err := os.ReadFile(filepath.Join(dir, "o", "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != r.stdout {
			t.Errorf("stdout differs from summary.json:\n%s\nvs\n%s", r.stdout, b)
		}
	})
	var s map[string]any
	json.Unmarshal([]byte(r.stdout), &s)
	t.Run("summary has every key of the issue", func(t *testing.T) {
		for _, k := range append(slices.Clone(summaryKeys), labelKeys...) {
			if _, ok := s[k]; !ok {
				t.Errorf("no key %q", k)
			}
		}
		for _, k := range append([]string{"n", "d", "seed", "selected_ratio", "threshold"}, labelKeys...) {
			number(t, s, k)
		}
		// The default method thresholds the ensemble's combined score and searches no δ.
		if s["method"] != "ensemble" || s["delta_bar"] != nil {
			t.Errorf("method %v, delta_bar %v; want ensemble and null", s["method"], s["delta_bar"])
		}
		tm, _ := s["timings"].(map[string]any)
		if v, ok := tm["total_seconds"].(float64); !ok || !(v > 0) {
			t.Errorf("timings %v, want a positive total_seconds", s["timings"])
		}
	})
	t.Run("summary names the libtorch that version prints", func(t *testing.T) {
		v := inProcess("version")
		if lt, _ := s["libtorch"].(string); lt == "" || !strings.Contains(v.stdout, "libtorch "+lt+" ") {
			t.Errorf("summary libtorch %q, version says %q", s["libtorch"], v.stdout)
		}
	})
	t.Run("progress goes to stderr in plain lines", func(t *testing.T) {
		// stderr is a pipe here, not a terminal: the reading, a stage's first and last
		// epochs (these stages take well under lineEvery), then what the steps after
		// training did.
		lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
		screen := method.EnsembleConfig().ScreenEpochs
		want := []string{"read:", fmt.Sprintf("screen-pretrain epoch 1/%d", screen), fmt.Sprintf("screen-pretrain epoch %d/%d", screen, screen),
			fmt.Sprintf("screen-finetune epoch 1/%d", tinyEpochs), fmt.Sprintf("screen-finetune epoch %d/%d", tinyEpochs, tinyEpochs),
			"pretrain epoch 1/2", "pretrain epoch 2/2", "finetune epoch 1/4", "finetune epoch 4/4", "trained and scored:", "explained:", "written:"}
		if len(lines) != len(want) || strings.Contains(r.stderr, "\r") {
			t.Fatalf("stderr %q, want the lines %q", r.stderr, want)
		}
		for i, w := range want {
			if !strings.HasPrefix(lines[i], w+" (") && !(strings.HasSuffix(w, ":") && strings.HasPrefix(lines[i], w+" ")) {
				t.Errorf("stderr line %d is %q, want %q and the time", i+1, lines[i], w)
			}
		}
	})
}

// TestMethods runs each method on a tiny table with the label given by index.
func TestMethods(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const n = 150
	writeTable(t, filepath.Join(dir, "table.csv"), n, 3, true, 4)
	cases := []struct {
		method  string
		ratio   string
		labels  bool     // whether the method labels rows (all but OC)
		figures []string // the figures drawn
	}{
		{"proposed", "", true, figureFiles},
		{"oc", "", false, []string{"scores.png", "loss.png"}},
		{"sb", "0.1", true, []string{"scores.png", "loss.png"}},
		{"otsu", "", true, []string{"selected_ratio.png", "scores.png", "loss.png"}},
		{"tar", "0.1", true, []string{"selected_ratio.png", "scores.png", "loss.png"}},
	}
	for _, c := range cases {
		t.Run(c.method, func(t *testing.T) {
			args := fitArgs("--method", c.method, "--label", "1", "--out", c.method, "table.csv")
			if c.ratio != "" {
				args = append(args, "--ratio", c.ratio)
			}
			mustUdocc(t, dir, args...)
			out := filepath.Join(dir, c.method)
			s := readSummary(t, filepath.Join(out, "summary.json"))
			sc := readCSV(t, filepath.Join(out, "scores.csv"))
			if s["method"] != c.method || len(sc.rows) != n {
				t.Fatalf("method %v, %d score rows; want %s, %d", s["method"], len(sc.rows), c.method, n)
			}
			number(t, s, "rocauc")
			if c.labels {
				checkLabels(t, sc, s, "score", "label")
			} else {
				if v, ok := s["threshold"]; !ok || v != nil {
					t.Errorf("threshold %v (present %v), want null", v, ok)
				}
				if slices.ContainsFunc(sc.col(t, "label"), func(l string) bool { return l != "" }) {
					t.Error("OC wrote labels into scores.csv")
				}
				if s["f1"] != nil {
					t.Errorf("f1 %v without labels", s["f1"])
				}
			}
			if c.method == "tar" {
				if f := number(t, s, "flagged"); math.Abs(f-0.1*n) > 1 {
					t.Errorf("tar with ratio 0.1 flagged %v of %d rows", f, n)
				}
			}
			if c.ratio != "" {
				want, _ := strconv.ParseFloat(c.ratio, 64)
				if got := s["config"].(map[string]any)["ratio"]; got != want {
					t.Errorf("config ratio %v, want %v", got, want)
				}
			}
			if h := readCSV(t, filepath.Join(out, "history.csv")); len(h.rows) != tinyEpochs {
				t.Errorf("history.csv has %d rows, want %d", len(h.rows), tinyEpochs)
			}
			for _, f := range figureFiles {
				_, err := os.Stat(filepath.Join(out, f))
				if want := slices.Contains(c.figures, f); want != (err == nil) {
					t.Errorf("%s drawn: %v, want %v", f, err == nil, want)
				}
			}
			for _, f := range c.figures {
				checkPNG(t, filepath.Join(out, f))
			}
		})
	}
}

// TestDemo runs udocc demo with its default settings (the default ensemble) on the
// built-in table.
func TestDemo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := mustUdocc(t, dir, "demo", "--quiet", "--out", "demo")
	if !strings.Contains(r.stdout, "The table has 100 anomalies in 2000 rows") {
		t.Errorf("stdout %q does not compare with the truth", r.stdout)
	}
	s := readSummary(t, filepath.Join(dir, "demo", "summary.json"))
	if number(t, s, "n") != 2000 || number(t, s, "d") != 8 || number(t, s, "true_ratio") != 0.05 || s["method"] != "ensemble" {
		t.Errorf("n %v, d %v, true_ratio %v, method %v; want 2000, 8, 0.05, ensemble", s["n"], s["d"], s["true_ratio"], s["method"])
	}
	number(t, s, "threshold")
	// The ensemble searches no δ: of the four figures it draws the scores and the losses.
	for _, f := range []string{"scores.png", "loss.png"} {
		checkPNG(t, filepath.Join(dir, "demo", f))
	}
	t.Logf("demo: %v s of training", s["timings"].(map[string]any)["total_seconds"])
}

// TestArch checks the architecture: the default's 32,16,8 for 10 features whatever the
// table's name,
// the paper's widths for a paper set's name under --preset paper only, --arch over
// both, and the saved model's layer sizes.
func TestArch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "pima.csv"), 80, 10, false, 13)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"the default ignores the file name", nil, "[32,16,8]"},
		{"--preset paper: pima's widths by the file name", []string{"--preset", "paper", "--epochs", "2"}, "[32,16,4]"},
		{"--arch over the preset", []string{"--preset", "paper", "--epochs", "2", "--arch", "8,4"}, "[8,4]"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, strconv.Itoa(i))
			mustUdocc(t, dir, fitArgs(append(c.args, "--out", out, "pima.csv")...)...)
			s := readSummary(t, filepath.Join(out, "summary.json"))
			if got, _ := json.Marshal(s["config"].(map[string]any)["arch"]); string(got) != c.want {
				t.Errorf("arch %s, want %s", got, c.want)
			}
			m := readSummary(t, filepath.Join(out, "model", "model.json"))
			if got, _ := json.Marshal(m["sizes"]); string(got) != "[10,"+c.want[1:] {
				t.Errorf("model sizes %s, want the input width 10 and %s", got, c.want)
			}
		})
	}
}

// TestZeroFlagsMeanNone checks that --pretrain-epochs 0 and --screen-epochs 0 still
// mean no pretraining and no screening, now that the library reads a zero field as its
// default: the progress shows neither stage, and summary.json records the zeros.
func TestZeroFlagsMeanNone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "t.csv"), 60, 3, false, 7)
	out := filepath.Join(dir, "out")
	r := mustUdocc(t, dir, "fit", "--pretrain-epochs", "0", "--screen-epochs", "0", "--weight-decay", "0", "--epochs", "2", "--out", out, "t.csv")
	if strings.Contains(r.stderr, "pretrain epoch") || strings.Contains(r.stderr, "screen") || !strings.Contains(r.stderr, "finetune epoch 2/2") {
		t.Errorf("progress shows pretraining or screening, or no fine-tuning:\n%s", r.stderr)
	}
	c := readSummary(t, filepath.Join(out, "summary.json"))["config"].(map[string]any)
	if c["pretrain_epochs"] != 0.0 || c["screen_epochs"] != nil || c["weight_decay"] != 0.0 {
		t.Errorf("config pretrain_epochs %v, screen_epochs %v, weight_decay %v; want 0, none, 0", c["pretrain_epochs"], c["screen_epochs"], c["weight_decay"])
	}
}

// TestWallTimeParts: the fit's report and summary.json split the whole process's wall
// time into its parts, the process's start (libtorch's loading) and the explanations
// among them; a fit run inside another program (in process) reports no start of its own.
func TestWallTimeParts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 200, 3, true, 5)
	r := mustUdocc(t, dir, fitArgs("--label", "y", "--contamination", "0.05", "--out", "o", "table.csv")...)
	s := readSummary(t, filepath.Join(dir, "o", "summary.json"))
	tm, _ := s["timings"].(map[string]any)
	for _, k := range []string{"explain_seconds", "figures_seconds"} {
		if v, ok := tm[k].(float64); !ok || !(v > 0) {
			t.Errorf("timings %v: want a positive %s (10 rows flagged and explained, figures drawn)", tm, k)
		}
	}
	for _, want := range []string{"explaining ", "figures ", "writing "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the wall time's parts lack %q:\n%s", want, r.stdout)
		}
	}
	if _, err := os.Stat("/proc/self/stat"); err == nil {
		if v, ok := tm["start_seconds"].(float64); !ok || !(v > 0 && v < 600) {
			t.Errorf("timings %v: want the process's start in start_seconds", tm)
		}
		if !strings.Contains(r.stdout, "starting ") {
			t.Errorf("the wall time's parts lack the process's start:\n%s", r.stdout)
		}
	}
	in := inProcess(fitArgs("--label", "y", "--contamination", "0.05", "--out", filepath.Join(dir, "p"), filepath.Join(dir, "table.csv"))...)
	if in.code != 0 {
		t.Fatalf("in process: exit %d: %s", in.code, in.stderr)
	}
	ps := readSummary(t, filepath.Join(dir, "p", "summary.json"))
	if v, ok := ps["timings"].(map[string]any)["start_seconds"]; ok {
		t.Errorf("in process: start_seconds %v, want none (the process is the test's)", v)
	}
}

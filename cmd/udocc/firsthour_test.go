package main

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// firstHourCSV writes a table as a user's export has it (issue 42): a header, features
// a..d, a label Outcome (1 = anomaly, 10 % of rows), the first cell of b "NA", a few
// blank cells, and data row 8 (1-based, as scores.csv numbers rows) with no value at all.
func firstHourCSV(t *testing.T, dir string) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(42, 1))
	var b strings.Builder
	b.WriteString("a,b,c,d,Outcome\n")
	for i := range 200 {
		cells := make([]string, 5)
		shift := 0.0
		if i%10 == 3 {
			shift = 6
		}
		for j := range 4 {
			cells[j] = strconv.FormatFloat(rng.NormFloat64()+shift, 'f', 4, 64)
		}
		cells[4] = map[bool]string{true: "1", false: "0"}[shift > 0]
		switch i {
		case 0:
			cells[1] = "NA"
		case 5:
			cells[2] = ""
		case 7:
			cells[0], cells[1], cells[2], cells[3] = "", "NA", "null", ""
		case 11:
			cells[3] = "NaN"
		}
		b.WriteString(strings.Join(cells, ",") + "\n")
	}
	path := filepath.Join(dir, "export.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFirstHour walks issue 42's user through a CSV: a column whose first cell is NA is
// a feature (item 1), missing cells are imputed and counted and the empty row is left
// out and reported (2), the columns used and left out are printed and in summary.json
// (3), the model remembers its label for score (5), a re-cut by score and by cut (6),
// the probability column (7), and outputs without noise (8).
func TestFirstHour(t *testing.T) {
	dir := t.TempDir()
	data := firstHourCSV(t, dir)
	out := filepath.Join(dir, "fit")
	appended := filepath.Join(dir, "appended.csv")
	r := inProcess(append(fitArgs("--label", "Outcome", "--out", out, "--append-to", appended), data)...)
	if r.code != 0 {
		t.Fatalf("fit: exit %d: %s", r.code, r.stderr)
	}
	t.Run("item 2: --append-to leaves the empty row's score empty", func(t *testing.T) {
		ap := readCSV(t, appended)
		if len(ap.rows) != 200 || ap.col(t, "score")[7] != "" || ap.col(t, "score")[8] == "" || ap.col(t, "b")[0] != "NA" {
			t.Errorf("appended table: %d rows, row 7 %v, row 8 %v", len(ap.rows), ap.rows[7], ap.rows[8])
		}
	})
	t.Run("items 1-3: columns and missing values reported", func(t *testing.T) {
		for _, want := range []string{
			"features (4): a, b, c, d", "left out: Outcome (label)",
			"missing cells imputed with the training median: 3 (b 1, c 1, d 1)",
			"1 row with no value at all left out, not scored (data row 8)",
		} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("fit's report lacks %q:\n%s", want, r.stdout)
			}
		}
		s := readSummary(t, filepath.Join(out, "summary.json"))
		cols := s["columns"].(map[string]any)
		if fmt.Sprint(cols["used"]) != "[a b c d]" || fmt.Sprint(cols["rows_without_values"]) != "[8]" ||
			fmt.Sprint(cols["imputed"]) != "[map[cells:1 name:b] map[cells:1 name:c] map[cells:1 name:d]]" ||
			fmt.Sprint(cols["dropped"]) != "[map[name:Outcome why:label]]" {
			t.Errorf("summary.json columns %v", cols)
		}
		if number(t, s, "n") != 199 {
			t.Errorf("n %v, want 199 rows scored", s["n"])
		}
	})
	sc := readCSV(t, filepath.Join(out, "scores.csv"))
	t.Run("items 7-8: scores.csv", func(t *testing.T) {
		rows := sc.col(t, "row")
		if rows[6] != "7" || rows[7] != "9" || len(rows) != 199 {
			t.Errorf("row column %v…: want the file's 1-based data rows, 8 left out", rows[:10])
		}
		for _, c := range sc.header {
			if strings.HasPrefix(c, "label_seed") {
				t.Errorf("scores.csv has %s, an empty member label column", c)
			}
		}
		scores, ranks, probs := sc.floats(t, "score"), sc.floats(t, "rank"), sc.floats(t, "probability")
		top := slices.Index(scores, slices.Max(scores))
		if ranks[top] != 1 {
			t.Errorf("the highest score has rank %v, want 1 (1 = most anomalous)", ranks[top])
		}
		labels := sc.col(t, "label")
		for i, p := range probs {
			if !(p >= 0 && p <= 1) || (p > 0.5) != (labels[i] == "1") {
				t.Fatalf("row %d: probability %v, label %s", i, p, labels[i])
			}
			for k := range probs {
				if scores[k] > scores[i] && probs[k] < p {
					t.Fatalf("probability not monotone: score %v has %v, score %v has %v", scores[i], p, scores[k], probs[k])
				}
			}
		}
		if !strings.Contains(r.stdout, "wall time") || !strings.Contains(r.stdout, "reading") {
			t.Errorf("fit's report lacks the wall time and its parts:\n%s", r.stdout)
		}
	})
	t.Run("item 5: score and explain the same CSV without --label", func(t *testing.T) {
		so := filepath.Join(dir, "scored")
		r := inProcess("score", "--model", filepath.Join(out, "model"), "--out", so, data)
		if r.code != 0 {
			t.Fatalf("score: exit %d: %s", r.code, r.stderr)
		}
		got := readCSV(t, filepath.Join(so, "scores.csv"))
		if !slices.Equal(got.col(t, "score"), sc.col(t, "score")) || !slices.Equal(got.col(t, "true_label"), sc.col(t, "true_label")) {
			t.Error("score on the training CSV: scores or true labels differ from fit's")
		}
		r = inProcess("explain", "--model", filepath.Join(out, "model"), "--rows", "9", "--out", filepath.Join(dir, "ex"), data)
		if r.code != 0 || !strings.Contains(r.stdout, "row 9: score "+strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4g", sc.floats(t, "score")[7]), "0"), ".")) {
			t.Errorf("explain --rows 9 without --label: exit %d: %s%s", r.code, r.stdout, r.stderr)
		}
		r = inProcess("explain", "--model", filepath.Join(out, "model"), "--rows", "8", "--out", filepath.Join(dir, "ex8"), data)
		if r.code == 0 || !strings.Contains(r.stderr, "row 8") {
			t.Errorf("explain --rows 8, the row without values: exit %d: %s", r.code, r.stderr)
		}
		// Columns in another order, and no label column: matched by name.
		text, _ := os.ReadFile(data)
		var b bytes.Buffer
		for _, line := range strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")[:50] {
			c := strings.Split(line, ",")
			fmt.Fprintf(&b, "%s,%s,%s,%s\n", c[3], c[2], c[1], c[0])
		}
		other := filepath.Join(dir, "other.csv")
		os.WriteFile(other, b.Bytes(), 0o644)
		r = inProcess("score", "--model", filepath.Join(out, "model"), "--out", filepath.Join(dir, "o2"), other)
		if r.code != 0 {
			t.Fatalf("score, columns reordered, no label: exit %d: %s", r.code, r.stderr)
		}
		if got := readCSV(t, filepath.Join(dir, "o2", "scores.csv")).col(t, "score"); !slices.Equal(got, sc.col(t, "score")[:48]) {
			t.Error("reordered columns score differently")
		}
	})
	t.Run("item 6: re-cut by score and by cut", func(t *testing.T) {
		so := filepath.Join(dir, "recut")
		r := inProcess("score", "--model", filepath.Join(out, "model"), "--out", so, "--count", "9", data)
		if r.code != 0 {
			t.Fatalf("score --count 9: exit %d: %s", r.code, r.stderr)
		}
		if s := readSummary(t, filepath.Join(so, "summary.json")); number(t, s, "flagged") != 9 || s["cut"] != "count=9" {
			t.Errorf("score --count 9: flagged %v, cut %v", s["flagged"], s["cut"])
		}
		m2 := filepath.Join(dir, "m2")
		start := time.Now()
		r = inProcess("cut", "--model", filepath.Join(out, "model"), "--out", m2, "--contamination", "0.05")
		if r.code != 0 || !strings.Contains(r.stdout, "contamination=0.05") {
			t.Fatalf("cut: exit %d: %s%s", r.code, r.stdout, r.stderr)
		}
		t.Logf("udocc cut took %v", time.Since(start))
		so = filepath.Join(dir, "cut-scored")
		if r = inProcess("score", "--model", m2, "--out", so, data); r.code != 0 {
			t.Fatalf("score --model m2: %s", r.stderr)
		}
		if s := readSummary(t, filepath.Join(so, "summary.json")); number(t, s, "flagged") != 10 {
			t.Errorf("the cut model flags %v of the 199 training rows, want 10 (5 %%)", s["flagged"])
		}
		r = inProcess("cut", "--model", filepath.Join(out, "model"), "--out", m2, "--count", "3")
		if r.code == 0 {
			t.Error("cut over an existing --out: exit 0")
		}
	})
	t.Run("item 2: --missing error and drop-rows", func(t *testing.T) {
		r := inProcess(append(fitArgs("--label", "Outcome", "--missing", "error", "--out", filepath.Join(dir, "e")), data)...)
		if r.code != 1 || !strings.Contains(r.stderr, `line 2, column 2 ("b"): "NA": missing value`) {
			t.Errorf("--missing error: exit %d, %s", r.code, r.stderr)
		}
		o := filepath.Join(dir, "d")
		r = inProcess(append(fitArgs("--label", "Outcome", "--missing", "drop-rows", "--out", o), data)...)
		if r.code != 0 || !strings.Contains(r.stdout, "4 rows with a missing cell left out") {
			t.Errorf("--missing drop-rows: exit %d, %s%s", r.code, r.stdout, r.stderr)
		}
	})
}

// TestNAFirstCellKeepsFeature is issue 42 item 1 as reported: a numeric column whose
// first data cell is NA was taken for text and, under --drop-text, dropped silently.
func TestNAFirstCellKeepsFeature(t *testing.T) {
	dir := t.TempDir()
	data := firstHourCSV(t, dir)
	out := filepath.Join(dir, "fit")
	r := inProcess(append(fitArgs("--label", "Outcome", "--drop-text", "--out", out), data)...)
	if r.code != 0 {
		t.Fatalf("fit: %s", r.stderr)
	}
	s := readSummary(t, filepath.Join(out, "summary.json"))
	if fmt.Sprint(s["features"]) != "[a b c d]" || s["text_columns_dropped"] != nil {
		t.Errorf("features %v, text dropped %v: want b kept", s["features"], s["text_columns_dropped"])
	}
}

// TestLabelWarning is issue 42 item 4: a 0/1 column named Outcome left among the
// features is warned of, naming the flag that excludes it.
func TestLabelWarning(t *testing.T) {
	dir := t.TempDir()
	data := firstHourCSV(t, dir)
	r := inProcess(append(fitArgs("--out", filepath.Join(dir, "o")), data)...)
	if want := `column "Outcome" looks like a label`; r.code != 0 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "--label Outcome") {
		t.Errorf("exit %d, stderr %q: want %q and --label Outcome", r.code, r.stderr, want)
	}
}

// TestProgressLeft is issue 42 item 9: the screening's stages count against their own
// totals, and the time left is estimated over the whole plan.
func TestProgressLeft(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b, start: time.Now().Add(-10 * time.Second)}
	p.setPlan(50, 100, 10) // 50 + 10 screening epochs, then 100 + 10
	p.update("screen-pretrain", 50, 50)
	p.update("screen-finetune", 10, 10)
	out := b.String()
	if !strings.Contains(out, "screen-pretrain epoch 50/50 (") || !strings.Contains(out, "screen-finetune epoch 10/10 (") {
		t.Errorf("progress %q, want each screening stage against its own total", out)
	}
	// 60 of 170 epochs in 10 s: about 18 s left.
	left, ok := p.left("screen-finetune", 10, 10*time.Second)
	if !ok || math.Abs(left.Seconds()-110.0/6) > 0.01 {
		t.Errorf("left %v, want about 18.3 s", left)
	}
	if !strings.Contains(out, "left)") {
		t.Errorf("progress %q does not say the time left", out)
	}
}

package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestExplainColumns checks fit's --explain: feature_i and share_i for i up to N, filled
// for exactly the flagged rows with the table's feature names and positive shares, the
// largest first, summing to at most 1 (the features that raise the score; the cells
// empty beyond them); and no such columns with --explain 0.
func TestExplainColumns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 200, 3, true, 8)
	mustUdocc(t, dir, fitArgs("--label", "y", "--explain", "2", "--out", "two", "table.csv")...)
	mustUdocc(t, dir, fitArgs("--label", "y", "--explain", "3", "--out", "three", "table.csv")...)
	all := readCSV(t, filepath.Join(dir, "three", "scores.csv"))
	sc := readCSV(t, filepath.Join(dir, "two", "scores.csv"))
	if got := sc.header[len(sc.header)-4:]; !slices.Equal(got, []string{"feature_1", "share_1", "feature_2", "share_2"}) {
		t.Fatalf("header ends %v, want feature_1, share_1, feature_2, share_2", got)
	}
	labels, names := sc.col(t, "label"), sc.col(t, "feature_1")
	shares, second := sc.col(t, "share_1"), sc.col(t, "share_2")
	flagged := 0
	for i, l := range labels {
		if l != "1" {
			if names[i] != "" || shares[i] != "" {
				t.Fatalf("row %d is not flagged but names %q, %q", i, names[i], shares[i])
			}
			continue
		}
		flagged++
		if !slices.Contains([]string{"a", "b", "c"}, names[i]) {
			t.Fatalf("row %d: feature_1 %q, want one of the table's columns a, b, c", i, names[i])
		}
		s1, err1 := strconv.ParseFloat(shares[i], 64)
		if err1 != nil || !(s1 > 0 && s1 <= 1) {
			t.Fatalf("row %d: first share %q: want a number in (0, 1]", i, shares[i])
		}
		if second[i] != "" {
			if s2, err := strconv.ParseFloat(second[i], 64); err != nil || !(s2 > 0 && s2 <= s1 && s1+s2 <= 1+1e-3) {
				t.Fatalf("row %d: shares %q, %q: want positive numbers, the first the larger, summing to at most 1", i, shares[i], second[i])
			}
		}
		sum := 0.0
		for k := 1; k <= 3; k++ {
			if c := all.col(t, "share_"+strconv.Itoa(k))[i]; c != "" {
				v, _ := strconv.ParseFloat(c, 64)
				sum += v
			}
		}
		if math.Abs(sum-1) > 2e-4 {
			t.Fatalf("row %d: the shares of a 3-feature table's raising features sum to %v, want 1", i, sum)
		}
	}
	if flagged == 0 {
		t.Fatal("no row flagged, nothing explained")
	}
	mustUdocc(t, dir, fitArgs("--label", "y", "--explain", "0", "--out", "none", "table.csv")...)
	if h := readCSV(t, filepath.Join(dir, "none", "scores.csv")).header; slices.Contains(h, "feature_1") {
		t.Errorf("--explain 0, but the header is %v", h)
	}
}

// TestExplainCommand checks udocc explain on the saved model of a fit: a table per
// asked row, explanations.csv and explain.png, --json, and that its top features and
// shares are those fit wrote into scores.csv for the same rows.
func TestExplainCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 200, 3, true, 9)
	mustUdocc(t, dir, fitArgs("--label", "y", "--out", "fit", "table.csv")...)
	sc := readCSV(t, filepath.Join(dir, "fit", "scores.csv"))
	var rows []string
	for i, l := range sc.col(t, "label") {
		if l == "1" && len(rows) < 2 {
			rows = append(rows, strconv.Itoa(i+1)) // 1-based, as scores.csv's row column
		}
	}
	if len(rows) < 2 {
		t.Fatalf("fewer than two rows flagged")
	}
	r := mustUdocc(t, dir, "explain", "--model", "fit/model", "--label", "y", "--rows", strings.Join(rows, ","),
		"--explain", "3", "--out", "ex", "table.csv")
	for _, row := range rows {
		if !strings.Contains(r.stdout, "row "+row+": score ") {
			t.Errorf("stdout lacks row %s's table:\n%s", row, r.stdout)
		}
	}
	for _, want := range []string{"raises", "value", "normal med.", "normal MAD", "part", "share", "flagged", "a rise of"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "ex", "explain.png")); err != nil {
		t.Error(err)
	}
	ex := readCSV(t, filepath.Join(dir, "ex", "explanations.csv"))
	exRow, exEffect, exRank, exName := ex.col(t, "row"), ex.col(t, "effect"), ex.col(t, "rank"), ex.col(t, "feature")
	exShare, exPart := ex.col(t, "share"), ex.floats(t, "part")
	lines := map[string]int{}
	for i := range ex.rows {
		row, _ := strconv.Atoi(exRow[i])
		k := exRank[i]
		lines[exRow[i]]++
		switch exEffect[i] {
		case "raises":
			if exPart[i] <= 0 {
				t.Errorf("row %d: raising feature %s has part %v", row, exName[i], exPart[i])
			}
			if k > "2" { // fit named 2 features a row (--explain's default is 3; this table has 3)
				continue
			}
			if got, want := exName[i], sc.col(t, "feature_"+k)[row-1]; got != want {
				t.Errorf("row %d, feature %s: explain names %q, fit named %q", row, k, got, want)
			}
			v, _ := strconv.ParseFloat(exShare[i], 64)
			if got, want := strconv.FormatFloat(v, 'f', 4, 64), sc.col(t, "share_"+k)[row-1]; got != want {
				t.Errorf("row %d, feature %s: explain's share %s, fit's %s", row, k, got, want)
			}
		case "lowers":
			if exPart[i] >= 0 || exShare[i] != "" {
				t.Errorf("row %d: lowering feature %s has part %v and share %q: want a negative part and no share", row, exName[i], exPart[i], exShare[i])
			}
		case "interaction":
			if !strings.Contains(exName[i], " & ") || exShare[i] != "" {
				t.Errorf("row %d: interaction line names %q, share %q", row, exName[i], exShare[i])
			}
		case "half_rise":
			if !strings.Contains(exName[i], " & ") || exShare[i] != "" {
				t.Errorf("row %d: half_rise line names %q, share %q", row, exName[i], exShare[i])
			}
		default:
			t.Errorf("row %d: effect %q", row, exEffect[i])
		}
	}
	for _, row := range rows {
		if n := lines[row]; n < 1 || n > 5 {
			t.Errorf("row %s: %d lines in explanations.csv, want the 3 features (raising or lowering) and at most an interaction and a half_rise line", row, n)
		}
	}

	j := mustUdocc(t, dir, "explain", "--model", "fit/model", "--label", "y", "--top", "4", "--out", "ex4", "--json", "table.csv")
	var report []explainedRow
	if err := json.Unmarshal([]byte(j.stdout), &report); err != nil {
		t.Fatalf("--json stdout %q: %v", j.stdout, err)
	}
	if len(report) != 4 || len(report[0].Features)+len(report[0].Lowering) != 3 || report[0].Score < report[3].Score {
		t.Errorf("--top 4 --json: %d rows, %d+%d features, scores %v then %v: want 4 rows highest first, the 3 features raising or lowering",
			len(report), len(report[0].Features), len(report[0].Lowering), report[0].Score, report[len(report)-1].Score)
	}
	for _, r := range report {
		if len(r.Features) == 0 || r.Features[0].Share == nil || *r.Features[0].Share <= 0 {
			t.Errorf("row %d (score %v, baseline %v): no raising feature with a positive share: %+v", r.Row, r.Score, r.Base, r.Features)
		}
	}
}

// TestExplainNothingRaises checks udocc explain on rows no feature raises: the normal
// rows' median row itself (every Shapley value 0), twice. It used to fail
// whole, writing nothing ("figure explain.png: … bars … have no values"), where it must
// say so per row and still write explanations.csv and explain.png.
func TestExplainNothingRaises(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 200, 3, false, 11)
	mustUdocc(t, dir, fitArgs("--out", "fit", "table.csv")...)
	b, err := os.ReadFile(filepath.Join(dir, "fit", "model", "model.json"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Normal struct{ Median []float64 } `json:"normal"`
	}
	if err := json.Unmarshal(b, &meta); err != nil || len(meta.Normal.Median) != 3 {
		t.Fatalf("model.json's normal median: %v, %v", meta.Normal.Median, err)
	}
	var cells []string
	for _, v := range meta.Normal.Median {
		cells = append(cells, strconv.FormatFloat(v, 'g', -1, 64))
	}
	median := strings.Join(cells, ",")
	if err := os.WriteFile(filepath.Join(dir, "median.csv"), []byte("a,b,c\n"+median+"\n"+median+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := mustUdocc(t, dir, "explain", "--model", "fit/model", "--rows", "1,2", "--out", "ex", "median.csv")
	if n := strings.Count(r.stdout, "(no feature raises the score)"); n != 2 {
		t.Errorf("stdout says %d times that no feature raises the score, want 2 (one a row):\n%s", n, r.stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "ex", "explain.png")); err != nil {
		t.Error(err)
	}
	ex := readCSV(t, filepath.Join(dir, "ex", "explanations.csv"))
	for i, e := range ex.col(t, "effect") {
		if e == "raises" {
			t.Errorf("explanations.csv line %d: %q raises the median row's score", i+2, ex.col(t, "feature")[i])
		}
	}
}

// TestExplainHalfRise checks the report of the features that together carry half a
// row's rise where no single one does: on a model of six independent, alike features,
// a row 5 spreads above the normal median in all six gets it (stdout, --json's
// half_rise and explanations.csv's half_rise line, whose parts carry at least half the
// rise), and a row off in one feature only does not.
func TestExplainHalfRise(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 300, 6, false, 12)
	mustUdocc(t, dir, fitArgs("--out", "fit", "table.csv")...)
	if err := os.WriteFile(filepath.Join(dir, "rows.csv"), []byte("a,b,c,d,e,f\n5,5,5,5,5,5\n9,0.01,0.01,0.01,0.01,0.01\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := mustUdocc(t, dir, "explain", "--model", "fit/model", "--rows", "1,2", "--out", "ex", "rows.csv")
	if n := strings.Count(r.stdout, "no single feature carries half the rise"); n != 1 {
		t.Errorf("stdout says %d times that no single feature carries half the rise, want once (row 1):\n%s", n, r.stdout)
	}
	ex := readCSV(t, filepath.Join(dir, "ex", "explanations.csv"))
	rows, effects, names, parts := ex.col(t, "row"), ex.col(t, "effect"), ex.col(t, "feature"), ex.floats(t, "part")
	score, base := ex.floats(t, "score"), ex.floats(t, "baseline_score")
	half := 0
	for i, e := range effects {
		if e != "half_rise" {
			continue
		}
		half++
		if rows[i] != "1" || strings.Count(names[i], " & ") < 1 || parts[i] < (score[i]-base[i])/2 {
			t.Errorf("half_rise line of row %s: features %q, part %v of a rise of %v: want row 1, at least two features carrying at least half", rows[i], names[i], parts[i], score[i]-base[i])
		}
	}
	if half != 1 {
		t.Errorf("%d half_rise lines, want 1 (row 1's)", half)
	}
	j := mustUdocc(t, dir, "explain", "--model", "fit/model", "--rows", "1,2", "--out", "exj", "--json", "rows.csv")
	var report []explainedRow
	if err := json.Unmarshal([]byte(j.stdout), &report); err != nil {
		t.Fatalf("--json stdout %q: %v", j.stdout, err)
	}
	if len(report) != 2 || report[0].HalfRise == nil || len(report[0].HalfRise.Features) < 2 || report[0].HalfRise.OfRise < 0.5 || report[1].HalfRise != nil {
		t.Errorf("--json: %+v: want half_rise on row 1 only, of at least two features carrying at least half the rise", report)
	}
}

// TestExplainUsage checks the usage errors of --explain and udocc explain.
func TestExplainUsage(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"fit", "--explain", "-1", "x.csv"}, "--explain -1"},
		{[]string{"score", "--model", "m", "--explain", "-2", "x.csv"}, "--explain -2"},
		{[]string{"explain", "x.csv"}, "--model is required"},
		{[]string{"explain", "--model", "m", "--rows", "1", "--top", "3", "x.csv"}, "give one of them"},
		{[]string{"explain", "--model", "m", "--rows", "1,x", "x.csv"}, `"x" is not a row number`},
		{[]string{"explain", "--model", "m", "--rows", "2,2", "x.csv"}, "row 2 twice"},
		{[]string{"explain", "--model", "m", "--rows", "0", "x.csv"}, "1 is the first row, as in scores.csv"},
		{[]string{"explain", "--model", "m", "--scores-to", "s.csv", "x.csv"}, "unknown flag: --scores-to"},
		{[]string{"explain", "--model", "m", "--append-to", "a.csv", "x.csv"}, "unknown flag: --append-to"},
		{[]string{"explain", "--model", "m", "--top", "0", "x.csv"}, "--top 0"},
		{[]string{"explain", "--model", "m", "--attribution", "shap", "x.csv"}, `--attribution "shap"`},
		{[]string{"explain", "--model", "m", "--attribution", "shap", "x.csv"}, "want shapley, occlusion"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := inProcess(c.args...)
			if r.code != 2 || !strings.Contains(r.stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, c.want)
			}
		})
	}
}

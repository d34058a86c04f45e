package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestExplainColumns checks fit's --explain: feature_i and share_i for i up to N, filled
// for exactly the flagged rows with the table's feature names and shares in [-1, 1]; and
// no such columns with --explain 0.
func TestExplainColumns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 200, 3, true, 8)
	mustUdocc(t, dir, fitArgs("--label", "y", "--explain", "2", "--out", "two", "table.csv")...)
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
		s2, err2 := strconv.ParseFloat(second[i], 64)
		if err1 != nil || err2 != nil || !(s1 >= -1 && s1 <= 1) || !(s1 >= s2) {
			t.Fatalf("row %d: shares %q, %q: want numbers in [-1, 1], the first the larger", i, shares[i], second[i])
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
		"--features", "3", "--out", "ex", "table.csv")
	for _, row := range rows {
		if !strings.Contains(r.stdout, "row "+row+": score ") {
			t.Errorf("stdout lacks row %s's table:\n%s", row, r.stdout)
		}
	}
	for _, want := range []string{"feature", "value", "normal med.", "normal MAD", "share", "flagged"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "ex", "explain.png")); err != nil {
		t.Error(err)
	}
	ex := readCSV(t, filepath.Join(dir, "ex", "explanations.csv"))
	if len(ex.rows) != 2*3 {
		t.Fatalf("explanations.csv has %d lines, want 3 features for each of 2 rows", len(ex.rows))
	}
	exRow, exRank, exName, exShare := ex.col(t, "row"), ex.col(t, "rank"), ex.col(t, "feature"), ex.floats(t, "share")
	for i := range ex.rows {
		row, _ := strconv.Atoi(exRow[i])
		k := exRank[i]
		if got, want := exName[i], sc.col(t, "feature_"+k)[row-1]; got != want {
			t.Errorf("row %d, feature %s: explain names %q, fit named %q", row, k, got, want)
		}
		if got, want := strconv.FormatFloat(exShare[i], 'f', 4, 64), sc.col(t, "share_"+k)[row-1]; got != want {
			t.Errorf("row %d, feature %s: explain's share %s, fit's %s", row, k, got, want)
		}
	}

	j := mustUdocc(t, dir, "explain", "--model", "fit/model", "--label", "y", "--top", "4", "--out", "ex4", "--json", "table.csv")
	var report []explainedRow
	if err := json.Unmarshal([]byte(j.stdout), &report); err != nil {
		t.Fatalf("--json stdout %q: %v", j.stdout, err)
	}
	if len(report) != 4 || len(report[0].Features) != 3 || report[0].Score < report[3].Score {
		t.Errorf("--top 4 --json: %d rows, %d features, scores %v then %v: want 4 rows highest first, 3 features (the default)",
			len(report), len(report[0].Features), report[0].Score, report[len(report)-1].Score)
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
		{[]string{"explain", "--model", "m", "--method", "shap", "x.csv"}, `--method "shap"`},
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

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestDrainOutlastsWriteDeadline checks that a shutdown waits past a request's write
// deadline (twice the timeout), whatever the timeout (hostile round 4, L10: with
// --timeout 8s the drain ended at 13 s, before the 16 s deadline, and serve exited 1).
func TestDrainOutlastsWriteDeadline(t *testing.T) {
	for _, timeout := range []time.Duration{time.Second, 8 * time.Second, 30 * time.Second, 10 * time.Minute} {
		if d := drainWindow(timeout); d <= 2*timeout {
			t.Errorf("--timeout %v: drain %v, write deadline %v", timeout, d, 2*timeout)
		}
	}
}

// TestReadToken checks --token-file: a device or an oversized file is refused before
// it is read whole, an empty file is called empty, and a short token is refused
// (hostile round 4, L7: /dev/zero was read without bound).
func TestReadToken(t *testing.T) {
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct{ path, want string }{
		{"/dev/zero", "regular file"},
		{file("empty", "\n"), "is empty"},
		{file("short", "abc\n"), "at least 16"},
		{file("spaces", "abcdefgh ijklmnopq\n"), "without spaces"},
		{file("large", strings.Repeat("a", 8<<10)), "more than the"},
	} {
		if tok, err := readToken(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: token %q, error %v; want %q", c.path, tok, err, c.want)
		}
	}
	if tok, err := readToken(file("good", "  0123456789abcdef-token\n")); err != nil || tok != "0123456789abcdef-token" {
		t.Errorf("good token: %q, %v", tok, err)
	}
}

// TestNprocBeyondRows checks that --nproc with fewer than two rows a rank is one usage
// error, exit 2, before any rank starts (hostile round 3: every rank failed in turn, a
// page of all-reduce errors).
func TestNprocBeyondRows(t *testing.T) {
	dir := t.TempDir()
	writeText(t, dir, "three.csv", "a,b\n1,2\n3,4\n5,7\n")
	r := udocc(t, dir, fitArgs("--nproc", "2", "--out", "o", "three.csv")...)
	oneErrorLine(t, r, 2, "--nproc 2: three.csv has 3 rows")
	if _, err := os.Stat(filepath.Join(dir, "o")); !os.IsNotExist(err) {
		t.Errorf("--out exists: %v", err)
	}
}

// TestRound4Flags checks flag refusals of hostile round 4: a --batch-size too large for
// the ensemble's default sample names --batch-size (L19: it blamed --train-rows 2048
// and asked for a negative number, which --train-rows refuses), and --ties where it
// would be ignored is refused (L20).
func TestRound4Flags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--batch-size", "99999999999"}, "--batch-size 99999999999"},
		{[]string{"--method", "ensemble", "--ties", "median"}, "--ties"},
		{[]string{"--method", "oc", "--ties", "smallest"}, "--ties"},
		{[]string{"--method", "proposed", "--threshold", "accumulated", "--ties", "smallest"}, "--ties"},
	} {
		r := inProcess(append(fitArgs(c.args...), "--out", filepath.Join(t.TempDir(), "o"), "table.csv")...)
		oneErrorLine(t, r, 2, c.want)
		if strings.Contains(r.stderr, "--train-rows") {
			t.Errorf("%v: %q blames --train-rows", c.args, r.stderr)
		}
	}
}

// TestNamesEscaped checks that column names holding control characters reach the
// terminal quoted: a newline cannot forge a report line, nor an escape sequence set
// the window title (hostile round 4, L13).
func TestNamesEscaped(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("a,\"b\n  NOTE: no anomalies found; 0 of 60 rows flagged\",\"\x1b]0;PWNED\x07c\",\"t\x1b[31m\"\n")
	for i := range 60 {
		fmt.Fprintf(&b, "%d,%d,%d,x%d\n", i%7, (i*3)%11, (i*5)%13, i)
	}
	path := writeText(t, dir, "forge.csv", b.String())
	r := udocc(t, dir, "fit", "--pretrain-epochs", "2", "--epochs", "4", "--drop-text", "--out", filepath.Join(dir, "o"), path)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, line := range strings.Split(r.stdout+r.stderr, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "NOTE:") || strings.ContainsAny(line, "\x1b\x07") {
			t.Errorf("raw name in the report: %q", line)
		}
	}
	// Without --drop-text, the text column (a different value in every row) is left out
	// as an identifier, and the note that says so escapes its name.
	r = udocc(t, dir, "fit", "--pretrain-epochs", "2", "--epochs", "4", "--out", filepath.Join(dir, "o2"), path)
	if r.code != 0 || strings.ContainsAny(r.stdout+r.stderr, "\x1b\x07") || !strings.Contains(r.stdout, "an identifier") {
		t.Errorf("the text column: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
}

// TestCutCountOne checks that cut --count 1 reports one training row above its
// threshold (hostile round 4, L21: "about 0"), and that a count past the model's sketch
// names the command that takes it.
func TestCutCountOne(t *testing.T) {
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 200, 3, false, 48)
	mustUdocc(t, dir, fitArgs("--out", "f", "table.csv")...)
	r := udocc(t, dir, "cut", "--model", filepath.Join(dir, "f/model"), "--out", filepath.Join(dir, "c1"), "--count", "1", "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"flagged_training_rows": 1,`) {
		t.Errorf("cut --count 1: exit %d, %s %s", r.code, r.stdout, r.stderr)
	}
	r = udocc(t, dir, "cut", "--model", filepath.Join(dir, "f/model"), "--out", filepath.Join(dir, "c101"), "--count", "101")
	if r.code == 0 || !strings.Contains(r.stderr, "udocc score") {
		t.Errorf("cut --count 101: exit %d, %s", r.code, r.stderr)
	}
}

// TestLabelEdgeCases checks that a label with one value says why there are no metrics,
// and that a missing label cell is named as missing on its line (hostile round 4, L18).
func TestLabelEdgeCases(t *testing.T) {
	dir := t.TempDir()
	var one, missing strings.Builder
	one.WriteString("a,b,y\n")
	missing.WriteString("a,b,y\n")
	for i := range 40 {
		fmt.Fprintf(&one, "%d,%d,0\n", i%7, (i*3)%11)
		y := fmt.Sprint(i % 2)
		if i == 5 {
			y = ""
		}
		fmt.Fprintf(&missing, "%d,%d,%s\n", i%7, (i*3)%11, y)
	}
	r := udocc(t, dir, "fit", "--pretrain-epochs", "2", "--epochs", "4", "--label", "y", "--out", filepath.Join(dir, "o"), writeText(t, dir, "one.csv", one.String()))
	if r.code != 0 || !strings.Contains(r.stdout, "the label has one value") {
		t.Errorf("one-valued label: exit %d, stdout %q", r.code, r.stdout)
	}
	r = udocc(t, dir, fitArgs("--label", "y", "--out", filepath.Join(dir, "o2"), writeText(t, dir, "missing.csv", missing.String()))...)
	oneErrorLine(t, r, 1, "line 7")
	if !strings.Contains(r.stderr, "missing") || strings.Contains(r.stderr, "third value") {
		t.Errorf("missing label: %q", r.stderr)
	}
}

// runPeak runs cmd to its end and returns its combined output and its peak resident
// memory in KiB: the largest VmHWM of /proc/PID/status (the high-water mark of its own
// memory since exec), read every 5 ms while it runs. wait4's ru_maxrss would count the
// test process's memory too, which a child started by vfork inherits at exec (over
// 1 GiB under -race).
func runPeak(cmd *exec.Cmd) ([]byte, int64, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	path := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	var peak int64
	for {
		if b, err := os.ReadFile(path); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
					var kb int64
					fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(v), " kB"), &kb)
					peak = max(peak, kb)
				}
			}
		}
		select {
		case err := <-done:
			return out.Bytes(), peak, err
		case <-tick.C:
		}
	}
}

// TestContaminationOneRange checks that fit, score and cut take one range of
// --contamination, (0, 0.5], and say it (issue 65: it was (0, 0.5) in fit, (0, 1) in
// score and (0, 1/2] in cut).
func TestContaminationOneRange(t *testing.T) {
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 200, 3, false, 48)
	mustUdocc(t, dir, fitArgs("--out", "f", "--contamination", "0.5", "table.csv")...)
	model := filepath.Join(dir, "f/model")
	for _, args := range [][]string{
		fitArgs("--out", "g", "--contamination", "0.6", "table.csv"),
		{"score", "--model", model, "--out", filepath.Join(dir, "s"), "--contamination", "0.6", "table.csv"},
		{"cut", "--model", model, "--out", filepath.Join(dir, "c"), "--contamination", "0.6"},
	} {
		r := udocc(t, dir, args...)
		if r.code == 0 || !strings.Contains(r.stderr, "(0, 0.5]") {
			t.Errorf("%s --contamination 0.6: exit %d, %q; want a refusal naming (0, 0.5]", args[0], r.code, r.stderr)
		}
	}
	if r := udocc(t, dir, "cut", "--model", model, "--out", filepath.Join(dir, "c2"), "--contamination", "0.5"); r.code != 0 {
		t.Errorf("cut --contamination 0.5: exit %d, %s", r.code, r.stderr)
	}
}

// TestScoreThreshold checks --score-threshold, a threshold in score units, in score and
// cut: the rows flagged are those scoring above it, and model.json records the rule.
func TestScoreThreshold(t *testing.T) {
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 200, 3, false, 48)
	mustUdocc(t, dir, fitArgs("--out", "f", "table.csv")...)
	model := filepath.Join(dir, "f/model")
	mustUdocc(t, dir, "score", "--model", model, "--out", "s", "--score-threshold", "0", "table.csv")
	sc := readCSV(t, filepath.Join(dir, "s/scores.csv"))
	scores, labels := sc.floats(t, "score"), sc.col(t, "label")
	flagged := 0
	for i, score := range scores {
		if (score > 0) != (labels[i] == "1") {
			t.Fatalf("row %d: score %v, label %s; want flagged above 0", i+1, score, labels[i])
		}
		if labels[i] == "1" {
			flagged++
		}
	}
	if flagged == 0 || flagged == len(scores) {
		t.Errorf("--score-threshold 0 flagged %d of %d rows", flagged, len(scores))
	}
	mustUdocc(t, dir, "cut", "--model", model, "--out", "c", "--score-threshold", "1.5")
	meta, err := os.ReadFile(filepath.Join(dir, "c/model.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(meta), `"threshold": 1.5,`) || !strings.Contains(string(meta), `"threshold_rule": "score=1.5"`) {
		t.Errorf("cut --score-threshold 1.5: model.json lacks the threshold and its rule")
	}
	if r := udocc(t, dir, "cut", "--model", model, "--out", "c2", "--score-threshold", "1", "--count", "3"); r.code != 2 {
		t.Errorf("--score-threshold with --count: exit %d, %s", r.code, r.stderr)
	}
}

// TestScorePrintsMetrics checks that udocc score prints ROCAUC and PRAUC where the table
// has the model's label column (issue 65), and not where it has none.
func TestScorePrintsMetrics(t *testing.T) {
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 200, 3, true, 48)
	mustUdocc(t, dir, fitArgs("--out", "f", "--label", "y", "table.csv")...)
	r := mustUdocc(t, dir, "score", "--model", filepath.Join(dir, "f/model"), "--out", "s", "table.csv")
	if !regexp.MustCompile(`against the label: true anomaly ratio 0\.\d{4}: ROCAUC 0\.\d{4}  PRAUC 0\.\d{4}  F1 0\.\d{4}`).MatchString(r.stdout) {
		t.Errorf("score of a labelled table: stdout lacks the metrics:\n%s", r.stdout)
	}
	writeTable(t, filepath.Join(dir, "plain.csv"), 50, 3, false, 49)
	if r := mustUdocc(t, dir, "score", "--model", filepath.Join(dir, "f/model"), "--out", "p", "plain.csv"); strings.Contains(r.stdout, "ROCAUC") {
		t.Errorf("score of an unlabelled table prints metrics:\n%s", r.stdout)
	}
}

// TestExplainRowsCap checks that scores.csv explains at most --explain-rows flagged rows,
// the highest-scored, and says so (issue 65: a large table's 25,000 flagged rows were
// all explained by default).
func TestExplainRowsCap(t *testing.T) {
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 200, 3, false, 48)
	r := mustUdocc(t, dir, fitArgs("--out", "f", "--contamination", "0.1", "--explain-rows", "3", "table.csv")...)
	if !strings.Contains(r.stdout, "scores.csv explains the 3 highest-scored of the 20 flagged rows") {
		t.Errorf("no note of the cap:\n%s", r.stdout)
	}
	sc := readCSV(t, filepath.Join(dir, "f/scores.csv"))
	scores, labels, feature := sc.floats(t, "score"), sc.col(t, "label"), sc.col(t, "feature_1")
	var explained, others []float64
	for i := range scores {
		switch {
		case feature[i] != "":
			explained = append(explained, scores[i])
		case labels[i] == "1":
			others = append(others, scores[i])
		}
	}
	if len(explained) != 3 || len(others) != 17 || slices.Min(explained) < slices.Max(others) {
		t.Errorf("explained %v, flagged but not explained %v: want the 3 highest of 20", explained, others)
	}
}

package main

import (
	"os"
	"path/filepath"
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

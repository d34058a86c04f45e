package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadLabels checks the labels file's parser on what a user may write: answers in
// every accepted form, a byte order mark, short lines added by hand, a row listed twice
// alike (one line), and each malformed cell refused with its line and column.
func TestReadLabels(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "L.csv")
	good := "\ufeffrow,score,rank,n,round,anomaly,a\n" +
		"3,1.5,2,10,1,Yes,0.1\n" +
		"4,0.5,5,10,1,FALSE,0.2\n" +
		"5,,,,,1\n" +
		"6,0.1,9,10,2,,0.3\n" +
		",,,,,\n" +
		"3,1.5,2,10,1,true,0.1\n"
	os.WriteFile(path, []byte(good), 0o644)
	lf, err := readLabels(path, false)
	if err != nil {
		t.Fatal(err)
	}
	answers, anomalies, pending := lf.counts()
	if len(lf.lines) != 4 || answers != 3 || anomalies != 2 || pending != 1 || lf.maxRound() != 2 || lf.header[0] != "row" {
		t.Fatalf("%d lines, %d answers, %d anomalies, %d pending, header %q", len(lf.lines), answers, anomalies, pending, lf.header)
	}
	if l := lf.lines[2]; !l.userPick() || l.row != 5 || l.answer != 1 || l.line != 4 {
		t.Errorf("the user's line %+v", l)
	}
	if len(lf.sha256) != 64 {
		t.Errorf("sha256 %q", lf.sha256)
	}
	cases := []struct{ name, body, want string }{
		{"no row column", "score,anomaly\n1,1\n", "line 1: no \"row\" column"},
		{"an empty row", "row,anomaly\n,1\n", "line 2, column row: empty"},
		{"a row 0", "row,anomaly\n0,1\n", `line 2, column row: "0": want a whole number, 1 or more`},
		{"a bad rank", "row,rank,anomaly\n1,x,1\n", `line 2, column rank: "x"`},
		{"a bad score", "row,score,anomaly\n1,NaN,1\n", `line 2, column score: "NaN": want a number`},
		{"a bad answer", "row,anomaly\n1,1\n2,maybe\n", `line 3, column anomaly: "maybe": want 1 or 0, yes or no, true or false`},
		{"contradicting answers", "row,anomaly\n1,1\n2,0\n1,no\n", "line 4, column anomaly: row 1 answered normal here and anomaly on line 2: contradicting answers"},
		{"a broken quote", "row,anomaly\n1,\"1\n", "line 2"},
		{"an empty file", "", "empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			os.WriteFile(path, []byte(tc.body), 0o644)
			_, err := readLabels(path, false)
			var le *labelsError
			if !errors.As(err, &le) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), path) {
				t.Errorf("%v, want %q", err, tc.want)
			}
		})
	}
	if lf, err := readLabels(filepath.Join(dir, "new.csv"), true); err != nil || lf.header != nil || len(lf.lines) != 0 {
		t.Errorf("a new file: %+v, %v", lf, err)
	}
}

// FuzzReadLabels feeds the parser any bytes: it never panics, and a file it reads
// writes back to one it reads alike.
func FuzzReadLabels(f *testing.F) {
	f.Add([]byte("row,score,rank,n,round,anomaly\n3,1.5,2,10,1,yes\n5,,,,,0\n"))
	f.Add([]byte("row,anomaly\n1,1\n1,0\n"))
	f.Add([]byte("\ufeffrow,anomaly,x\n\"1\",\"\",\"a,b\"\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "L.csv")
		os.WriteFile(path, b, 0o644)
		lf, err := readLabels(path, false)
		if err != nil || lf.header == nil {
			return
		}
		if err := lf.write(nil); err != nil {
			t.Fatal(err)
		}
		again, err := readLabels(path, false)
		if err != nil {
			t.Fatalf("written back, it reads as %v", err)
		}
		if len(again.lines) != len(lf.lines) {
			t.Fatalf("%d lines, written back %d", len(lf.lines), len(again.lines))
		}
		for i, l := range lf.lines {
			if a := again.lines[i]; a.row != l.row || a.answer != l.answer || a.round != l.round || a.rank != l.rank {
				t.Fatalf("line %d: %+v, written back %+v", i, l, a)
			}
		}
	})
}

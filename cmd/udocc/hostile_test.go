package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The tests of this file are what a new user or a hostile
// tester did, run through the binary, each with the clear error or the right result that
// udocc now gives.

// writeText writes text to dir/name and returns the path.
func writeText(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDegenerateTables fits tables without spread: every column constant (whose loss
// plot once looped until the OOM killer came), all zeros, and one row repeated, with the
// default ensemble and with the paper's method. Each fit ends with every figure of its
// method drawn and a peak RSS under 1 GiB (about 200 MB is usual), and flags nothing,
// since every row scores alike.
func TestDegenerateTables(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeText(t, dir, "constant.csv", "a,b,c\n"+strings.Repeat("1,2,3\n", 50))
	writeText(t, dir, "zeros.csv", "a,b\n"+strings.Repeat("0,0\n", 30))
	writeText(t, dir, "repeated.csv", "a,b,c\n"+strings.Repeat("0.5,-1.25,3e3\n", 50))
	presets := []struct {
		name    string
		figures []string
	}{
		{"default", []string{"loss.png", "scores.png"}},
		{"paper", []string{"loss.png", "scores.png", "selected_ratio.png"}},
	}
	for _, name := range []string{"constant", "zeros", "repeated"} {
		for _, p := range presets {
			t.Run(name+", --preset "+p.name, func(t *testing.T) {
				out := name + "-" + p.name
				cmd := exec.Command(udoccBin, fitArgs("--preset", p.name, "--out", out, name+".csv")...)
				cmd.Dir = dir
				b, kb, err := runPeak(cmd)
				if err != nil {
					t.Fatalf("%v: %s", err, b)
				}
				if kb == 0 || kb > 1<<20 {
					t.Errorf("peak RSS %d MiB (0: never read)", kb>>10)
				}
				for _, f := range p.figures {
					checkPNG(t, filepath.Join(dir, out, f))
				}
				s := readSummary(t, filepath.Join(dir, out, "summary.json"))
				if s["flagged"].(float64) != 0 {
					t.Errorf("flagged %v rows of identical ones", s["flagged"])
				}
				if c, _ := s["constant_columns"].([]any); len(c) != int(s["d"].(float64)) {
					t.Errorf("constant_columns %v, want every column", s["constant_columns"])
				}
			})
		}
	}
}

// TestHeaderless fits a table written without a header (np.savetxt): every row is data,
// the columns are named x1.., and the summary and stdout say which was assumed;
// --header yes takes the first row as names.
func TestHeaderless(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "%.18e %.18e\n", float64(i%7)+0.125730, float64(i%5)/3)
	}
	writeText(t, dir, "savetxt.csv", strings.ReplaceAll(b.String(), " ", ","))
	r := mustUdocc(t, dir, fitArgs("--out", "auto", "savetxt.csv")...)
	s := readSummary(t, filepath.Join(dir, "auto", "summary.json"))
	if s["n"].(float64) != 40 || s["header"] != false || !strings.Contains(r.stdout, "no header") {
		t.Errorf("n %v, header %v, stdout %q; want 40 rows and no header said", s["n"], s["header"], r.stdout)
	}
	r = mustUdocc(t, dir, fitArgs("--header", "yes", "--out", "yes", "savetxt.csv")...)
	if s := readSummary(t, filepath.Join(dir, "yes", "summary.json")); s["n"].(float64) != 39 || s["header"] != true {
		t.Errorf("--header yes: n %v, header %v; want 39 and true", s["n"], s["header"])
	}
	oneErrorLine(t, udocc(t, dir, fitArgs("--header", "maybe", "savetxt.csv")...), 2, "--header")
}

// TestOutputFolderGuards covers the rows about --out: the user's own files, a folder that
// cannot be written, a second run on the same folder while the first writes it, and the
// files of an earlier run of another method.
func TestOutputFolderGuards(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 60, 3, false, 21)
	t.Run("the user's files in --out/model are refused, kept, and replaced with --force", func(t *testing.T) {
		out := filepath.Join(dir, "mine")
		writeText(t, filepath.Join(dir), "notes.txt", "")
		os.MkdirAll(filepath.Join(out, "model"), 0o755)
		writeText(t, filepath.Join(out, "model"), "notes.txt", "my notes")
		oneErrorLine(t, udocc(t, dir, fitArgs("--out", out, "table.csv")...), 1, "model/notes.txt")
		if b, err := os.ReadFile(filepath.Join(out, "model", "notes.txt")); err != nil || string(b) != "my notes" {
			t.Fatalf("the user's file: %q, %v", b, err)
		}
		mustUdocc(t, dir, fitArgs("--force", "--out", out, "table.csv")...)
		if _, err := os.Stat(filepath.Join(out, "model", "notes.txt")); err == nil {
			t.Error("--force kept the old file beside the new result")
		}
	})
	t.Run("an --out that cannot be made fails before training", func(t *testing.T) {
		start := time.Now()
		r := udocc(t, dir, "fit", "--epochs", "100000", "--quiet", "--out", filepath.Join(dir, "table.csv", "out"), "table.csv")
		oneErrorLine(t, r, 1, "output folder")
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("failed after %v: it trained first", d)
		}
	})
	t.Run("a second fit on an --out being written is refused", func(t *testing.T) {
		out := filepath.Join(dir, "busy")
		first := startUdocc(t, dir, "fit", "--pretrain-epochs", "2", "--epochs", "100000", "--quiet", "--out", out, "table.csv")
		defer first.Process.Kill()
		lock := filepath.Join(dir, ".busy.udocc-lock")
		for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(lock); err == nil {
				break
			}
			if time.Since(start) > 30*time.Second {
				t.Fatal("the first fit never took the lock")
			}
		}
		oneErrorLine(t, udocc(t, dir, fitArgs("--out", out, "table.csv")...), 1, "another udocc run is writing it")
		first.Process.Kill()
		first.Wait()
		mustUdocc(t, dir, fitArgs("--out", out, "table.csv")...)
		if l := leftovers(t, dir); slices.ContainsFunc(l, func(p string) bool { return strings.Contains(p, ".busy.") }) {
			t.Errorf("debris of the killed fit left: %v", l)
		}
	})
	t.Run("an oc fit after a proposed one leaves none of its figures", func(t *testing.T) {
		out := filepath.Join(dir, "methods")
		mustUdocc(t, dir, fitArgs("--method", "proposed", "--out", out, "table.csv")...)
		checkPNG(t, filepath.Join(out, "delta_curve.png"))
		mustUdocc(t, dir, fitArgs("--method", "oc", "--out", out, "table.csv")...)
		for _, f := range []string{"delta_curve.png", "selected_ratio.png"} {
			if _, err := os.Stat(filepath.Join(out, f)); err == nil {
				t.Errorf("%s of the proposed fit is still there", f)
			}
		}
	})
	t.Run("a proposed fit after an ensemble one leaves none of its members or autoencoders", func(t *testing.T) {
		out := filepath.Join(dir, "members")
		mustUdocc(t, dir, fitArgs("--out", out, "table.csv")...)
		if _, err := os.Stat(filepath.Join(out, "model", "autoencoder-4.pt")); err != nil {
			t.Fatalf("the ensemble fit: %v", err)
		}
		mustUdocc(t, dir, fitArgs("--method", "proposed", "--out", out, "table.csv")...)
		for _, f := range []string{"member-1.pt", "member-4.pt", "autoencoder-0.pt", "autoencoder-4.pt"} {
			if _, err := os.Stat(filepath.Join(out, "model", f)); err == nil {
				t.Errorf("model/%s of the ensemble fit is still there", f)
			}
		}
	})
}

// TestChecksBeforeTraining covers the rows whose mistakes udocc now finds before it
// trains: one epoch for proposed, a ratio of fewer than one row, a seed named twice,
// and a device that does not exist (for bench too, which then writes no report).
func TestChecksBeforeTraining(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 60, 3, false, 22)
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"proposed with one epoch", []string{"fit", "--method", "proposed", "--epochs", "1", "table.csv"}, 2, "at least 2 fine-tuning epochs"},
		{"a contamination of fewer than one row", []string{"fit", "--contamination", "0.01", "table.csv"}, 2, "fewer than one row"},
		{"tar with a ratio of fewer than one row", []string{"fit", "--method", "tar", "--ratio", "0.0001", "table.csv"}, 2, "fewer than one row"},
		{"sb with a ratio of fewer than one row", []string{"fit", "--method", "sb", "--ratio", "0.001", "table.csv"}, 2, "fewer than one row"},
		{"a seed named twice", []string{"fit", "--seed", "0,0", "table.csv"}, 2, "seed 0 is named twice"},
		{"a seed twice in a range", []string{"fit", "--seed", "0-3,2", "table.csv"}, 2, "seed 2 is named twice"},
	}
	if v := inProcess("version"); strings.Contains(v.stdout, "no CUDA") {
		cases = append(cases,
			struct {
				name string
				args []string
				code int
				want string
			}{"score on cuda without CUDA", []string{"score", "--model", "m", "--device", "cuda:1", "table.csv"}, 1, "without CUDA"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			oneErrorLine(t, udocc(t, dir, c.args...), c.code, c.want)
			for _, o := range []string{"udocc-out", "bench"} {
				if _, err := os.Stat(filepath.Join(dir, o)); err == nil {
					t.Errorf("%s was written", o)
				}
			}
		})
	}
}

// TestDivergence fits with --lr 1e10: the error names the epoch, the member and a lower
// --lr, and nothing is written.
func TestDivergence(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 60, 3, false, 23)
	r := udocc(t, dir, fitArgs("--lr", "1e10", "--seed", "3", "table.csv")...)
	for _, w := range []string{"diverged", "epoch 1", "member 0 (seed 3)", "try a lower --lr"} {
		oneErrorLine(t, r, 1, w)
	}
	if _, err := os.Stat(filepath.Join(dir, "udocc-out")); err == nil {
		t.Error("a diverged fit wrote udocc-out")
	}
}

// TestLikelyLabel fits a table with a two-valued target column and no --label: stderr
// names it and the flag to use; with --label target nothing is said.
func TestLikelyLabel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("a,b,target\n")
	for i := range 60 {
		fmt.Fprintf(&b, "%d,%d,%d\n", i%7, i%11, min(1, i%10))
	}
	writeText(t, dir, "t.csv", b.String())
	r := mustUdocc(t, dir, fitArgs("--out", "o", "t.csv")...)
	if !strings.Contains(r.stderr, `column "target"`) || !strings.Contains(r.stderr, "--label target") {
		t.Errorf("stderr %q does not name the column and --label target", r.stderr)
	}
	if r := mustUdocc(t, dir, fitArgs("--label", "target", "--out", "o", "t.csv")...); r.stderr != "" {
		t.Errorf("with --label: stderr %q", r.stderr)
	}
}

// TestScoreColumnsByName scores the training table with its columns permuted (the
// scores of fit, row for row) and renamed (an error naming the missing and extra
// columns); a file without a header is matched by position.
func TestScoreColumnsByName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 80, 3, false, 24)
	mustUdocc(t, dir, fitArgs("--out", "fit", "table.csv")...)
	b, _ := os.ReadFile(filepath.Join(dir, "table.csv"))
	var permuted, renamed, bare strings.Builder
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		c := strings.Split(line, ",")
		fmt.Fprintf(&permuted, "%s,%s,%s\n", c[2], c[0], c[1])
		if i == 0 {
			renamed.WriteString("a,B,c\n")
			continue
		}
		fmt.Fprintln(&renamed, line)
		fmt.Fprintln(&bare, line)
	}
	writeText(t, dir, "permuted.csv", permuted.String())
	writeText(t, dir, "renamed.csv", renamed.String())
	writeText(t, dir, "bare.csv", bare.String())
	fit := readCSV(t, filepath.Join(dir, "fit", "scores.csv"))
	for _, name := range []string{"permuted", "bare"} {
		mustUdocc(t, dir, "score", "--model", "fit/model", "--out", name, name+".csv")
		sameScores(t, fit, readCSV(t, filepath.Join(dir, name, "scores.csv")), "score", "rank", "label")
	}
	r := udocc(t, dir, "score", "--model", "fit/model", "--out", "renamed", "renamed.csv")
	oneErrorLine(t, r, 1, `missing "b"; not in the model "B"`)
	if !strings.Contains(r.stderr, "--drop") {
		t.Errorf("the CLI's error does not name --drop: %q", r.stderr)
	}
}

// TestMemberFiles fits --seed 0-7: each member file (and each autoencoder file) holds
// one network, so every file has the size of a one-member fit's (--members 1).
func TestMemberFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 60, 3, false, 25)
	mustUdocc(t, dir, fitArgs("--seed", "0", "--members", "1", "--out", "one", "table.csv")...)
	mustUdocc(t, dir, fitArgs("--seed", "0-7", "--out", "eight", "table.csv")...)
	size := func(p string) int64 {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	for _, file := range []string{"member-%d.pt", "autoencoder-%d.pt"} {
		one := size(filepath.Join(dir, "one", "model", fmt.Sprintf(file, 0)))
		for k := range 8 {
			// the archive's names differ by a few bytes at most; the ensemble's tensors would add 7 networks
			name := fmt.Sprintf(file, k)
			if got := size(filepath.Join(dir, "eight", "model", name)); got > one+512 {
				t.Errorf("%s is %d bytes, a one-member fit's %d", name, got, one)
			}
		}
	}
}

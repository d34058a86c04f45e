package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The tests of this file are the rows of the second hostile round's table: a flag or a
// file a careless or malicious user gave, run through the binary (or in process where
// the row is about flags alone), each with the clear error or the right result that
// udocc now gives.

// TestLargestSeed fits with the largest uint64 seed, whose range once looped forever:
// the fit ends and records it (the ensemble's next members wrap to 0, 1, ...).
func TestLargestSeed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 60, 3, false, 31)
	mustUdocc(t, dir, fitArgs("--seed", "18446744073709551615", "--out", "fit", "table.csv")...)
	s := readSummary(t, filepath.Join(dir, "fit", "summary.json"))
	if seeds := s["seeds"].([]any); len(seeds) == 0 || seeds[0].(float64) != 18446744073709551615 {
		t.Errorf("seeds %v, want 18446744073709551615 first", s["seeds"])
	}
}

// TestFlagsOutOfRange gives learning rates and weight decays training cannot take, a
// negative --label and --seed with --seeds: each is a usage error naming its flag,
// before anything is read, trained or written (udocc-bench's TestFlagsOutOfRange does
// the same for the bench).
func TestFlagsOutOfRange(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	table := writeText(t, dir, "table.csv", "a,b,y\n1,2,0\n2,3,1\n3,1,0\n")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--lr", "inf"}, "--lr +Inf"},
		{[]string{"--lr", "nan"}, "--lr NaN"},
		{[]string{"--pretrain-lr", "inf"}, "--pretrain-lr +Inf"},
		{[]string{"--pretrain-lr", "-1"}, "--pretrain-lr -1"},
		{[]string{"--weight-decay", "inf"}, "--weight-decay +Inf"},
		{[]string{"--weight-decay", "1e300"}, "--weight-decay 1e+300"},
		{[]string{"--seed", "1", "--seeds", "2"}, "--seed and --seeds"},
	}
	for _, c := range cases {
		t.Run("fit "+strings.Join(c.args, " "), func(t *testing.T) {
			out := filepath.Join(dir, "fit-out")
			oneErrorLine(t, inProcess(append(append([]string{"fit"}, c.args...), "--out", out, table)...), 2, c.want)
			if _, err := os.Stat(out); err == nil {
				t.Error("--out was written")
			}
		})
	}
	t.Run("--label -1", func(t *testing.T) {
		oneErrorLine(t, inProcess("fit", "--label", "-1", "--out", filepath.Join(dir, "o"), table), 2, "--label -1")
	})
}

// TestModelFiles replaces the network files of a saved ensemble with others of the same
// shape: another member's, the same member's autoencoder, another model's (another
// seed), an oc model's, and members 0 and 1 swapped. Each is refused naming the file
// and what it should hold; the model as saved scores. model.json without its format or
// without its ensemble says what is wrong.
func TestModelFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 60, 3, false, 32)
	mustUdocc(t, dir, fitArgs("--out", "ens", "table.csv")...)
	mustUdocc(t, dir, fitArgs("--seed", "7", "--out", "other", "table.csv")...)
	// The ensemble's widths for 3 features (models.EnsembleHidden), so that the oc network
	// is a file of the same size as the member it replaces.
	mustUdocc(t, dir, fitArgs("--method", "oc", "--arch", "32,16,4", "--out", "oc", "table.csv")...)
	mustUdocc(t, dir, "score", "--model", "ens/model", "--out", "scored", "table.csv")
	copyFile := func(from, to string) func(m string) error {
		return func(m string) error {
			b, err := os.ReadFile(filepath.Join(dir, from))
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(m, to), b, 0o644)
		}
	}
	editMeta := func(edit func(map[string]any)) func(m string) error {
		return func(m string) error {
			p := filepath.Join(m, "model.json")
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			var meta map[string]any
			if err := json.Unmarshal(b, &meta); err != nil {
				return err
			}
			edit(meta)
			b, _ = json.Marshal(meta)
			return os.WriteFile(p, b, 0o644)
		}
	}
	cases := []struct {
		name   string
		damage func(m string) error
		want   []string
		binary bool // through the binary; the others run in process
	}{
		{"another member's encoder", copyFile("ens/model/member-1.pt", "member-0.pt"),
			[]string{"member-0.pt should hold member 0's encoder", "holds member 1's encoder"}, false},
		{"the member's autoencoder in its encoder's place", copyFile("ens/model/autoencoder-0.pt", "member-0.pt"),
			[]string{"member-0.pt should hold member 0's encoder", "holds member 0's autoencoder"}, false},
		{"another model's member", copyFile("other/model/member-7.pt", "member-0.pt"),
			[]string{"member-0.pt should hold member 0's encoder", "not the ones the fit wrote"}, true},
		{"an oc network", copyFile("oc/model/member-0.pt", "member-0.pt"),
			[]string{"member-0.pt should hold member 0's encoder", "not the ones the fit wrote"}, false},
		{"another model's autoencoder", copyFile("other/model/autoencoder-7.pt", "autoencoder-2.pt"),
			[]string{"autoencoder-2.pt should hold member 2's autoencoder", "not the ones the fit wrote"}, false},
		{"members 0 and 1 swapped", func(m string) error {
			a, b := filepath.Join(m, "member-0.pt"), filepath.Join(m, "member-1.pt")
			if err := os.Rename(a, a+".x"); err != nil {
				return err
			}
			if err := os.Rename(b, a); err != nil {
				return err
			}
			return os.Rename(a+".x", b)
		}, []string{"member-0.pt should hold member 0's encoder", "holds member 1's encoder"}, true},
		{"files missing from model.json", editMeta(func(m map[string]any) { delete(m, "files") }), []string{"files: 0 entries"}, false},
		{"model.json without its format", editMeta(func(m map[string]any) { delete(m, "format") }), []string{`no format field`}, false},
		{"model.json without its ensemble", editMeta(func(m map[string]any) { delete(m, "ensemble") }), []string{"ensemble is missing"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			model := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
			if err := os.CopyFS(model, os.DirFS(filepath.Join(dir, "ens", "model"))); err != nil {
				t.Fatal(err)
			}
			if err := c.damage(model); err != nil {
				t.Fatal(err)
			}
			r := udoccOrInProcess(t, c.binary, dir, "score", "--model", model, "--out", model+"-out", filepath.Join(dir, "table.csv"))
			for _, w := range c.want {
				oneErrorLine(t, r, 1, w)
			}
			if strings.Contains(r.stderr, "format 0") {
				t.Errorf("stderr %q says format 0", r.stderr)
			}
		})
	}
}

// TestDivergedPhases fits with learning rates that diverge in each phase: the error
// names the phase's flag (--pretrain-lr for the autoencoders, which take --lr unless it
// is set; --lr for fine-tuning), a loss that grew by orders of magnitude is caught as a
// non-finite one is (the paper's preset once trained to losses of 1e22 and saved), and
// nothing is written.
func TestDivergedPhases(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 60, 3, false, 33)
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"--pretrain-lr 1e10", []string{"--pretrain-lr", "1e10"}, []string{"pretraining epoch", "try a lower --pretrain-lr (now 1e+10)"}},
		{"--preset paper --lr 1e10", []string{"--preset", "paper", "--lr", "1e10", "--pretrain-epochs", "10"},
			[]string{"pretraining epoch", "times its level before training", "try a lower --pretrain-lr (pretraining now takes --lr, 1e+10)"}},
		{"--preset paper --lr 1e3 --pretrain-lr 1e-3", []string{"--preset", "paper", "--lr", "1e3", "--pretrain-lr", "1e-3"},
			[]string{"fine-tuning epoch", "times its level before training", "try a lower --lr (now 1000)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := strings.ReplaceAll(c.name, " ", "")
			r := udocc(t, dir, fitArgs(append(c.args, "--out", out, "table.csv")...)...)
			for _, w := range append(c.want, "training diverged") {
				oneErrorLine(t, r, 1, w)
			}
			if _, err := os.Stat(filepath.Join(dir, out)); err == nil {
				t.Error("a diverged fit wrote --out")
			}
		})
	}
}

// TestOtsuConstantTable fits otsu on a table whose rows are all alike, which has no
// cut: the fit saves (its threshold is the largest training score, not +Inf, which
// model.json cannot hold), flags nothing, and its model scores the table again.
func TestOtsuConstantTable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeText(t, dir, "constant.csv", "a,b,c\n"+strings.Repeat("1,2,3\n", 40))
	mustUdocc(t, dir, fitArgs("--method", "otsu", "--out", "fit", "constant.csv")...)
	if s := readSummary(t, filepath.Join(dir, "fit", "summary.json")); s["flagged"].(float64) != 0 {
		t.Errorf("flagged %v rows of identical ones", s["flagged"])
	}
	mustUdocc(t, dir, "score", "--model", "fit/model", "--out", "scored", "constant.csv")
}

// TestExtremeValues scores rows with values near float32's largest, and 1e19, in columns
// of values near 1: where a network overflows on one, it is refused naming the row and
// the column, instead of a NaN or +Inf score (the paper's preset scores 1e19 finitely);
// a fit on a table holding such rows gives finite scores.
func TestExtremeValues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 60, 3, false, 34)
	mustUdocc(t, dir, fitArgs("--out", "fit", "table.csv")...)
	mustUdocc(t, dir, fitArgs("--preset", "paper", "--out", "paper", "table.csv")...)
	for _, c := range []struct{ model, rows, want string }{
		// +Inf, or NaN where the CPU's kernels meet inf - inf (SSE4.1): refused either way.
		{"fit", "0,0,0\n3.4e38,0,0\n", `row 2 (1-based, as scores.csv numbers rows): member 0's distance is `},
		{"fit", "0,0,0\n3.4e38,0,0\n", `(column "a" holds 3.4e+38`},
		{"paper", "0,0,0\n0,0,0\n0,-3.4e38,0\n", `row 3 (1-based`},
		{"fit", "1e19,0,0\n", `column "a" holds 1e+19`},
		{"paper", "0,3.4e38,-3.4e38\n", `row 1 (1-based`},
	} {
		t.Run(c.model+" "+strings.ReplaceAll(c.rows, "\n", ";"), func(t *testing.T) {
			p := writeText(t, t.TempDir(), "extreme.csv", "a,b,c\n"+c.rows)
			r := udocc(t, dir, "score", "--model", c.model+"/model", "--out", filepath.Join(dir, "x"), p)
			for _, w := range []string{c.want, "outside the training range"} {
				oneErrorLine(t, r, 1, w)
			}
		})
	}
	b, _ := os.ReadFile(filepath.Join(dir, "table.csv"))
	writeText(t, dir, "with-extremes.csv", string(b)+"3.4e38,3.4e38,-3.4e38\n1e19,1e19,1e19\n-3.4e38,0,0\n")
	for _, preset := range []string{"default", "paper"} {
		mustUdocc(t, dir, fitArgs("--preset", preset, "--out", "extreme-"+preset, "with-extremes.csv")...)
		for i, s := range readCSV(t, filepath.Join(dir, "extreme-"+preset, "scores.csv")).floats(t, "score") {
			if math.IsNaN(s) || math.IsInf(s, 0) {
				t.Errorf("--preset %s: row %d scores %v", preset, i, s)
			}
		}
	}
}

// TestLatin1Header fits a table whose header has Latin-1 bytes (its id column and a
// dropped column too) and scores the very file with the model: the names round-trip
// through model.json byte for byte, and the scores are the fit's.
func TestLatin1Header(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("id\xe9,a,b\xe9,caf\xe9 \xb5g,dr\xf6p\n")
	for i := range 60 {
		fmt.Fprintf(&b, "r%d,%g,%g,%g,%d\n", i, math.Sin(float64(i)), math.Cos(float64(3*i)), float64(i%7)/7, i%3)
	}
	writeText(t, dir, "latin1.csv", b.String())
	mustUdocc(t, dir, fitArgs("--id", "id\xe9", "--drop", "dr\xf6p", "--out", "fit", "latin1.csv")...)
	mustUdocc(t, dir, "score", "--model", "fit/model", "--out", "scored", "latin1.csv")
	sameScores(t, readCSV(t, filepath.Join(dir, "fit", "scores.csv")), readCSV(t, filepath.Join(dir, "scored", "scores.csv")), "score", "rank", "label")
	if ids := readCSV(t, filepath.Join(dir, "scored", "scores.csv")).col(t, "id\xe9"); len(ids) != 60 || ids[0] != "r0" {
		t.Errorf("the id column: %q", ids)
	}
}

// TestOutputsNeverInputs names the input as --scores-to and --append-to (itself, a hard
// link, a symbolic link, even with --force), a file of --model as --scores-to, and an
// --out holding DATA or --model: each is refused and the input is unchanged. A file the
// user wrote is refused as --scores-to or --append-to unless --force; the tables udocc
// wrote there (CSV and Parquet) are written over by the next run.
func TestOutputsNeverInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 60, 3, false, 35)
	orig, _ := os.ReadFile(filepath.Join(dir, "table.csv"))
	if err := os.Link(filepath.Join(dir, "table.csv"), filepath.Join(dir, "hard.csv")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("table.csv", filepath.Join(dir, "sym.csv")); err != nil {
		t.Fatal(err)
	}
	writeText(t, dir, "mine.csv", "my,own\n1,2\n")
	mustUdocc(t, dir, fitArgs("--out", "fit", "table.csv")...)
	os.MkdirAll(filepath.Join(dir, "holder"), 0o755)
	writeText(t, filepath.Join(dir, "holder"), "in.csv", string(orig))
	// The refusals come before anything is read: they run in process, with absolute paths.
	at := func(p string) string { return filepath.Join(dir, p) }
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"--scores-to the input", fitArgs("--scores-to", at("table.csv"), "--out", at("o"), at("table.csv")), "table.csv is the input " + at("table.csv")},
		{"--scores-to a hard link to it, --force", fitArgs("--scores-to", at("hard.csv"), "--force", "--out", at("o"), at("table.csv")), "hard.csv is the input " + at("table.csv")},
		{"--append-to a symbolic link to it, --force", fitArgs("--append-to", at("sym.csv"), "--force", "--out", at("o"), at("table.csv")), "sym.csv is the input " + at("table.csv")},
		{"--scores-to the model's model.json", []string{"score", "--model", at("fit/model"), "--scores-to", at("fit/model/model.json"), "--out", at("s"), at("table.csv")}, "is the input " + at("fit/model/model.json")},
		{"--out holding --model, --force", []string{"score", "--model", at("fit/model"), "--force", "--out", at("fit"), at("table.csv")}, "fit holds --model " + at("fit/model")},
		{"--out holding DATA, --force", fitArgs("--force", "--out", at("holder"), at("holder/in.csv")), "holder holds DATA " + at("holder/in.csv")},
		{"--append-to inside --out", fitArgs("--append-to", at("o/a.csv"), "--out", at("o"), at("table.csv")), "holds --append-to " + at("o/a.csv")},
		{"--append-to the user's file", fitArgs("--append-to", at("mine.csv"), "--out", at("o"), at("table.csv")), "mine.csv exists and is not a table udocc wrote"},
		{"--scores-to the user's file", fitArgs("--scores-to", at("mine.csv"), "--out", at("o"), at("table.csv")), "or give --force"},
	} {
		t.Run(c.name, func(t *testing.T) {
			oneErrorLine(t, inProcess(c.args...), 2, c.want)
			for _, f := range []string{"table.csv", "holder/in.csv"} {
				if b, _ := os.ReadFile(filepath.Join(dir, f)); string(b) != string(orig) {
					t.Errorf("%s changed", f)
				}
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "mine.csv")); string(b) != "my,own\n1,2\n" {
				t.Error("mine.csv changed")
			}
			if _, err := os.Stat(filepath.Join(dir, "fit", "model", "model.json")); err != nil {
				t.Errorf("the model: %v", err)
			}
		})
	}
	t.Run("udocc's own tables are written over; the user's with --force", func(t *testing.T) {
		args := fitArgs("--scores-to", "s.csv", "--append-to", "a.parquet", "--out", "o", "table.csv")
		mustUdocc(t, dir, args...)
		mustUdocc(t, dir, args...)
		mustUdocc(t, dir, fitArgs("--append-to", "mine.csv", "--force", "--out", "o", "table.csv")...)
		if c := readCSV(t, filepath.Join(dir, "mine.csv")); len(c.col(t, "score")) != 60 {
			t.Error("--force did not write mine.csv")
		}
	})
}

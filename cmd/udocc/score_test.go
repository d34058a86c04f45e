package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sameScores checks that columns cols of two scores.csv files agree: score columns to a
// relative 1e-6, the others exactly.
func sameScores(t *testing.T, a, b csvFile, cols ...string) {
	t.Helper()
	if len(a.rows) != len(b.rows) {
		t.Fatalf("%d rows and %d rows", len(a.rows), len(b.rows))
	}
	for _, c := range cols {
		if c == "score" || strings.HasPrefix(c, "score_") {
			x, y := a.floats(t, c), b.floats(t, c)
			for i := range x {
				if !closeEnough(x[i], y[i]) {
					t.Fatalf("column %s, row %d: %v and %v", c, i, x[i], y[i])
				}
			}
			continue
		}
		if x, y := a.col(t, c), b.col(t, c); !slices.Equal(x, y) {
			t.Errorf("column %s differs", c)
		}
	}
}

// TestScoreMatchesFit scores the fitted table with the saved model, which must give the
// scores, ranks and labels of the fit, and then scores new rows.
func TestScoreMatchesFit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 200, 3, true, 5)
	mustUdocc(t, dir, fitArgs("--label", "y", "--out", "fit", "table.csv")...)
	r := mustUdocc(t, dir, "score", "--model", "fit/model", "--label", "y", "--out", "scored", "--json", "table.csv")

	t.Run("same scores, ranks and labels as fit", func(t *testing.T) {
		fit, scored := readCSV(t, filepath.Join(dir, "fit", "scores.csv")), readCSV(t, filepath.Join(dir, "scored", "scores.csv"))
		if !slices.Equal(fit.header, scored.header) {
			t.Fatalf("header %v, fit's %v", scored.header, fit.header)
		}
		sameScores(t, fit, scored, fit.header...)
	})
	t.Run("same threshold, flagged and metrics as fit", func(t *testing.T) {
		var s map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
			t.Fatalf("--json stdout %q: %v", r.stdout, err)
		}
		f := readSummary(t, filepath.Join(dir, "fit", "summary.json"))
		for _, k := range []string{"threshold", "flagged", "n", "d", "rocauc", "prauc", "f1", "true_ratio"} {
			if !closeEnough(number(t, s, k), number(t, f, k)) {
				t.Errorf("%s: score %v, fit %v", k, s[k], f[k])
			}
		}
	})
	t.Run("new rows without labels", func(t *testing.T) {
		writeTable(t, filepath.Join(dir, "new.csv"), 37, 3, false, 6)
		r := mustUdocc(t, dir, "score", "--model", "fit/model", "--out", "new", "--quiet", "--member-scores", "new.csv")
		if r.stdout != "" || r.stderr != "" {
			t.Errorf("score --quiet said %q on stdout and %q on stderr, want nothing", r.stdout, r.stderr)
		}
		sc := readCSV(t, filepath.Join(dir, "new", "scores.csv"))
		want := []string{"row", "score", "rank", "label", "probability"} // no true_label; then the default ensemble's members
		for seed := range 5 {
			want = append(want, fmt.Sprintf("score_seed%d", seed)) // no label: members have no threshold of their own
		}
		want = append(want, "feature_1", "share_1", "feature_2", "share_2", "feature_3", "share_3") // --explain 3
		if !slices.Equal(sc.header, want) || len(sc.rows) != 37 {
			t.Errorf("header %v with %d rows, want %v with 37", sc.header, len(sc.rows), want)
		}
		checkLabels(t, sc, readSummary(t, filepath.Join(dir, "new", "summary.json")), "score", "label")
	})
}

// TestSeedEnsemble fits the paper's method (--preset paper) with --seed 0-2 in lockstep,
// whose members keep their own thresholds, and scores with the ensemble's model.
func TestSeedEnsemble(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 160, 3, true, 7)
	mustUdocc(t, dir, fitArgs("--preset", "paper", "--label", "y", "--seed", "0-2", "--out", "ens", "--member-scores", "table.csv")...)
	s := readSummary(t, filepath.Join(dir, "ens", "summary.json"))
	sc := readCSV(t, filepath.Join(dir, "ens", "scores.csv"))
	seeds := []uint64{0, 1, 2}

	t.Run("summary lists the seeds and members", func(t *testing.T) {
		got, _ := json.Marshal(s["seeds"])
		if string(got) != "[0,1,2]" {
			t.Errorf("seeds %s, want [0,1,2]", got)
		}
		members, _ := s["members"].([]any)
		if len(members) != len(seeds) {
			t.Fatalf("%d members, want %d", len(members), len(seeds))
		}
		for k, m := range members {
			mm := m.(map[string]any)
			if number(t, mm, "seed") != float64(seeds[k]) {
				t.Errorf("member %d has seed %v", k, mm["seed"])
			}
			number(t, mm, "threshold")
		}
		if number(t, s, "threshold") != 1 {
			t.Errorf("ensemble threshold %v, want 1 (each member's score over its threshold)", s["threshold"])
		}
	})
	t.Run("every member is saved and scored", func(t *testing.T) {
		for _, seed := range seeds {
			if _, err := os.Stat(filepath.Join(dir, "ens", "model", fmt.Sprintf("member-%d.pt", seed))); err != nil {
				t.Error(err)
			}
			sc.col(t, fmt.Sprintf("score_seed%d", seed))
			sc.col(t, fmt.Sprintf("label_seed%d", seed))
		}
		checkLabels(t, sc, s, "score", "label")
		h := readCSV(t, filepath.Join(dir, "ens", "history.csv"))
		if len(h.rows) != len(seeds)*tinyEpochs {
			t.Errorf("history.csv has %d rows, want %d", len(h.rows), len(seeds)*tinyEpochs)
		}
	})
	t.Run("score with the ensemble's model matches", func(t *testing.T) {
		mustUdocc(t, dir, "score", "--model", "ens/model", "--label", "y", "--out", "scored", "--member-scores", "table.csv")
		scored := readCSV(t, filepath.Join(dir, "scored", "scores.csv"))
		if !slices.Equal(sc.header, scored.header) {
			t.Fatalf("header %v, fit's %v", scored.header, sc.header)
		}
		sameScores(t, sc, scored, sc.header...)
	})
	t.Run("member seed 0 trains as a lone seed 0 does", func(t *testing.T) {
		mustUdocc(t, dir, fitArgs("--preset", "paper", "--label", "y", "--out", "one", "table.csv")...)
		one := readCSV(t, filepath.Join(dir, "one", "scores.csv"))
		a, b := sc.floats(t, "score_seed0"), one.floats(t, "score")
		for i := range a {
			if !closeEnough(a[i], b[i]) {
				t.Fatalf("row %d: %v in the ensemble, %v alone", i, a[i], b[i])
			}
		}
	})
}

// TestScoreBadModel checks that a damaged model, one of another format or data of the
// wrong width is a runtime error with one line on stderr, and that nothing is written.
// The damage is done to a model of the default ensemble, and the members' thresholds to
// one of the paper's method (--preset paper), which keeps a threshold per member.
func TestScoreBadModel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 100, 3, false, 8)
	writeTable(t, filepath.Join(dir, "narrow.csv"), 20, 2, false, 9)
	writeTable(t, filepath.Join(dir, "wide.csv"), 20, 4, false, 9)
	mustUdocc(t, dir, fitArgs("--out", "ens", "table.csv")...)
	mustUdocc(t, dir, fitArgs("--preset", "paper", "--out", "paper", "table.csv")...)

	editMeta := func(edit func(m map[string]any)) func(string) error {
		return func(model string) error {
			path := filepath.Join(model, "model.json")
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				return err
			}
			edit(m)
			if b, err = json.Marshal(m); err != nil {
				return err
			}
			return os.WriteFile(path, b, 0o644)
		}
	}
	member0 := func(m map[string]any) map[string]any { return m["members"].([]any)[0].(map[string]any) }
	network := func(model string) string { return filepath.Join(model, "member-0.pt") }
	autoencoder := func(model string) string { return filepath.Join(model, "autoencoder-0.pt") }
	const ens, paper = "ens", "paper"
	cases := []struct {
		name   string
		model  string // the fit whose model is damaged: ens or paper
		damage func(model string) error
		data   string
		want   string
		binary bool // through the binary; the others run in process
	}{
		{"truncated network", ens, func(m string) error {
			fi, err := os.Stat(network(m))
			if err != nil {
				return err
			}
			return os.Truncate(network(m), fi.Size()/2)
		}, "table.csv", "member-0.pt", true},
		{"empty network", ens, func(m string) error { return os.Truncate(network(m), 0) }, "table.csv", "member-0.pt", false},
		{"network of random bytes", ens, func(m string) error {
			return os.WriteFile(network(m), []byte("PK\x03\x04 is where a zip archive starts, and ends"), 0o644)
		}, "table.csv", "member-0.pt", false},
		{"missing network", ens, func(m string) error { return os.Remove(network(m)) }, "table.csv", "member-0.pt", false},
		{"missing autoencoder", ens, func(m string) error { return os.Remove(autoencoder(m)) }, "table.csv", "autoencoder-0.pt", true},
		{"empty autoencoder", ens, func(m string) error { return os.Truncate(autoencoder(m), 0) }, "table.csv", "autoencoder-0.pt", false},
		{"format 99", ens, editMeta(func(m map[string]any) { m["format"] = 99 }), "table.csv", "format 99", true},
		{"model.json not JSON", ens, func(m string) error {
			return os.WriteFile(filepath.Join(m, "model.json"), []byte("{\"format\": 2,"), 0o644)
		}, "table.csv", "model.json", false},
		{"no model folder", ens, func(m string) error { return os.RemoveAll(m) }, "table.csv", "no such folder", false},
		{"method bogus", ens, editMeta(func(m map[string]any) { m["method"] = "bogus" }), "table.csv", `method "bogus"`, true},
		{"ensemble without its threshold", ens, editMeta(func(m map[string]any) { delete(m, "threshold") }), "table.csv", "threshold", false},
		{"ensemble without its combination", ens, editMeta(func(m map[string]any) { delete(m, "ensemble"); delete(m, "threshold") }),
			"table.csv", "needs the ensemble field", false},
		{"ensemble member with a threshold", ens, editMeta(func(m map[string]any) { member0(m)["threshold"] = 1.5 }),
			"table.csv", "members[0].threshold", false},
		{"ensemble member without an autoencoder", ens, editMeta(func(m map[string]any) { delete(member0(m), "autoencoder") }),
			"table.csv", "members[0].autoencoder", false},
		{"proposed with an ensemble's combination", ens, editMeta(func(m map[string]any) { m["method"] = "proposed" }),
			"table.csv", "has no ensemble field", false},
		{"negative threshold", paper, editMeta(func(m map[string]any) { member0(m)["threshold"] = -1 }),
			"table.csv", "members[0].threshold -1", false},
		{"no threshold for a method that labels", paper, editMeta(func(m map[string]any) { member0(m)["threshold"] = nil }),
			"table.csv", "members[0].threshold", false},
		{"sizes that are not the network's", ens, editMeta(func(m map[string]any) { m["sizes"] = []int{3, 64, 4} }), "table.csv", "sizes [3 64 4]", false},
		{"one column too few", ens, nil, "narrow.csv", "2 columns", true},
		{"one column too many", paper, nil, "wide.csv", "4 columns", false},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			model := filepath.Join(dir, fmt.Sprintf("model%d", i))
			if err := os.CopyFS(model, os.DirFS(filepath.Join(dir, c.model, "model"))); err != nil {
				t.Fatal(err)
			}
			if c.damage != nil {
				if err := c.damage(model); err != nil {
					t.Fatal(err)
				}
			}
			out := filepath.Join(dir, fmt.Sprintf("out%d", i))
			r := udoccOrInProcess(t, c.binary, dir, "score", "--model", model, "--out", out, filepath.Join(dir, c.data))
			oneErrorLine(t, r, 1, c.want)
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a failed score made %s", out)
			}
		})
	}
}

// TestScoresCSVReads: scores.csv leaves the members' scores out unless asked
// (--member-scores), and --digits 7 writes seven significant digits, the labels staying
// those of the exact scores.
func TestScoresCSVReads(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 120, 3, false, 8)
	mustUdocc(t, dir, fitArgs("--out", "f", "table.csv")...)
	exact := readCSV(t, filepath.Join(dir, "f", "scores.csv"))
	if slices.ContainsFunc(exact.header, func(h string) bool { return strings.HasPrefix(h, "score_seed") }) {
		t.Errorf("header %v: want no member columns by default", exact.header)
	}
	mustUdocc(t, dir, "score", "--model", "f/model", "--digits", "7", "--out", "s", "table.csv")
	short := readCSV(t, filepath.Join(dir, "s", "scores.csv"))
	for i, v := range short.col(t, "score") {
		digits := strings.TrimLeft(strings.NewReplacer("-", "", ".", "").Replace(strings.Split(v, "e")[0]), "0")
		if len(digits) > 7 {
			t.Fatalf("row %d: score %q has %d significant digits", i+1, v, len(digits))
		}
	}
	if !slices.Equal(short.col(t, "label"), exact.col(t, "label")) || !slices.Equal(short.col(t, "rank"), exact.col(t, "rank")) {
		t.Error("--digits changed the labels or ranks")
	}
	if r := udocc(t, dir, "score", "--model", "f/model", "--digits", "18", "--out", "s2", "table.csv"); r.code != 2 || !strings.Contains(r.stderr, "--digits 18") {
		t.Errorf("--digits 18: exit %d, %q", r.code, r.stderr)
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	lib "github.com/udocc/udocc/internal/detector"
	"github.com/udocc/udocc/internal/method"
)

// The tests of this file run the default of udocc fit (--preset default, --method
// ensemble) through the binary: a seed ensemble of one-class members scored with their
// autoencoders, thresholded by a label-free rule or by --contamination.

// defaultSeeds are the members of the default ensemble of --seed 0.
var defaultSeeds = []int{0, 1, 2, 3, 4}

// TestEnsembleFit fits a small labelled CSV with the default settings (short epochs
// aside) and checks the saved model, the summary and that score on the same file gives
// fit's scores and labels again, bit for bit.
func TestEnsembleFit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const n = 200
	writeTable(t, filepath.Join(dir, "table.csv"), n, 3, true, 41)
	mustUdocc(t, dir, fitArgs("--label", "y", "--out", "fit", "--member-scores", "table.csv")...)
	model := filepath.Join(dir, "fit", "model")
	s := readSummary(t, filepath.Join(dir, "fit", "summary.json"))
	meta := readSummary(t, filepath.Join(model, "model.json"))
	sc := readCSV(t, filepath.Join(dir, "fit", "scores.csv"))

	t.Run("history.csv writes only the columns that have values", func(t *testing.T) {
		h := readCSV(t, filepath.Join(dir, "fit", "history.csv"))
		for c, name := range h.header {
			empty := true
			for _, r := range h.rows {
				empty = empty && r[c] == ""
			}
			if empty || name == "delta_star" || name == "ties" {
				t.Errorf("history.csv has column %s (empty in every row: %v); the ensemble has no δ search", name, empty)
			}
		}
	})
	t.Run("model/ holds 5 members, their 5 autoencoders and model.json", func(t *testing.T) {
		want := []string{"model.json"}
		for _, k := range defaultSeeds {
			want = append(want, fmt.Sprintf("member-%d.pt", k), fmt.Sprintf("autoencoder-%d.pt", k))
		}
		es, err := os.ReadDir(model)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range es {
			got = append(got, e.Name())
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("model/ holds %v, want %v", got, want)
		}
	})
	t.Run("model.json is an ensemble's with a finite threshold and none per member", func(t *testing.T) {
		thr := number(t, meta, "threshold")
		if meta["method"] != "ensemble" || math.IsInf(thr, 0) || meta["threshold_rule"] != string(lib.LearnedCount) {
			t.Errorf("method %v, threshold %v, threshold_rule %v; want ensemble, a finite number, the default count",
				meta["method"], meta["threshold"], meta["threshold_rule"])
		}
		if _, ok := meta["ensemble"].(map[string]any); !ok {
			t.Errorf("ensemble %v, want the combination's scales", meta["ensemble"])
		}
		members, _ := meta["members"].([]any)
		if len(members) != len(defaultSeeds) {
			t.Fatalf("%d members, want %d", len(members), len(defaultSeeds))
		}
		for i, m := range members {
			mm := m.(map[string]any)
			k := defaultSeeds[i]
			thr, ok := mm["threshold"]
			if number(t, mm, "seed") != float64(k) || mm["network"] != fmt.Sprintf("member-%d.pt", k) ||
				mm["autoencoder"] != fmt.Sprintf("autoencoder-%d.pt", k) || !ok || thr != nil {
				t.Errorf("members[%d] is %v; want seed %d, its network and autoencoder and a null threshold", i, mm, k)
			}
		}
		if st := number(t, s, "threshold"); st != number(t, meta, "threshold") {
			t.Errorf("summary threshold %v, model.json's %v", st, meta["threshold"])
		}
	})
	t.Run("summary describes the default", func(t *testing.T) {
		if got, _ := json.Marshal(s["seeds"]); s["method"] != "ensemble" || string(got) != "[0,1,2,3,4]" {
			t.Errorf("method %v, seeds %s; want ensemble, [0,1,2,3,4]", s["method"], got)
		}
		checkConfig(t, s, map[string]any{"preset": "default", "members": 5, "distance_weight": method.DistanceWeight,
			"lr": 1e-4, "pretrain_lr": method.EnsembleConfig().PretrainLR, "threshold_rule": string(lib.LearnedCount),
			"screen_epochs": method.EnsembleConfig().ScreenEpochs, "trim": method.EnsembleConfig().Trim})
		if s["delta_bar"] != nil {
			t.Errorf("delta_bar %v, want null: the ensemble searches no δ", s["delta_bar"])
		}
		if r := number(t, s, "selected_ratio"); r != number(t, s, "flagged")/n {
			t.Errorf("selected_ratio %v, want flagged/n = %v/%d", r, s["flagged"], n)
		}
		// The default count's 80 % interval, the same in summary.json and model.json.
		iv, _ := s["selected_ratio_interval"].([]any)
		miv, _ := meta["selected_ratio_interval"].([]any)
		if len(iv) != 2 || fmt.Sprint(iv) != fmt.Sprint(miv) {
			t.Fatalf("selected_ratio_interval %v in summary.json, %v in model.json; want the same [low, high]", s["selected_ratio_interval"], meta["selected_ratio_interval"])
		}
		lo, hi := iv[0].(float64), iv[1].(float64)
		if !(lo > 0 && lo < hi && hi <= 1) {
			t.Errorf("selected_ratio_interval [%v, %v]: want 0 < low < high <= 1", lo, hi)
		}
		for _, k := range labelKeys {
			number(t, s, k)
		}
	})
	t.Run("labels are the combined scores above the threshold", func(t *testing.T) {
		checkLabels(t, sc, s, "score", "label")
		for _, k := range defaultSeeds {
			sc.floats(t, fmt.Sprintf("score_seed%d", k))
		}
	})
	t.Run("score on the same file gives fit's scores bit for bit and its labels", func(t *testing.T) {
		r := mustUdocc(t, dir, "score", "--model", model, "--label", "y", "--out", "scored", "--json", "--member-scores", "table.csv")
		scored := readCSV(t, filepath.Join(dir, "scored", "scores.csv"))
		if !slices.Equal(sc.header, scored.header) {
			t.Fatalf("header %v, fit's %v", scored.header, sc.header)
		}
		for _, c := range sc.header {
			a, b := sc.col(t, c), scored.col(t, c)
			for i := range a {
				if a[i] != b[i] {
					t.Errorf("column %s, row %d: fit wrote %s, score %s", c, i, a[i], b[i])
					break
				}
			}
		}
		var ss map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &ss); err != nil {
			t.Fatalf("--json stdout %q: %v", r.stdout, err)
		}
		for _, k := range []string{"threshold", "flagged", "rocauc", "prauc", "f1"} {
			if number(t, ss, k) != number(t, s, k) {
				t.Errorf("%s: score %v, fit %v", k, ss[k], s[k])
			}
		}
	})
}

// checkConfig checks summary s's config against want, number by number as JSON writes
// them.
func checkConfig(t *testing.T, s map[string]any, want map[string]any) {
	t.Helper()
	cfg, _ := s["config"].(map[string]any)
	for k, v := range want {
		got, _ := json.Marshal(cfg[k])
		exp, _ := json.Marshal(v)
		if string(got) != string(exp) {
			t.Errorf("config %s = %s, want %s", k, got, exp)
		}
	}
}

// TestContamination fits with --contamination R, which flags the round(R·n) highest
// scores, whatever the rule would have chosen; score applies that threshold again.
func TestContamination(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const n = 200
	writeTable(t, filepath.Join(dir, "table.csv"), n, 3, false, 42)
	cases := []struct {
		ratio   string
		flagged int
	}{
		{"0.1", 20},
		{"0.03", 6},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("--contamination %s of %d rows flags %d", c.ratio, n, c.flagged), func(t *testing.T) {
			out := filepath.Join(dir, c.ratio)
			mustUdocc(t, dir, fitArgs("--contamination", c.ratio, "--out", out, "table.csv")...)
			s := readSummary(t, filepath.Join(out, "summary.json"))
			sc := readCSV(t, filepath.Join(out, "scores.csv"))
			if f := number(t, s, "flagged"); int(f) != c.flagged {
				t.Errorf("flagged %v, want %d", f, c.flagged)
			}
			checkLabels(t, sc, s, "score", "label") // the flagged rows are those above the threshold
			rule := "contamination=" + c.ratio
			checkConfig(t, s, map[string]any{"threshold_rule": rule})
			if m := readSummary(t, filepath.Join(out, "model", "model.json")); m["threshold_rule"] != rule {
				t.Errorf("model.json threshold_rule %v, want %s", m["threshold_rule"], rule)
			}
			scored := filepath.Join(dir, c.ratio+"-scored")
			mustUdocc(t, dir, "score", "--model", filepath.Join(out, "model"), "--out", scored, "table.csv")
			if f := number(t, readSummary(t, filepath.Join(scored, "summary.json")), "flagged"); int(f) != c.flagged {
				t.Errorf("score flagged %v, want fit's %d", f, c.flagged)
			}
		})
	}
}

// TestEnsembleUsageErrors checks that the flags of the default method are checked before
// anything is trained or written: exit 2 and one line naming the flag. Every case runs in
// process, and three through the binary.
func TestEnsembleUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	table, out := filepath.Join(dir, "table.csv"), filepath.Join(dir, "out")
	writeTable(t, table, 200, 3, false, 43)
	cases := []struct {
		name   string
		args   []string
		want   string
		binary bool
	}{
		{"contamination of more than half the rows", []string{"--contamination", "0.7"}, "--contamination 0.7", true},
		{"contamination of fewer than one row", []string{"--contamination", "0.001"}, "--contamination 0.001", false},
		{"contamination with oc", []string{"--contamination", "0.1", "--method", "oc"}, "--contamination is only for --method ensemble", false},
		{"members with proposed", []string{"--members", "3", "--preset", "paper"}, "--members is only for --method ensemble", false},
		{"no members", []string{"--members", "0"}, "--members 0", true},
		{"unknown threshold rule", []string{"--threshold", "bogus"}, `--threshold "bogus"`, false},
		{"an unknown rule among several", []string{"--threshold", "kmeans+nope"}, `--threshold "kmeans+nope"`, false},
		{"an empty rule after +", []string{"--threshold", "kmeans+"}, `--threshold "kmeans+"`, false},
		{"an empty rule before +", []string{"--threshold", "+mad"}, `--threshold "+mad"`, false},
		{"a δ rule for the ensemble", []string{"--threshold", "accumulated"}, `--threshold "accumulated"`, false},
		{"unknown preset", []string{"--preset", "bogus"}, `--preset "bogus"`, true},
		{"contamination and a threshold rule", []string{"--contamination", "0.1", "--threshold", "kmeans"}, "--contamination and --threshold", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append(append([]string{"fit", "--out", out}, c.args...), table)
			oneErrorLine(t, inProcess(args...), 2, c.want)
			if c.binary {
				oneErrorLine(t, udocc(t, dir, args...), 2, c.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Fatal("a usage error wrote --out")
			}
		})
	}
}

// TestPresets checks the settings of --preset default and --preset paper as
// summary.json's config says them, and that a flag given on the command line wins over
// either preset.
func TestPresets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 40, 3, false, 44)
	cases := []struct {
		name   string
		args   []string
		method string
		config map[string]any
		absent []string // config keys of the other preset's method
	}{
		{"default: an ensemble of 5 at lr 1e-4 for 10 epochs", []string{"--pretrain-epochs", "1"}, "ensemble",
			map[string]any{"preset": "default", "lr": 1e-4, "pretrain_lr": method.EnsembleConfig().PretrainLR, "epochs": 10, "pretrain_epochs": 1,
				"screen_epochs": method.EnsembleConfig().ScreenEpochs, "trim": method.EnsembleConfig().Trim,
				"members": 5, "distance_weight": method.DistanceWeight, "threshold_rule": string(lib.LearnedCount)}, nil},
		{"paper: proposed at lr 1e-3 for 50 epochs", []string{"--preset", "paper", "--pretrain-epochs", "1"}, "proposed",
			map[string]any{"preset": "paper", "lr": 1e-3, "pretrain_lr": 0, "epochs": 50, "pretrain_epochs": 1,
				"threshold_rule": "accumulated"}, []string{"members", "distance_weight", "screen_epochs", "trim"}},
		{"paper with epochs and lr given: they win", []string{"--preset", "paper", "--epochs", "2", "--pretrain-epochs", "2", "--lr", "0.01"},
			"proposed", map[string]any{"preset": "paper", "lr": 0.01, "epochs": 2, "pretrain_epochs": 2}, []string{"members"}},
		{"paper with --method oc: the method wins", []string{"--preset", "paper", "--method", "oc", "--epochs", "2", "--pretrain-epochs", "2"},
			"oc", map[string]any{"preset": "paper", "lr": 1e-3, "epochs": 2}, []string{"members", "threshold_rule"}},
		{"default with --method proposed: the default's settings", []string{"--method", "proposed", "--epochs", "2", "--pretrain-epochs", "2"},
			"proposed", map[string]any{"preset": "default", "lr": 1e-4, "pretrain_lr": method.EnsembleConfig().PretrainLR, "threshold_rule": "accumulated"},
			[]string{"members", "screen_epochs", "trim"}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"fit", "--json", "--quiet", "--out", strconv.Itoa(i)}, c.args...)
			r := mustUdocc(t, dir, append(args, "table.csv")...)
			var s map[string]any
			if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
				t.Fatalf("--json stdout %q: %v", r.stdout, err)
			}
			if s["method"] != c.method {
				t.Errorf("method %v, want %s", s["method"], c.method)
			}
			checkConfig(t, s, c.config)
			cfg, _ := s["config"].(map[string]any)
			for _, k := range c.absent {
				if v, ok := cfg[k]; ok {
					t.Errorf("config %s = %v, want none for %s", k, v, c.method)
				}
			}
		})
	}
}

// TestEnsembleSeeds checks which members --seed names: a single seed s the members s to
// s+members-1, a list exactly its seeds.
func TestEnsembleSeeds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 40, 3, false, 45)
	cases := []struct {
		name  string
		args  []string
		seeds []int
	}{
		{"--seed 3: members 3 to 7", []string{"--seed", "3"}, []int{3, 4, 5, 6, 7}},
		{"--seed 3 --members 2: members 3 and 4", []string{"--seed", "3", "--members", "2"}, []int{3, 4}},
		{"--seed 0,3: exactly members 0 and 3", []string{"--seed", "0,3"}, []int{0, 3}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, strconv.Itoa(i))
			mustUdocc(t, dir, fitArgs(append(c.args, "--out", out, "--member-scores", "table.csv")...)...)
			s := readSummary(t, filepath.Join(out, "summary.json"))
			want, _ := json.Marshal(c.seeds)
			if got, _ := json.Marshal(s["seeds"]); string(got) != string(want) || number(t, s, "seed") != float64(c.seeds[0]) {
				t.Errorf("seeds %s, seed %v; want %s, %d", got, s["seed"], want, c.seeds[0])
			}
			checkConfig(t, s, map[string]any{"members": len(c.seeds)})
			sc := readCSV(t, filepath.Join(out, "scores.csv"))
			for _, k := range c.seeds {
				sc.col(t, fmt.Sprintf("score_seed%d", k))
				for _, f := range []string{"member-%d.pt", "autoencoder-%d.pt"} {
					if _, err := os.Stat(filepath.Join(out, "model", fmt.Sprintf(f, k))); err != nil {
						t.Error(err)
					}
				}
			}
			if got := len(sc.header); got != 5+len(c.seeds)+2*3 {
				t.Errorf("scores.csv header %v, want row, score, rank, label, probability, a score per member (no label: members have no threshold of their own) and two columns per explained feature", sc.header)
			}
		})
	}
}

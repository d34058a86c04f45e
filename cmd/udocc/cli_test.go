package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestUsageErrors checks that mistakes in the command line exit 2 with one line on
// stderr, before anything is trained or written: every case in process, and a few through
// the binary.
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir) // run resolves table.csv and udocc-out from here
	writeTable(t, filepath.Join(dir, "table.csv"), 50, 3, true, 10)
	cases := []struct {
		name string
		args []string
		want string // a part of the message
	}{
		{"unknown flag", []string{"fit", "--bogus", "table.csv"}, "unknown flag: --bogus"},
		{"--ratio with the default ensemble", []string{"fit", "--ratio", "0.1", "table.csv"}, "--ratio"},
		{"--ratio with proposed", []string{"fit", "--method", "proposed", "--ratio", "0.1", "table.csv"}, "--ratio"},
		{"--ratio with oc", []string{"fit", "--method", "oc", "--ratio", "0.1", "table.csv"}, "--ratio"},
		{"tar without --ratio", []string{"fit", "--method", "tar", "table.csv"}, "--ratio"},
		{"sb with --ratio 1.5", []string{"fit", "--method", "sb", "--ratio", "1.5", "table.csv"}, "--ratio"},
		{"--ratio not a number", []string{"fit", "--method", "sb", "--ratio", "a tenth", "table.csv"}, "--ratio"},
		{"missing DATA", []string{"fit"}, "DATA"},
		{"two DATA files", []string{"fit", "table.csv", "table.csv"}, "DATA"},
		{"unknown method", []string{"fit", "--method", "svm", "table.csv"}, "--method"},
		{"seed not a number", []string{"fit", "--seed", "abc", "table.csv"}, "--seed"},
		{"seed range backwards", []string{"fit", "--seed", "3-1", "table.csv"}, "--seed"},
		{"empty seed in a list", []string{"fit", "--seed", "0,,2", "table.csv"}, "--seed"},
		{"unknown device", []string{"fit", "--device", "tpu", "table.csv"}, "--device"},
		{"device index not a number", []string{"fit", "--device", "cuda:x", "table.csv"}, "--device"},
		{"arch with a zero width", []string{"fit", "--arch", "32,0", "table.csv"}, "--arch"},
		{"zero epochs", []string{"fit", "--epochs", "0", "table.csv"}, "--epochs 0"},
		// The library reads a zero as the default and a negative as none; the flags refuse
		// both where they did before the library did.
		{"zero learning rate", []string{"fit", "--lr", "0", "table.csv"}, "--lr 0"},
		{"zero batch size", []string{"fit", "--batch-size", "0", "table.csv"}, "--batch-size 0"},
		{"zero trim", []string{"fit", "--trim", "0", "table.csv"}, "--trim 0"},
		{"negative pretraining epochs", []string{"fit", "--pretrain-epochs", "-1", "table.csv"}, "--pretrain-epochs -1"},
		{"negative screening epochs", []string{"fit", "--screen-epochs", "-1", "table.csv"}, "--screen-epochs -1"},
		{"negative weight decay", []string{"fit", "--weight-decay", "-1e-6", "table.csv"}, "--weight-decay -1e-06"},
		{"negative training rows", []string{"fit", "--train-rows", "-1", "table.csv"}, "--train-rows -1"},
		{"negative components", []string{"fit", "--components", "-1", "table.csv"}, "--components -1"},
		{"components with oc", []string{"fit", "--method", "oc", "--components", "32", "table.csv"}, "--components is only for --method ensemble"},
		{"--threshold with oc", []string{"fit", "--method", "oc", "--threshold", "paper", "table.csv"}, "--threshold"},
		{"score without --model", []string{"score", "table.csv"}, "--model"},
		{"score without DATA", []string{"score", "--model", "m"}, "DATA"},
		{"score on an unknown device", []string{"score", "--model", "m", "--device", "gpu", "table.csv"}, "--device"},
		{"score with no threads", []string{"score", "--model", "m", "--threads", "0", "table.csv"}, "--threads 0"},
		{"score with a second DATA", []string{"score", "--model", "m", "--quiet", "--json", "table.csv", "table.csv"}, "DATA"},
		{"demo with an argument", []string{"demo", "table.csv"}, "no arguments"},
		{"version with an argument", []string{"version", "now"}, "no arguments"},
		{"unknown subcommand", []string{"train", "table.csv"}, `unknown command "train"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			oneErrorLine(t, inProcess(c.args...), 2, c.want)
			if _, err := os.Stat(filepath.Join(dir, "udocc-out")); err == nil {
				t.Fatal("a usage error wrote udocc-out")
			}
		})
	}
	for _, i := range []int{0, 1, 4, len(cases) - 1} {
		c := cases[i]
		t.Run(c.name+", through the binary", func(t *testing.T) {
			oneErrorLine(t, udocc(t, dir, c.args...), 2, c.want)
		})
	}
	t.Run("no command prints the usage to stderr", func(t *testing.T) {
		r := inProcess()
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "Usage:") {
			t.Errorf("exit %d, stdout %q, stderr %q; want 2 and the usage on stderr", r.code, r.stdout, r.stderr)
		}
	})
}

// TestRuntimeErrors checks that a failure that is not the command line's exits 1 with one
// line on stderr, and that no output is written.
func TestRuntimeErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 50, 3, true, 11)
	os.WriteFile(filepath.Join(dir, "table.xlsx"), []byte("a,b\n1,2\n"), 0o644)
	cases := []struct {
		name string
		args []string // after fit and the tiny training flags
		want string
	}{
		{"missing DATA file", []string{"absent.csv"}, "absent.csv"},
		{"unknown DATA extension", []string{"table.xlsx"}, `".xlsx"`},
		{"label column that is not there", []string{"--label", "class", "table.csv"}, `"class"`},
	}
	if v := inProcess("version"); strings.Contains(v.stdout, "no CUDA") {
		cases = append(cases, struct {
			name string
			args []string
			want string
		}{"cuda on a libtorch without CUDA", []string{"--device", "cuda", "table.csv"}, "cuda"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := udocc(t, dir, fitArgs(c.args...)...)
			oneErrorLine(t, r, 1, c.want)
			if _, err := os.Stat(filepath.Join(dir, "udocc-out")); err == nil {
				t.Fatal("a failed fit wrote udocc-out")
			}
		})
	}
}

// TestBadCells checks that a table with a cell that is not a finite number exits 1 with
// an error naming the line and column, and leaves the output folder as it was. NaN runs
// through the binary, the other cells in process.
func TestBadCells(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 60, 3, true, 12)
	out, fresh, bad := filepath.Join(dir, "o"), filepath.Join(dir, "fresh"), filepath.Join(dir, "bad.csv")
	mustUdocc(t, dir, fitArgs("--label", "y", "--out", out, "table.csv")...)
	before := snapshot(t, out)
	good, err := os.ReadFile(filepath.Join(dir, "table.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(good), "\n")
	const row = 17 // 0-based data row; line row+2 of the file
	cases := []struct {
		name, cell string
		binary     bool
	}{
		{"NaN", "NaN", true},
		{"lower-case nan", "nan", false},
		{"infinity", "Inf", false},
		{"overflow to infinity", "1e999", false},
		{"empty cell", "", false},
		{"text", "n/a", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cells := strings.Split(lines[row+1], ",")
			cells[2] = c.cell // column 3 of the file, feature b
			lines := slices.Clone(lines)
			lines[row+1] = strings.Join(cells, ",")
			if err := os.WriteFile(bad, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, o := range []string{out, fresh} {
				r := udoccOrInProcess(t, c.binary, dir, fitArgs("--label", "y", "--missing", "error", "--out", o, bad)...)
				oneErrorLine(t, r, 1, `line 19, column 3 ("b")`)
			}
			if after := snapshot(t, out); len(after) != len(before) {
				t.Errorf("the output folder had %d files, now %d", len(before), len(after))
			} else {
				for path, content := range before {
					if after[path] != content {
						t.Errorf("%s changed", path)
					}
				}
			}
			if l := leftovers(t, out); len(l) > 0 {
				t.Errorf("temporary files left: %v", l)
			}
			if _, err := os.Stat(fresh); err == nil {
				t.Error("a failed fit made its output folder")
			}
		})
	}
}

// TestHelp checks that -h prints each command's flags with their defaults to stdout,
// once, and exits 0: every case in process, and fit -h through the binary.
func TestHelp(t *testing.T) {
	fitDefaults := []string{
		`udocc fit \[flags\] DATA`, `\.csv, \.tsv, \.txt, each optionally \.gz, \.parquet, \.mat, \.npy or \.npz; - is stdin`,
		`--preset string .*default.* or paper .*\(default "default"\)`,
		`--method string .*ensemble, proposed, oc, sb, otsu or tar .*\(default "ensemble"\)`,
		`--contamination float `,
		`--members int .*\(default 5\)`,
		`--threshold string .*default learned\).*default accumulated`,
		`--ratio float .*sb.*tar`,
		`--arch string .*32,16,8`,
		`--pretrain-epochs int .*--preset paper: 100\) \(default 60\)`,
		`--screen-epochs int .*screening fit.*\(default 50\)`,
		`--trim float .*leaves out \(default 0\.1\)`,
		`--epochs int .*--preset paper: 50\) \(default 10\)`,
		`--batch-size int .*\(default 128\)`,
		`--lr float .*--preset paper: 1e-3\) \(default 0\.0001\)`,
		`--pretrain-lr float .*\(default 0\.003\)`,
		`--weight-decay float .*\(default 1e-06\)`,
		`--seed string .*\(default "0"\)`,
		`--device string .*cpu, cuda or cuda:N \(default "cpu"\)`,
		`--json `, `--quiet `,
	}
	cases := []struct {
		name string
		args []string
		want []string // regular expressions, each matching somewhere in stdout
	}{
		{"fit -h", []string{"fit", "-h"}, append(fitDefaults,
			`--out string .*\(default udocc-out/<data name>\)`, `--label string `)},
		{"fit --help", []string{"fit", "--help"}, fitDefaults},
		{"score -h", []string{"score", "-h"}, []string{
			`udocc score --model DIR`, `--model string `, `--device string .*\(default "cpu"\)`,
			`--out string .*udocc-out/<data name>-scored`, `--label string `, `--json `}},
		{"demo -h", []string{"demo", "-h"}, append(fitDefaults[2:],
			`--rows int .*\(default 2000\)`, `--anomaly-ratio float .*\(default 0\.05\)`,
			`--out string .*\(default "udocc-out/demo"\)`)},
		{"version -h", []string{"version", "-h"}, []string{`udocc version`}},
		{"udocc -h", []string{"-h"}, []string{`udocc fit +\[flags\] DATA`, `udocc score `, `udocc demo `,
			`udocc version `}},
		{"udocc help", []string{"help"}, []string{`Usage:`}},
		{"udocc help fit", []string{"help", "fit"}, fitDefaults},
		{"udocc help serve", []string{"help", "serve"}, []string{`--model-name string`}},
	}
	check := func(t *testing.T, r result, want []string) {
		t.Helper()
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("exit %d, stderr %q; want 0 and nothing", r.code, r.stderr)
		}
		for _, w := range want {
			if !regexp.MustCompile(w).MatchString(r.stdout) {
				t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
			}
		}
		first := strings.SplitN(r.stdout, "\n", 2)[0]
		if n := strings.Count(r.stdout, first+"\n"); n != 1 {
			t.Errorf("the help is printed %d times:\n%s", n, r.stdout)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { check(t, inProcess(c.args...), c.want) })
	}
	t.Run("fit -h through the binary", func(t *testing.T) {
		check(t, udocc(t, t.TempDir(), cases[0].args...), cases[0].want)
	})
}

// TestVersion checks that version, and udocc --version, name udocc's and libtorch's
// versions.
func TestVersion(t *testing.T) {
	t.Parallel()
	r := mustUdocc(t, t.TempDir(), "version")
	if v := mustUdocc(t, t.TempDir(), "--version"); v.stdout != r.stdout {
		t.Errorf("udocc --version printed %q, udocc version %q", v.stdout, r.stdout)
	}
	for _, w := range []string{`(?m)^udocc ` + regexp.QuoteMeta(Version) + `$`, `(?m)^libtorch \d+\.\d+\.\d+ \(`} {
		if !regexp.MustCompile(w).MatchString(r.stdout) {
			t.Errorf("stdout %q lacks %q", r.stdout, w)
		}
	}
}

// TestFlagNamesOneMeaning checks that no flag name means two things across commands
// (issue 65): explain's attribution is --attribution (fit's --method names the
// detector), its features per row are --explain as in fit, and demo's table width is
// --columns. The earlier names still work, with a note.
func TestFlagNamesOneMeaning(t *testing.T) {
	help := map[string]string{}
	for _, c := range []string{"fit", "explain", "demo", "score"} {
		help[c] = inProcess(c, "-h").stdout
	}
	for _, c := range []struct {
		cmd, flag string
		shown     bool
	}{
		{"explain", "--attribution string", true}, {"explain", "--explain int", true},
		{"explain", "--method", false}, {"explain", "--features", false},
		{"demo", "--columns int", true}, {"demo", "--features", false},
		{"fit", "--method string", true}, {"fit", "--explain int", true},
	} {
		if strings.Contains(help[c.cmd], c.flag) != c.shown {
			t.Errorf("%s -h shows %s: %v, want %v", c.cmd, c.flag, !c.shown, c.shown)
		}
	}
	r := inProcess("explain", "--model", "no-such-model", "--method", "shapley", "x.csv")
	if !strings.Contains(r.stdout+r.stderr, "use --attribution") {
		t.Errorf("explain --method: output %q %q lacks the note", r.stdout, r.stderr)
	}
}

// TestFitHelpGroups checks that fit -h (and demo -h) print their flags in groups a
// newcomer can scan, in order, each flag once (issue 65).
func TestFitHelpGroups(t *testing.T) {
	for _, c := range []struct {
		cmd    string
		groups []string
	}{
		{"fit", []string{"Input and columns:", "Count and threshold:", "Output:", "Training (advanced):"}},
		{"demo", []string{"Count and threshold:", "Output:", "Synthetic table:", "Training (advanced):"}},
	} {
		out := inProcess(c.cmd, "-h").stdout
		at := -1
		for _, g := range c.groups {
			i := strings.Index(out, "\n"+g+"\n")
			if i <= at {
				t.Errorf("%s -h: group %q missing or out of order:\n%s", c.cmd, g, out)
			}
			at = i
		}
		if strings.Contains(out, "\nOther:\n") {
			t.Errorf("%s -h has flags in no group:\n%s", c.cmd, out[strings.Index(out, "\nOther:\n"):])
		}
		for _, f := range []string{"--out string", "--contamination float", "--seed string"} {
			if n := strings.Count(out, f); n != 1 {
				t.Errorf("%s -h shows %s %d times", c.cmd, f, n)
			}
		}
	}
}

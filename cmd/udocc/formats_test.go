package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/pandascsv"
)

// point is a row of the tables these tests write as Parquet.
type point struct {
	A float64 `parquet:"a"`
	B float64 `parquet:"b"`
	C float64 `parquet:"c"`
}

// writeFormats writes one table of n random rows (columns a, b, c) as t.csv, t.csv.gz,
// t.parquet and t.npy in dir.
func writeFormats(t *testing.T, dir string, n int) {
	t.Helper()
	tab := filepath.Join(dir, "t.csv")
	writeTable(t, tab, n, 3, false, 11)
	ds, err := data.Load(tab, data.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(tab)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(b)
	zw.Close()
	rows := make([]point, ds.N)
	for i := range rows {
		r := ds.Row(i)
		rows[i] = point{float64(r[0]), float64(r[1]), float64(r[2])}
	}
	if err := parquet.WriteFile(filepath.Join(dir, "t.parquet"), rows, parquet.MaxRowsPerRowGroup(64)); err != nil {
		t.Fatal(err)
	}
	dict := fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': (%d, 3), }", ds.N)
	hdr := dict + strings.Repeat(" ", 64-(10+len(dict)+1)%64) + "\n"
	npy := append([]byte("\x93NUMPY\x01\x00"), byte(len(hdr)), byte(len(hdr)>>8))
	npy = append(npy, hdr...)
	for _, v := range ds.X {
		npy = binary.LittleEndian.AppendUint64(npy, math.Float64bits(float64(v)))
	}
	for name, content := range map[string][]byte{"t.csv.gz": gz.Bytes(), "t.npy": npy} {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSameScoresEveryFormat fits one table read from CSV, CSV.gz, Parquet and NPY, and
// from CSV on stdin: every scores.csv must be the same bytes, but that a .npy, which has
// no column names, names the explained features x1, x2, x3 where the others say a, b, c.
func TestSameScoresEveryFormat(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFormats(t, dir, 120)
	tinyFit := []string{"fit", "--pretrain-epochs", "2", "--epochs", "2", "--quiet"}
	var want []byte
	for _, file := range []string{"t.csv", "t.csv.gz", "t.parquet", "t.npy"} {
		out := "out-" + file
		mustUdocc(t, dir, append(tinyFit, "--out", out, file)...)
		got, err := os.ReadFile(filepath.Join(dir, out, "scores.csv"))
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = got
			continue
		}
		if file == "t.npy" {
			got = []byte(strings.NewReplacer(",x1,", ",a,", ",x2,", ",b,", ",x3,", ",c,").Replace(string(got)))
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: scores.csv differs from t.csv's", file)
		}
	}
	r := udoccStdin(t, dir, filepath.Join(dir, "t.csv"), append(tinyFit, "--format", "csv", "--scores-to", "-", "--out", "out-stdin", "-")...)
	if r.code != 0 || r.stdout != string(want) {
		t.Errorf("stdin with --scores-to -: exit %d, stdout differs from t.csv's scores (stderr %q)", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "udocc fit: stdin") {
		t.Errorf("the report is not on stderr: %q", r.stderr)
	}
}

// udoccStdin runs the binary with the file in as its stdin.
func udoccStdin(t *testing.T, dir, in string, args ...string) result {
	t.Helper()
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(udoccBin, args...)
	cmd.Dir, cmd.Stdin = dir, f
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Run()
	return result{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}
}

// TestTableColumns fits a table with an id, a text column and string labels: the id
// reaches scores.csv, the selection model.json and summary.json, score applies it again
// unasked, and --append-to writes the table back with the scores.
func TestTableColumns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "base.csv"), 150, 3, true, 12)
	base := readCSV(t, filepath.Join(dir, "base.csv"))
	var b strings.Builder
	b.WriteString("user,a,y,b,c,city\n")
	for i, r := range base.rows {
		y := map[string]string{"0": "ok", "1": "fraud"}[r[1]]
		fmt.Fprintf(&b, "\"u,%03d\",%s,%s,%s,%s,Paris\n", i, r[0], y, r[2], r[3])
	}
	if err := os.WriteFile(filepath.Join(dir, "users.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	// Without --drop-text, the text columns are encoded: city (one value) one-hot, and
	// user (a different value in every row) left out as an identifier, with a note.
	r := mustUdocc(t, dir, fitArgs("--label", "y", "--positive", "fraud", "--out", "enc", "--quiet=false", "users.csv")...)
	if !strings.Contains(r.stdout, "city = Paris") || !strings.Contains(r.stdout, `column "user" holds a different text in every row, an identifier`) {
		t.Errorf("fit with text columns:\n%s", r.stdout)
	}

	mustUdocc(t, dir, fitArgs("--label", "y", "--positive", "fraud", "--id", "user", "--drop-text",
		"--out", "fit", "--append-to", "scored.parquet", "users.csv")...)
	// The id is carried into the explanations, in the file and on stdout.
	ex := mustUdocc(t, dir, "explain", "--model", "fit/model", "--label", "y", "--positive", "fraud", "--id", "user", "--drop-text",
		"--rows", "4", "--out", "ex", "users.csv")
	if !strings.Contains(ex.stdout, "row 4 (id u,003): score") {
		t.Errorf("udocc explain does not name the row's id:\n%s", ex.stdout)
	}
	if e := readCSV(t, filepath.Join(dir, "ex", "explanations.csv")); len(e.header) < 2 || e.header[0] != "user" || e.col(t, "user")[0] != "u,003" {
		t.Errorf("explanations.csv: header %v, want the id column user first, holding u,003", e.header)
	}
	fit := readCSV(t, filepath.Join(dir, "fit", "scores.csv"))
	if want := []string{"row", "user", "score", "rank", "label", "probability", "true_label"}; len(fit.header) < len(want) || !slices.Equal(fit.header[:len(want)], want) {
		t.Fatalf("scores.csv header %v, want it to start %v (the members' columns follow)", fit.header, want)
	}
	if ids := fit.col(t, "user"); ids[0] != "u,000" || ids[149] != "u,149" {
		t.Errorf("ids %q…%q", ids[0], ids[149])
	}
	if !slices.Equal(fit.col(t, "true_label"), base.col(t, "y")) {
		t.Error("true_label is not fraud = 1")
	}
	s := readSummary(t, filepath.Join(dir, "fit", "summary.json"))
	if f := fmt.Sprint(s["features"]); f != "[a b c]" {
		t.Errorf("summary features %s", f)
	}
	if f := fmt.Sprint(s["text_columns_dropped"]); f != "[city]" {
		t.Errorf("summary text_columns_dropped %s", f)
	}
	var meta struct {
		Features  []string
		Selection data.Selection
	}
	mb, _ := os.ReadFile(filepath.Join(dir, "fit", "model", "model.json"))
	if err := json.Unmarshal(mb, &meta); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(meta.Features, []string{"a", "b", "c"}) || meta.Selection.ID != "user" || !meta.Selection.DropText {
		t.Errorf("model.json features %q selection %+v", meta.Features, meta.Selection)
	}

	t.Run("score applies the model's selection", func(t *testing.T) {
		mustUdocc(t, dir, "score", "--model", "fit/model", "--label", "y", "--positive", "fraud", "--out", "scored", "users.csv")
		sc := readCSV(t, filepath.Join(dir, "scored", "scores.csv"))
		sameScores(t, fit, sc, fit.header...)
	})
	t.Run("--append-to", func(t *testing.T) {
		ds, err := data.Load(filepath.Join(dir, "scored.parquet"), data.LoadOptions{LabelColumn: "label",
			Selection: data.Selection{ID: "user", Columns: []string{"score", "rank"}}})
		if err != nil {
			t.Fatal(err)
		}
		scores, ranks := fit.col(t, "score"), fit.col(t, "rank")
		for i := 0; i < ds.N; i++ {
			// The scores are float32 distances widened, which the table's float32 holds exactly.
			if strconv.FormatFloat(float64(ds.X[2*i]), 'g', -1, 32) != f32Text(t, scores[i]) || strconv.Itoa(int(ds.X[2*i+1])) != ranks[i] {
				t.Fatalf("row %d: score %v rank %v, scores.csv has %s %s", i, ds.X[2*i], ds.X[2*i+1], scores[i], ranks[i])
			}
		}
		if !slices.Equal(ds.IDs, fit.col(t, "user")) || fmt.Sprint(ds.Y) != fmt.Sprint(fit.col(t, "label")) {
			t.Error("ids or labels differ from scores.csv")
		}
	})
}

// TestTableFlagErrors checks the table flags' mistakes: usage errors before anything is
// read, and a stdin without a format.
func TestTableFlagErrors(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown format", []string{"fit", "--format", "xlsx", "t.csv"}, "--format"},
		{"columns and drop", []string{"fit", "--columns", "a", "--drop", "b", "t.csv"}, "--columns and --drop"},
		{"scores to stdout with --json", []string{"fit", "--scores-to", "-", "--json", "t.csv"}, "--json"},
		{"append to an unknown format", []string{"fit", "--append-to", "out.xlsx", "t.csv"}, "--append-to"},
		{"stdin without --format", []string{"fit", "-"}, "--format"},
		{"an id among the columns", []string{"fit", "--id", "a", "--columns", "a,b", "t.csv"}, "id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			oneErrorLine(t, inProcess(c.args...), 2, c.want)
		})
	}
}

// f32Text is the number s rounded to float32, in the shortest text that reads back as it.
func f32Text(t *testing.T, s string) string {
	t.Helper()
	v, err := strconv.ParseFloat(s, 32)
	if err != nil {
		t.Fatal(err)
	}
	return strconv.FormatFloat(v, 'g', -1, 32)
}

// TestPandasTable fits a table made as pandas' to_csv makes one (internal/pandascsv): an
// unnamed index, a category, a many-valued category, a date, blank cells and a label.
// The index is the id, the category one-hot, the date days; the ';'-separated variant
// with decimal commas scores the same; new rows with a clinic training never saw are
// scored, and the report says so; an explanation names the category's value.
func TestPandasTable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, eu := range map[string]bool{"visits.csv": false, "visits-eu.csv": true} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := pandascsv.Write(f, 200, 1, eu); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	r := mustUdocc(t, dir, fitArgs("--label", "label", "--out", "fit", "--quiet=false", "visits.csv")...)
	for _, want := range []string{"clinic = Z", "doctor (frequency)", "visit_date (days)", "text column visit_date: a date", "the first column has no name"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("fit's report lacks %q:\n%s", want, r.stdout)
		}
	}
	fit := readCSV(t, filepath.Join(dir, "fit", "scores.csv"))
	if fit.header[1] != "index" || fit.col(t, "index")[7] != "7" {
		t.Errorf("scores.csv header %v: want pandas' index as the id column", fit.header)
	}
	// The European file reads the same, its decimal commas detected and said.
	r = mustUdocc(t, dir, "score", "--model", "fit/model", "--out", "eu", "--quiet=false", "visits-eu.csv")
	if !strings.Contains(r.stdout, "decimal commas") {
		t.Errorf("score of the ';' file does not say it read decimal commas:\n%s", r.stdout)
	}
	sameScores(t, fit, readCSV(t, filepath.Join(dir, "eu", "scores.csv")), "score")
	// --decimal . refuses the commas as numbers.
	if r := udocc(t, dir, "score", "--model", "fit/model", "--decimal", ".", "--out", "eu2", "visits-eu.csv"); r.code == 0 {
		t.Error("--decimal . read decimal commas")
	}
	// New rows: a clinic never seen in training.
	writeText(t, dir, "new.csv", ",clinic,doctor,visit_date,age,cost\n0,Q,dr03,2024-05-01,44,98.5\n1,east,dr03,2024-05-02,45,1000\n")
	r = mustUdocc(t, dir, "score", "--model", "fit/model", "--out", "new", "--quiet=false", "new.csv")
	if !strings.Contains(r.stdout, "did not hold") || !strings.Contains(r.stdout, "clinic 1") {
		t.Errorf("score does not report the unseen clinic:\n%s", r.stdout)
	}
	// The explanation of an anomaly (clinic Z, a tenfold cost) names clinic = Z.
	ex := mustUdocc(t, dir, "explain", "--model", "fit/model", "--label", "label", "--rows", "20", "--out", "ex", "visits.csv")
	if !strings.Contains(ex.stdout, "row 20 (id 19)") || !strings.Contains(ex.stdout, "clinic = Z") && !strings.Contains(ex.stdout, "cost") {
		t.Errorf("explain row 20:\n%s", ex.stdout)
	}
	// The model says how it encodes: model.json's encoding.
	mb, _ := os.ReadFile(filepath.Join(dir, "fit", "model", "model.json"))
	if !strings.Contains(string(mb), `"encoding"`) || !strings.Contains(string(mb), `"one-hot"`) {
		t.Error("model.json keeps no encoding")
	}
}

package data

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/udocc/udocc/internal/pandascsv"
)

// writeVisits writes the pandas-made fixture (internal/pandascsv) into dir and returns
// its path.
func writeVisits(t *testing.T, dir string, european bool) string {
	t.Helper()
	name := "visits.csv"
	if european {
		name = "visits-eu.csv"
	}
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := pandascsv.Write(f, 200, 1, european); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestEncodeVisits(t *testing.T) {
	dir := t.TempDir()
	opts := LoadOptions{Encode: true, Missing: MissingKeep, LabelColumn: "label"}
	ds, err := Load(writeVisits(t, dir, false), opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"age", "cost", "clinic = east", "clinic = west", "clinic = south", "clinic = north", "clinic = Z", "doctor (frequency)", "visit_date (days)"}
	if len(ds.Features) != len(want) || ds.Features[0] != "age" || ds.Features[7] != "doctor (frequency)" || ds.Features[8] != "visit_date (days)" {
		t.Fatalf("features %q, want the numbers, clinic's one-hot, doctor's frequency and the date's days, like %q", ds.Features, want)
	}
	kinds := map[string]string{}
	for _, c := range ds.Encoding.Columns {
		kinds[c.Name] = c.Kind
	}
	if kinds["clinic"] != OneHot || kinds["doctor"] != Frequency || kinds["visit_date"] != Date {
		t.Errorf("kinds %v", kinds)
	}
	// pandas' unnamed index is the id, said in a note.
	if ds.IDs == nil || ds.IDs[5] != "5" || len(ds.Notes) == 0 || !strings.Contains(ds.Notes[0].String(), "no name") {
		t.Errorf("ids %v…, notes %q: want the unnamed first column as the id", ds.IDs[:3], ds.Notes)
	}
	// Row 0 (2024-10-31, east): its date in days, its clinic one-hot.
	row := ds.Row(0)
	if day := float64(row[8]); day != 20027 { // 2024-10-31 is day 20,027 since 1970-01-01
		t.Errorf("visit_date of row 0: %v days", day)
	}
	for j := 2; j <= 6; j++ {
		if want := float32(0); ds.Features[j] == "clinic = east" {
			want = 1
			if row[j] != want {
				t.Errorf("row 0, %s: %v", ds.Features[j], row[j])
			}
		} else if row[j] != want {
			t.Errorf("row 0, %s: %v", ds.Features[j], row[j])
		}
	}
	// Every row is kept: a blank age and cost leave the row its text columns.
	if ds.N != 200 || ds.EmptyRows != nil {
		t.Errorf("%d rows, %v empty: want all 200", ds.N, ds.EmptyRows)
	}

	// The European variant (';' and decimal commas) reads the same, detected.
	eu, err := Load(writeVisits(t, dir, true), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(eu.Features, ds.Features) || !sameFloats(eu.X, ds.X) {
		t.Error("the ';' and decimal-comma file reads differently")
	}
	if !slices.ContainsFunc(eu.Notes, func(n Remedy) bool { return strings.Contains(n.String(), "decimal commas") }) {
		t.Errorf("notes %q: want the decimal comma said", eu.Notes)
	}

	// New rows, read with the fitted encoding: an unseen clinic is 0 in every one-hot
	// feature and counted; an unseen doctor's frequency is 0.
	text := ",clinic,doctor,visit_date,age,cost\n0,Q,dr99,2024-02-01,40,100\n1,east,dr01,2024-02-02,41,101\n"
	path := filepath.Join(dir, "new.csv")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	nw, err := Load(path, LoadOptions{Encoding: ds.Encoding, Missing: MissingKeep})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(nw.Features, ds.Features) {
		t.Fatalf("new rows' features %q", nw.Features)
	}
	clinic := slices.IndexFunc(ds.Encoding.Columns, func(c ColumnCode) bool { return c.Name == "clinic" })
	if nw.Unseen == nil || nw.Unseen[clinic] != 1 {
		t.Errorf("unseen %v: want one unseen clinic", nw.Unseen)
	}
	for j := 2; j <= 6; j++ {
		if nw.Row(0)[j] != 0 {
			t.Errorf("unseen clinic Q: %s is %v", nw.Features[j], nw.Row(0)[j])
		}
	}
	if nw.Row(0)[7] != 0 {
		t.Errorf("unseen doctor: frequency %v", nw.Row(0)[7])
	}
}

func sameFloats(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(float64(a[i])) && math.IsNaN(float64(b[i]))) {
			return false
		}
	}
	return true
}

// TestIndexColumnID: a first column of 0…n−1 is taken as the id, with a note; a first
// column of other numbers stays a feature, and the table reads as before.
func TestIndexColumnID(t *testing.T) {
	dir := t.TempDir()
	index := filepath.Join(dir, "index.csv")
	plainIdx := filepath.Join(dir, "idx2.csv")
	os.WriteFile(index, []byte("idx,a,b\n0,1.5,2\n1,2.5,3\n2,3.5,1\n"), 0o644)
	ds, err := Load(index, LoadOptions{Encode: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ds.Features, []string{"a", "b"}) || !slices.Equal(ds.IDs, []string{"0", "1", "2"}) || ds.IDName != "idx" || len(ds.Notes) != 1 || ds.Selection.ID != "idx" {
		t.Errorf("features %q, ids %q (%s), notes %q, selection %+v: want idx as the id, by name", ds.Features, ds.IDs, ds.IDName, ds.Notes, ds.Selection)
	}
	// A table read with that selection takes idx as the id whatever it holds.
	os.WriteFile(plainIdx, []byte("idx,a,b\n7,1.5,2\n3,2.5,3\n"), 0o644)
	if nw, err := Load(plainIdx, LoadOptions{Selection: ds.Selection}); err != nil || !slices.Equal(nw.IDs, []string{"7", "3"}) || nw.D != 2 {
		t.Errorf("a new table with idx: %v, ids %q", err, nw.IDs)
	}
	plain := filepath.Join(dir, "plain.csv")
	os.WriteFile(plain, []byte("n,a,b\n3,1.5,2\n1,2.5,3\n2,3.5,1\n"), 0o644)
	ds, err = Load(plain, LoadOptions{Encode: true})
	if err != nil {
		t.Fatal(err)
	}
	if ds.IDs != nil || !slices.Equal(ds.Features, []string{"n", "a", "b"}) || ds.Notes != nil {
		t.Errorf("features %q, ids %q, notes %q: want every column a feature", ds.Features, ds.IDs, ds.Notes)
	}
	// --drop "" leaves pandas' unnamed index out instead.
	os.WriteFile(index, []byte(",a,b\n0,1.5,2\n1,2.5,3\n2,3.5,1\n"), 0o644)
	o := LoadOptions{}
	o.Selection.Drop = []string{""}
	if ds, err = Load(index, o); err != nil || ds.IDs != nil || !slices.Equal(ds.Features, []string{"a", "b"}) {
		t.Errorf("--drop \"\": %v, features %q, ids %q", err, ds.Features, ds.IDs)
	}
}

package synth

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/odds"
)

// loadODDS reads one ODDS file from odds.FindDir, skipping the test
// when the folder or the file is absent.
func loadODDS(tb testing.TB, name string) *data.Dataset {
	tb.Helper()
	dir := odds.FindDir()
	if dir == "" {
		tb.Skip("no ODDS folder: set UDOCC_DATA or put the files in ../shared/data/odds")
	}
	ds, err := data.Load(filepath.Join(dir, name+".mat"), data.LoadOptions{})
	if err != nil {
		tb.Skipf("%s not readable: %v", name, err)
	}
	return ds
}

// TestCardioGrid generates the 24 tables (4 kinds × 6 ratios) of cardio and
// checks their names, shapes, labels and that the normals are kept. It logs
// the time the fit and the tables took; no assertion is made on it.
func TestCardioGrid(t *testing.T) {
	ds := loadODDS(t, "cardio")
	start := time.Now()
	g, err := NewFromDataset(ds, 7, Options{})
	if err != nil {
		t.Fatal(err)
	}
	k, err := g.Components()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cardio: %d normals × %d, K = %d, fit in %v", g.Normals(), ds.D, k, time.Since(start))
	normals := ds.N - ds.Anomalies()
	if g.Normals() != normals {
		t.Fatalf("Normals() = %d, want %d", g.Normals(), normals)
	}
	start = time.Now()
	for _, kind := range Kinds() {
		for _, ratio := range Ratios {
			tab, err := g.Dataset(kind, ratio, 1)
			if err != nil {
				t.Fatalf("%s %v: %v", kind, ratio, err)
			}
			want := Spec{Base: "cardio", Kind: kind, Ratio: ratio}.Name()
			if tab.Name != want {
				t.Errorf("name %q, want %q", tab.Name, want)
			}
			if err := tab.Validate(); err != nil {
				t.Errorf("%s: %v", tab.Name, err)
			}
			a := AnomalyCount(normals, ratio)
			if tab.N != normals+a || tab.D != ds.D || tab.Anomalies() != a {
				t.Errorf("%s: %d×%d with %d anomalies, want %d×%d with %d", tab.Name, tab.N, tab.D, tab.Anomalies(), normals+a, ds.D, a)
			}
			if !sameMultiset(rowsOf(tab.X, tab.Y, ds.D, 0), rowsOf(ds.X, ds.Y, ds.D, 0)) {
				t.Errorf("%s: normal rows changed", tab.Name)
			}
		}
	}
	t.Logf("24 tables in %v", time.Since(start))
}

// BenchmarkMNIST measures, on mnist's 6903 normals × 100 features,
// fitting the mixture (BIC over K = 1…5 on 2000 rows) and generating the
// 24 tables of the grid from a fitted Generator.
func BenchmarkMNIST(b *testing.B) {
	ds := loadODDS(b, "mnist")
	b.Run("fit", func(b *testing.B) {
		for b.Loop() {
			g, err := NewFromDataset(ds, 1, Options{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := g.Components(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/fit")
	})
	b.Run("tables", func(b *testing.B) {
		g, err := NewFromDataset(ds, 1, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := g.Components(); err != nil {
			b.Fatal(err)
		}
		rows := 0
		for b.Loop() {
			for _, kind := range Kinds() {
				for _, ratio := range Ratios {
					_, y, err := g.Table(kind, ratio, 1)
					if err != nil {
						b.Fatal(err)
					}
					rows += len(y)
				}
			}
		}
		b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	})
}

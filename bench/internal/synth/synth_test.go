package synth

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/udocc/udocc/data"
)

// twoClusters returns n rows of d = 3 features from two well separated
// Gaussians, 30 % and 70 % of the rows.
func twoClusters(seed uint64, n int) []float64 {
	rng := rand.New(rand.NewPCG(seed, 0))
	a := gaussianRows(rng, n*3/10, []float64{-6, 0, 2}, []float64{1, 0, 0, 0.5, 1, 0, 0, 0, 0.5})
	b := gaussianRows(rng, n-n*3/10, []float64{6, 4, 2}, []float64{0.7, 0, 0, -0.3, 1.2, 0, 0.2, 0, 1})
	return append(a, b...)
}

func TestSpecName(t *testing.T) {
	for _, c := range []struct {
		spec Spec
		want string
	}{
		{Spec{"cardio", Local, 0.05, 1}, "cardio-local-5"},
		{Spec{"satimage-2", Clustered, 0.35, 1}, "satimage-2-clustered-35"},
		{Spec{"pima", Dependency, 0.01, 1}, "pima-dependency-1"},
		{Spec{"wbc", Global, 0.025, 1}, "wbc-global-2.5"},
		{Spec{"", Global, 0.1, 1}, "global-10"},
	} {
		if got := c.spec.Name(); got != c.want {
			t.Errorf("%+v.Name() = %q, want %q", c.spec, got, c.want)
		}
	}
	for _, r := range Ratios {
		if got := (Spec{Base: "b", Kind: Local, Ratio: r}).Name(); got != "b-local-"+map[float64]string{
			0.01: "1", 0.02: "2", 0.05: "5", 0.10: "10", 0.20: "20", 0.35: "35"}[r] {
			t.Errorf("ratio %v: name %q", r, got)
		}
	}
}

func TestAnomalyCount(t *testing.T) {
	for _, c := range []struct {
		name     string
		normals  int
		ratio    float64
		want     int
		whatItIs string
	}{
		{"cardio 35%", 1655, 0.35, 891, "round(0.35·1655/0.65) = round(891.15)"},
		{"cardio 1%", 1655, 0.01, 17, "round(16.72)"},
		{"exact", 65, 0.35, 35, "35/(65+35) is exactly 35 %"},
		{"at least one", 10, 0.01, 1, "round(0.101) = 0 is raised to 1"},
		{"rounds half up", 198, 0.01, 2, "round(2.0) for 1 % of 200 rows"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := AnomalyCount(c.normals, c.ratio); got != c.want {
				t.Errorf("AnomalyCount(%d, %v) = %d, want %d (%s)", c.normals, c.ratio, got, c.want, c.whatItIs)
			}
		})
	}
	// Property: with a = t + e, t = ratio·n/(1−ratio) and |e| ≤ ½, the
	// achieved ratio a/(n+a) misses ratio by e·(1−ratio)/(n+a).
	for n := 1; n <= 3000; n += 7 {
		for _, r := range Ratios {
			a := AnomalyCount(n, r)
			if a == 1 {
				continue
			}
			if miss := math.Abs(float64(a)/float64(n+a) - r); miss > 0.5*(1-r)/float64(n+a)+1e-15 {
				t.Fatalf("n=%d ratio %v: %d anomalies miss the ratio by %g", n, r, a, miss)
			}
		}
	}
}

// TestTableShape checks, for every kind and ratio, the exact anomaly
// count, the row count, finite values, and that the normal rows are the
// input normals as a multiset.
func TestTableShape(t *testing.T) {
	const n, d = 300, 3
	normals := twoClusters(1, n)
	g, err := NewGenerator(normals, n, d, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := rowsOf(normals, make([]int, n), d, 0)
	for _, kind := range Kinds() {
		for _, ratio := range Ratios {
			t.Run(Spec{Kind: kind, Ratio: ratio}.Name(), func(t *testing.T) {
				x, y, err := g.Table(kind, ratio, 3)
				if err != nil {
					t.Fatal(err)
				}
				a := AnomalyCount(n, ratio)
				if len(y) != n+a || len(x) != (n+a)*d {
					t.Fatalf("%d labels, %d values; want %d rows of %d", len(y), len(x), n+a, d)
				}
				if got := len(rowsWith(x, y, d, 1)) / d; got != a {
					t.Errorf("%d anomalies, want %d", got, a)
				}
				for k, v := range x {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						t.Fatalf("value %d is %v", k, v)
					}
				}
				if !sameMultiset(rowsOf(x, y, d, 0), want) {
					t.Error("normal rows differ from the input normals")
				}
			})
		}
	}
}

// TestShuffled checks that the anomalies are spread over the table, not
// appended at its end.
func TestShuffled(t *testing.T) {
	g, err := NewGenerator(twoClusters(1, 400), 400, 3, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, y, err := g.Table(Global, 0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if first := slices.Index(y, 1); first > len(y)/4 {
		t.Errorf("first anomaly at row %d of %d", first, len(y))
	}
	if slices.Equal(y[400:], slices.Repeat([]int{1}, len(y)-400)) {
		t.Error("anomalies are the last rows")
	}
}

// TestDeterminism checks that the same seeds give identical tables, and a
// different table seed or generator seed different anomalies.
func TestDeterminism(t *testing.T) {
	const n, d = 300, 3
	normals := twoClusters(2, n)
	table := func(genSeed, seed uint64, kind Kind) ([]float64, []int) {
		g, err := NewGenerator(normals, n, d, genSeed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		x, y, err := g.Table(kind, 0.1, seed)
		if err != nil {
			t.Fatal(err)
		}
		return x, y
	}
	for _, kind := range Kinds() {
		t.Run(string(kind), func(t *testing.T) {
			x1, y1 := table(1, 5, kind)
			x2, y2 := table(1, 5, kind)
			if !slices.Equal(x1, x2) || !slices.Equal(y1, y2) {
				t.Error("same seeds, different tables")
			}
			x3, _ := table(1, 6, kind)
			if slices.Equal(rowsOf(x1, y1, d, 1), rowsOf(x3, y1, d, 1)) {
				t.Error("another table seed gives the same anomalies")
			}
			spec := Spec{Kind: kind, Ratio: 0.1, Seed: 5}
			x4, y4, err := Generate(normals, n, d, spec, Options{})
			if err != nil {
				t.Fatal(err)
			}
			x5, y5 := table(5, 5, kind)
			if !slices.Equal(x5, x4) || !slices.Equal(y5, y4) {
				t.Error("Generate differs from NewGenerator + Table with the same seed")
			}
		})
	}
	// The generator seed fixes the mixture fit (its k-means++ start), so a
	// different one may change local anomalies even with the same table
	// seed; the MaxNormals subsample certainly changes.
	g1, _ := NewGenerator(normals, n, d, 1, Options{MaxNormals: 100})
	g2, _ := NewGenerator(normals, n, d, 2, Options{MaxNormals: 100})
	x1, y1, _ := g1.Table(Global, 0.1, 1)
	x2, y2, _ := g2.Table(Global, 0.1, 1)
	if slices.Equal(rowsOf(x1, y1, d, 0), rowsOf(x2, y2, d, 0)) {
		t.Error("another generator seed keeps the same MaxNormals subsample")
	}
}

// TestMaxNormals checks that the cap keeps a subset of the normals and
// sizes the anomalies by it.
func TestMaxNormals(t *testing.T) {
	const n, d = 300, 3
	normals := twoClusters(3, n)
	g, err := NewGenerator(normals, n, d, 1, Options{MaxNormals: 120})
	if err != nil {
		t.Fatal(err)
	}
	if g.Normals() != 120 {
		t.Fatalf("Normals() = %d, want 120", g.Normals())
	}
	x, y, err := g.Table(Local, 0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(y) != 120+AnomalyCount(120, 0.2) {
		t.Errorf("%d rows", len(y))
	}
	all := rowsOf(normals, make([]int, n), d, 0)
	for _, r := range rowsOf(x, y, d, 0) {
		if _, ok := slices.BinarySearch(all, r); !ok {
			t.Fatalf("kept row %s is not a normal", r)
		}
	}
}

func TestErrors(t *testing.T) {
	normals := twoClusters(1, 50)
	g, err := NewGenerator(normals, 50, 3, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	nan := slices.Clone(normals)
	nan[7] = math.NaN()
	for _, c := range []struct {
		name string
		err  error
		want error
	}{
		{"unknown kind", second(g.Table("outlier", 0.1, 1)), ErrKind},
		{"ratio 0", second(g.Table(Local, 0, 1)), ErrRatio},
		{"ratio 1", second(g.Table(Local, 1, 1)), ErrRatio},
		{"ratio NaN", second(g.Table(Local, math.NaN(), 1)), ErrRatio},
		{"spec kind", Spec{Kind: "x", Ratio: 0.1}.Validate(), ErrKind},
		{"length", errOf(NewGenerator(normals, 50, 4, 1, Options{})), ErrInput},
		{"no rows", errOf(NewGenerator(nil, 0, 3, 1, Options{})), ErrInput},
		{"NaN", errOf(NewGenerator(nan, 50, 3, 1, Options{})), ErrInput},
		{"negative option", errOf(NewGenerator(normals, 50, 3, 1, Options{Alpha: -1})), ErrOptions},
		{"unlabelled", errOf(NewFromDataset(&data.Dataset{Name: "u", N: 50, D: 3, X: f32(normals)}, 1, Options{})), ErrInput},
		{"no normals", errOf(NewFromDataset(&data.Dataset{Name: "a", N: 1, D: 3, X: f32(normals[:3]), Y: []int{1}}, 1, Options{})), ErrInput},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !errors.Is(c.err, c.want) {
				t.Errorf("error %v, want %v", c.err, c.want)
			}
		})
	}
}

func second(_ []float64, _ []int, err error) error { return err }

func errOf(_ *Generator, err error) error { return err }

// TestDataset checks the data.Dataset form: name, features, validity.
func TestDataset(t *testing.T) {
	x := twoClusters(4, 60)
	ds := &data.Dataset{Name: "toy", N: 70, D: 3, X: f32(append(x, make([]float64, 30)...)),
		Y: append(make([]int, 60), slices.Repeat([]int{1}, 10)...), Features: []string{"a", "b", "c"}}
	g, err := NewFromDataset(ds, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g.Normals() != 60 {
		t.Fatalf("Normals() = %d, want the 60 rows labelled 0", g.Normals())
	}
	tab, err := g.Dataset(Dependency, 0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := tab.Validate(); err != nil {
		t.Fatal(err)
	}
	if tab.Name != "toy-dependency-20" || !slices.Equal(tab.Features, ds.Features) || tab.Anomalies() != 15 {
		t.Errorf("name %q, features %v, %d anomalies", tab.Name, tab.Features, tab.Anomalies())
	}
}

package odds

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/udocc/udocc/data"
)

// scipyValues are X[0, 0], X[n/2, d/2], X[n-1, d-1] and the sum of X for
// each ODDS file, made with SciPy 1.10.1 (Debian bookworm python3-scipy):
// X = scipy.io.loadmat(file, mat_dtype=True)["X"]; math.fsum for the sum;
// printed with repr.
var scipyValues = map[string][4]float64{
	"pima":       {6.0, 110.0, 23.0, 276392.701},
	"satellite":  {92.0, 119.0, 92.0, 19337086.0},
	"arrhythmia": {75.0, 0.0, 32.8, 1253974.4},
	"cardio":     {0.004912314661768384, -0.15551766644128867, -0.49329396944014214, 1.8606121417880095e-12},
	"mnist":      {-0.003599999938160181, -0.3360166549682617, 0.0, 9506151.731410922},
	"wbc":        {0.310426428132, 0.0961937092559, 0.414928505838, 2196.7689126763808},
	"glass":      {1.52101, 70.16, 0.0, 21698.0302},
	"thyroid":    {0.774193548387, 0.345794392523, 0.16393442623, 5814.554025547037},
	"pendigits":  {0.469770005467, 0.0, 0.400910494416, 55870.97332217406},
	"satimage-2": {92.0, 109.0, 143.0, 17509097.0},
}

// TestLoadODDS loads the ten ODDS files of the shared data folder and
// checks them against Table I (the registry).
func TestLoadODDS(t *testing.T) {
	dir := FindDir()
	if dir == "" {
		t.Skip("ODDS folder not found: set UDOCC_DATA or place the files in shared/data/odds beside the checkout")
	}
	for _, s := range Sets() {
		t.Run(s.Name, func(t *testing.T) {
			path := filepath.Join(dir, s.File)
			if err := verifyFile(path, s); err != nil {
				t.Fatalf("verify: %v", err)
			}
			ds, err := data.Load(path, data.LoadOptions{})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if ds.N != s.N || ds.D != s.D || ds.Anomalies() != s.Anomalies {
				t.Errorf("%d×%d with %d anomalies, want %d×%d with %d", ds.N, ds.D, ds.Anomalies(), s.N, s.D, s.Anomalies)
			}
			if ds.Name != s.Name || len(ds.Y) != ds.N {
				t.Errorf("name %q, %d labels", ds.Name, len(ds.Y))
			}
			want := scipyValues[s.Name]
			got := [3]float32{ds.X[0], ds.Row(ds.N / 2)[ds.D/2], ds.X[len(ds.X)-1]}
			if got != [3]float32(f32(want[:3])) {
				t.Errorf("X[0,0], X[n/2,d/2], X[n-1,d-1] = %v, SciPy %v", got, want[:3])
			}
			sum, abs := 0.0, 0.0
			for _, v := range ds.X {
				sum += float64(v)
				abs += math.Abs(float64(v))
			}
			// Summation order differs from fsum; cardio's columns are
			// centred, so its sum is near zero and the bound is absolute.
			// Each value is SciPy's rounded to float32, off by at most
			// |v|·2^-24: their sum is off by at most Σ|v|·2^-24.
			if math.Abs(sum-want[3]) > 1e-9*max(1, math.Abs(want[3]))+abs*0x1p-24 {
				t.Errorf("sum of X = %.17g, SciPy %.17g", sum, want[3])
			}
		})
	}
}

// TestODDSRegistry checks the table's own consistency and Lookup.
func TestODDSRegistry(t *testing.T) {
	sets := Sets()
	if len(sets) != 10 {
		t.Fatalf("%d sets, want the 10 of Table I", len(sets))
	}
	for _, s := range sets {
		got, ok := Lookup(s.Name)
		if !ok || got != s {
			t.Errorf("Lookup(%q) = %+v, %v", s.Name, got, ok)
		}
		if s.File != s.Name+".mat" || len(s.SHA256) != 64 || !strings.Contains(s.URL, "/"+s.File+"?dl=1") {
			t.Errorf("inconsistent entry %+v", s)
		}
	}
	if _, ok := Lookup("shuttle"); ok {
		t.Error("Lookup found a set outside Table I")
	}
	sets[0].Name = "changed"
	if Sets()[0].Name != "pima" {
		t.Error("Sets returned the registry itself, not a copy")
	}
}

// BenchmarkLoadMNIST measures the MAT v5 reader on the largest ODDS file
// by values (7603×100, zlib-compressed doubles).
func BenchmarkLoadMNIST(b *testing.B) {
	dir := FindDir()
	if dir == "" {
		b.Skip("ODDS folder not found")
	}
	path := filepath.Join(dir, "mnist.mat")
	for i := 0; i < b.N; i++ {
		if _, err := data.Load(path, data.LoadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(7603*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// f32 narrows xs to float32, as a table holds its values.
func f32(xs []float64) []float32 {
	out := make([]float32, len(xs))
	for i, v := range xs {
		out[i] = float32(v)
	}
	return out
}

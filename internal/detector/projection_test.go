package detector

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/method"
	"github.com/udocc/udocc/internal/models"
)

// wideTable is n rows of d columns driven by 5 latent factors plus noise, its last 10
// rows shifted along a direction the normal rows do not use.
func wideTable(n, d int) *data.Dataset {
	rng := rand.New(rand.NewPCG(11, 12))
	basis := make([][]float64, 6)
	for i := range basis {
		basis[i] = make([]float64, d)
		for j := range basis[i] {
			basis[i][j] = rng.NormFloat64()
		}
	}
	ds := &data.Dataset{Name: "wide", N: n, D: d, X: make([]float32, n*d)}
	for r := 0; r < n; r++ {
		for i, b := range basis[:5] {
			f := rng.NormFloat64() / float64(i+1)
			for j := range b {
				ds.X[r*d+j] += float32(f * b[j])
			}
		}
		if r >= n-10 {
			for j, v := range basis[5] {
				ds.X[r*d+j] += float32(1.5 * v)
			}
		}
		for j := 0; j < d; j++ {
			ds.X[r*d+j] += float32(0.05 * rng.NormFloat64())
		}
	}
	return ds
}

// quickWideOptions is a quick ensemble of 32 components; wideOptions its shared settings.
func quickWideOptions() Ensemble { return Ensemble{ScreenEpochs: 3, Components: 32} }

var wideOptions = Options{PretrainEpochs: 3, Epochs: 2, Members: 2, Threads: 1}

func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-5*(1+math.Abs(b)) }

// TestProjectedModel: a table of more than 300 columns is read through its 32 leading
// components (Ensemble.Components), kept in the model: a saved and loaded model scores
// the table as the fit did, a row alone as in the table, and explains a row by
// occlusion of its columns, each part the score less that of the row with the column
// set to the normal median — computed here the long way, through Score. Integrated
// gradients are refused with an error naming the components; Components 0 (the default)
// reads every column, and a negative one is an error naming the option.
func TestProjectedModel(t *testing.T) {
	ctx := context.Background()
	ds := wideTable(240, 320)
	netsOnly := quickWideOptions()
	netsOnly.Gaussian = -1 // occlusion as it is; TestProjectedGaussian explains the mix
	m, err := FitDataset(ctx, ds, netsOnly, wideOptions)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	p := m.meta.Projection
	if p == nil || m.meta.Sizes[0] != 32 || p.Map.D != 320 || m.Inputs() != 320 {
		t.Fatalf("projection %v, sizes %v, inputs %d: want 32 components of 320 columns", p != nil, m.meta.Sizes, m.Inputs())
	}
	dir := filepath.Join(t.TempDir(), "model")
	if err := m.Save(dir); err != nil {
		t.Fatal(err)
	}
	l, err := Load(dir, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if info := modelInfo(l, dir, nil); info.Components != 32 || info.Inputs != 320 || info.GaussianWeight != 0 {
		t.Errorf("served model info: %d components of %d inputs, Gaussian weight %v; want 32 of 320, none", info.Components, info.Inputs, info.GaussianWeight)
	}
	got, _, err := l.ScoreDataset(ctx, ds)
	if err != nil {
		t.Fatal(err)
	}
	train := m.Scores()
	for i := range train {
		if !closeTo(got[i], train[i]) {
			t.Fatalf("row %d scores %v after load, %v in the fit", i+1, got[i], train[i])
		}
	}
	last := make([]float64, ds.D)
	for j, v := range ds.Row(ds.N - 1) {
		last[j] = float64(v)
	}
	alone, err := l.Score(ctx, [][]float64{last})
	if err != nil {
		t.Fatal(err)
	}
	if !closeTo(alone[0], got[ds.N-1]) {
		t.Errorf("the last row scores %v alone, %v in the table", alone[0], got[ds.N-1])
	}

	// Every third column at the normal median: its occluded row is the row, its part 0,
	// left unscored.
	median := l.meta.Normal.Median
	for j := 0; j < ds.D; j += 3 {
		last[j] = median[j]
	}
	if alone, err = l.Score(ctx, [][]float64{last}); err != nil {
		t.Fatal(err)
	}
	atts, err := l.Explain(ctx, [][]float64{last})
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < ds.D; j += 3 {
		if atts[0].Features[j] != 0 {
			t.Fatalf("column %d, at the median: part %v, want 0", j+1, atts[0].Features[j])
		}
	}
	occluded := make([][]float64, ds.D)
	for j := range occluded {
		occluded[j] = append([]float64(nil), last...)
		occluded[j][j] = median[j]
	}
	s, err := l.Score(ctx, occluded)
	if err != nil {
		t.Fatal(err)
	}
	for j := range occluded {
		if want := alone[0] - s[j]; math.Abs(atts[0].Features[j]-want) > 1e-4*(1+math.Abs(alone[0])) {
			t.Fatalf("column %d: part %v, the score less the occluded row's %v", j+1, atts[0].Features[j], want)
		}
	}
	if _, err := l.ExplainDataset(ctx, ds, []int{0}, ExplainOptions{Method: IntegratedGradients}); err == nil || !strings.Contains(err.Error(), "principal components") {
		t.Errorf("integrated gradients on a projected model: error %v", err)
	}

	o := quickWideOptions()
	o.Gaussian = 1.5
	if _, err := FitDataset(ctx, ds, o, wideOptions); err == nil || !strings.Contains(err.Error(), "Gaussian") {
		t.Errorf("Gaussian 1.5: error %v", err)
	}
	o.Gaussian = 0
	o.Components = 0
	def, err := FitDataset(ctx, ds, o, wideOptions)
	if err != nil {
		t.Fatal(err)
	}
	defer def.Close()
	if def.meta.Projection == nil || def.meta.Sizes[0] != method.EnsembleComponents {
		t.Errorf("Components 0 (the default): projection %v, sizes %v; want %d components", def.meta.Projection != nil, def.meta.Sizes, method.EnsembleComponents)
	}
	o.Components = -1
	every, err := FitDataset(ctx, ds, o, wideOptions)
	if err != nil {
		t.Fatal(err)
	}
	defer every.Close()
	if every.meta.Projection != nil || every.meta.Sizes[0] != 320 {
		t.Errorf("Components -1 (every column): projection %v, sizes %v", every.meta.Projection != nil, every.meta.Sizes)
	}
	o.Components = method.EnsembleProjectAbove + 1
	if _, err := FitDataset(ctx, ds, o, wideOptions); err == nil || !strings.Contains(err.Error(), "Components") {
		t.Errorf("Components %d: error %v", o.Components, err)
	}
}

// TestProjectedGaussian: a projected table's score mixes the networks' with the
// Ledoit–Wolf Gaussian of its columns (Ensemble.Gaussian, 0.9 by default): the model's
// training scores are (1 − g)·z_N + g·z_G of the same networks' scores (the fit with
// Gaussian −1, whose networks train alike) and of the Gaussian's distances of the
// standardised rows, each on its robust scale; the count, read from the networks'
// scores, flags as many rows as without the Gaussian; a row is explained by occlusion
// for the networks' part and the Gaussian's exact Shapley values for its part; the
// Gaussian alone (g = 1) ranks the
// ten rows shifted off the normal rows' subspace above the others (ROCAUC ≥ 0.99: with
// fewer rows than columns the shrinkage is strong, and the largest normal rows come
// close).
func TestProjectedGaussian(t *testing.T) {
	ctx := context.Background()
	ds := wideTable(240, 320)
	m, err := FitDataset(ctx, ds, quickWideOptions(), wideOptions)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	p, e := m.meta.Projection, m.meta.Ensemble
	if p.Gaussian == nil || e.GaussianWeight != method.EnsembleGaussianWeight || m.GaussianWeight() != method.EnsembleGaussianWeight {
		t.Fatalf("Gaussian %v, weight %v: want a Gaussian of weight %v", p.Gaussian != nil, e.GaussianWeight, method.EnsembleGaussianWeight)
	}
	o := quickWideOptions()
	o.Gaussian = -1
	nets, err := FitDataset(ctx, ds, o, wideOptions)
	if err != nil {
		t.Fatal(err)
	}
	defer nets.Close()
	if nets.meta.Projection.Gaussian != nil || nets.meta.Ensemble.GaussianWeight != 0 {
		t.Fatalf("Gaussian -1: the model has a Gaussian (weight %v)", nets.meta.Ensemble.GaussianWeight)
	}
	std := make([]float32, ds.N*ds.D)
	p.Columns.Standardise(std, ds.X)
	gd := make([]float64, ds.N)
	p.Gaussian.Score(gd, std, ds.N)
	n := nets.Scores()
	zn, zg := models.FitScale(n), models.FitScale(gd)
	if zn != e.NetworksScale || zg != e.GaussianScale {
		t.Fatalf("scales %v and %v, want %v and %v", e.NetworksScale, e.GaussianScale, zn, zg)
	}
	g := e.GaussianWeight
	for i, s := range m.Scores() {
		want := (1-g)*(n[i]-zn.Median)/zn.Spread + g*(gd[i]-zg.Median)/zg.Spread
		if !closeTo(s, want) {
			t.Fatalf("row %d scores %v, want (1 − g)·z_N + g·z_G = %v", i+1, s, want)
		}
	}
	// The count reads the networks' scores: as many rows flagged as without the
	// Gaussian, the top ones of the mixed scores.
	flagged := func(l []bool) (k int) {
		for _, v := range l {
			if v {
				k++
			}
		}
		return k
	}
	if info := modelInfo(m, "", nil); info.GaussianWeight != method.EnsembleGaussianWeight {
		t.Errorf("served model info: Gaussian weight %v, want %v", info.GaussianWeight, method.EnsembleGaussianWeight)
	}
	if a, b := flagged(m.Labels()), flagged(nets.Labels()); a != b || a == 0 {
		t.Errorf("%d rows flagged with the Gaussian, %d without: want the same count, above 0", a, b)
	}
	for i, l := range m.Labels() {
		if l != (m.Scores()[i] > m.Threshold()) {
			t.Fatalf("row %d: label %v, score %v, threshold %v", i+1, l, m.Scores()[i], m.Threshold())
		}
	}
	// Explained by occlusion through the components for the networks' part and by the
	// Gaussian's exact Shapley values for its part, each on its scale; computed here the
	// long way, the networks' part through the networks-alone model's Score (the same
	// networks), with m's baseline.
	last := ds.N - 1
	row := make([]float64, ds.D)
	for j, v := range ds.Row(last) {
		row[j] = float64(v)
	}
	atts, err := m.Explain(ctx, [][]float64{row})
	if err != nil {
		t.Fatal(err)
	}
	median := m.meta.Normal.Median
	occluded := [][]float64{row}
	for j := range row {
		oc := append([]float64(nil), row...)
		oc[j] = median[j]
		occluded = append(occluded, oc)
	}
	ns, err := nets.Score(ctx, occluded)
	if err != nil {
		t.Fatal(err)
	}
	stdRow, stdBase := make([]float32, ds.D), make([]float32, ds.D)
	p.Columns.Standardise(stdRow, ds.Row(last))
	med32 := make([]float32, ds.D)
	for j, v := range median {
		med32[j] = float32(v)
	}
	p.Columns.Standardise(stdBase, med32)
	phi := make([]float64, ds.D)
	var gx, gb [1]float64
	for _, err := range []error{p.Gaussian.Shapley(phi, stdRow, 1, stdBase), p.Gaussian.Score(gx[:], stdRow, 1), p.Gaussian.Score(gb[:], stdBase, 1)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	var gsum float64
	for j := range row {
		want := (1-g)*(ns[0]-ns[1+j])/e.NetworksScale.Spread + g*phi[j]/e.GaussianScale.Spread
		if math.Abs(atts[0].Features[j]-want) > 1e-4*(1+math.Abs(want)) {
			t.Fatalf("column %d: part %v, want (1 − g)·occlusion/s_N + g·φ/s_G = %v", j+1, atts[0].Features[j], want)
		}
		gsum += phi[j]
	}
	// The Gaussian's products are single precision (torch.RowsProduct), and its distance
	// in Woodbury's form a difference of two larger terms: efficiency holds to about 1e-4.
	if math.Abs(gsum-(gx[0]-gb[0])) > 2e-4*(1+math.Abs(gx[0])) {
		t.Errorf("the Gaussian's Shapley values sum to %v, want G(x) − G(b) = %v", gsum, gx[0]-gb[0])
	}
	// Shapley values on such a model: the networks' game sampled, the Gaussian's exact;
	// they sum to the rise (efficiency), and the Gaussian's part is gaussianShapley's.
	sh, err := m.ExplainDataset(ctx, ds, []int{last}, ExplainOptions{Method: Shapley})
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, v := range sh[0].Features {
		sum += v
	}
	if rise := sh[0].Score - sh[0].Base; math.Abs(sum-rise) > 2e-4*(1+math.Abs(rise)) {
		t.Errorf("Shapley values sum to %v, the rise is %v", sum, rise)
	}
	gOnly := []Attribution{{Features: make([]float64, ds.D)}}
	if err := m.gaussianShapley(gOnly, &data.Dataset{N: 1, D: ds.D, X: ds.X[last*ds.D : (last+1)*ds.D]}, med32); err != nil {
		t.Fatal(err)
	}
	for j, v := range gOnly[0].Features {
		if want := g * phi[j] / e.GaussianScale.Spread; math.Abs(v-want) > 1e-9*(1+math.Abs(want)) {
			t.Fatalf("column %d: the Gaussian's Shapley part %v, want g·φ/s_G = %v", j+1, v, want)
		}
	}

	// A Gaussian larger than gaussianMaxValues is left out: the networks score alone.
	defer func(v int) { gaussianMaxValues = v }(gaussianMaxValues)
	gaussianMaxValues = 240*320 - 1
	big, err := FitDataset(ctx, ds, quickWideOptions(), wideOptions)
	if err != nil {
		t.Fatal(err)
	}
	defer big.Close()
	if big.meta.Projection.Gaussian != nil || big.GaussianWeight() != 0 {
		t.Errorf("a Gaussian of 240 × 320 values over a bound of %d: kept", gaussianMaxValues)
	}
	gaussianMaxValues = 240 * 320
	o.Gaussian = 1
	alone, err := FitDataset(ctx, ds, o, wideOptions)
	if err != nil {
		t.Fatal(err)
	}
	defer alone.Close()
	s := alone.Scores()
	var pairs, right int
	for _, a := range s[ds.N-10:] {
		for _, v := range s[:ds.N-10] {
			pairs++
			if a > v {
				right++
			}
		}
	}
	if auc := float64(right) / float64(pairs); auc < 0.99 {
		t.Errorf("Gaussian alone: ROCAUC %.4f of the shifted rows, want at least 0.99 (0.9987 when written)", auc)
	}
}

// TestProjectedModelFileChecked: a model.json whose projection does not fit its inputs
// is refused on load, naming the projection.
func TestProjectedModelFileChecked(t *testing.T) {
	m, err := FitDataset(context.Background(), wideTable(200, 310), quickWideOptions(), wideOptions)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "model")
	err = m.Save(dir)
	m.Close()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "model.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tamper := func(what string, change func(raw map[string]any)) {
		t.Helper()
		var raw map[string]any
		if err := json.Unmarshal(b, &raw); err != nil {
			t.Fatal(err)
		}
		change(raw)
		nb, _ := json.Marshal(raw)
		if err := os.WriteFile(path, nb, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(dir, "cpu"); err == nil || !errors.Is(err, models.ErrFormat) || !strings.Contains(strings.ToLower(err.Error()), "gaussian") && !strings.Contains(err.Error(), "projection") {
			t.Errorf("%s: error %v", what, err)
		}
	}
	projection := func(raw map[string]any) map[string]any { return raw["projection"].(map[string]any) }
	tamper("a projection of 31 components for 32 inputs", func(raw map[string]any) {
		projection(raw)["map"].(map[string]any)["k"] = 31
	})
	tamper("a Gaussian without its weight", func(raw map[string]any) {
		delete(raw["ensemble"].(map[string]any), "gaussian_weight")
	})
	tamper("a Gaussian weight without the Gaussian", func(raw map[string]any) {
		delete(projection(raw), "gaussian")
	})
	tamper("a Gaussian of one row too few", func(raw map[string]any) {
		projection(raw)["gaussian"].(map[string]any)["r"] = projection(raw)["gaussian"].(map[string]any)["r"].(float64) - 1
	})
	tamper("a Gaussian's matrix of 3 bytes", func(raw map[string]any) {
		projection(raw)["gaussian"].(map[string]any)["b"] = "AAAA"
	})
}

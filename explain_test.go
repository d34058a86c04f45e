package udocc_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/udocc/udocc"
	"github.com/udocc/udocc/data"
)

// shiftedTable is table's normal rows, with every tenth row moved by 8 in feature 2
// alone: the feature that explains those rows is known.
func shiftedTable(n, d int, seed uint64) [][]float64 {
	rows := table(n, d, seed)
	for i := range rows {
		if i%10 == 9 {
			for j := range rows[i] {
				rows[i][j] -= 8
			}
			rows[i][2] += 8
		}
	}
	return rows
}

// TestExplain checks the attributions' contract on a fitted ensemble and a paper method:
// one per row with the row's score; by occlusion (the default) feature j's part is the
// score less the score of the row with feature j set to the normal rows' median; by
// integrated gradients the parts sum to Score − Base (to the integral's quadrature); the
// shares' magnitudes sum to 1; Top orders by part; the shifted feature leads the
// anomalies' explanations; and a saved and loaded model explains the rows exactly as the
// fitted one.
func TestExplain(t *testing.T) {
	rows := shiftedTable(200, 4, 3)
	for _, method := range []udocc.Method{udocc.Ensemble, udocc.Proposed} {
		t.Run(string(method), func(t *testing.T) {
			m := fitted(t, method, rows)
			atts, err := m.Explain(rows)
			if err != nil {
				t.Fatal(err)
			}
			ig, err := m.ExplainDataset(dataset(t, rows), nil, udocc.ExplainOptions{Method: udocc.IntegratedGradients})
			if err != nil {
				t.Fatal(err)
			}
			if len(atts) != len(rows) {
				t.Fatalf("%d attributions of %d rows", len(atts), len(rows))
			}
			median, spread := m.Normal()
			if len(median) != 4 || len(spread) != 4 {
				t.Fatalf("Normal: %d medians, %d spreads for 4 features", len(median), len(spread))
			}
			var occluded [][]float64 // row i with feature j set to the median, at i*4+j
			for _, r := range rows {
				for j := range r {
					o := slices.Clone(r)
					o[j] = float64(float32(median[j]))
					occluded = append(occluded, o)
				}
			}
			without, err := m.Score(occluded)
			if err != nil {
				t.Fatal(err)
			}
			hits, anomalies := 0, 0
			for i, a := range atts {
				for j, v := range a.Features {
					if want := a.Score - without[i*4+j]; math.Abs(v-want) > 1e-4*(1+math.Abs(a.Score)) {
						t.Fatalf("row %d, feature %d: occlusion part %.6g, the scores say %.6g", i, j, v, want)
					}
				}
				if a.Row != i || len(a.Features) != 4 {
					t.Fatalf("attribution %d: row %d, %d features", i, a.Row, len(a.Features))
				}
				if math.Abs(a.Score-m.Scores()[i]) > 1e-9*(1+math.Abs(a.Score)) {
					t.Fatalf("row %d: score %v, Scores has %v", i, a.Score, m.Scores()[i])
				}
				sum, abs := 0.0, 0.0
				for _, v := range ig[i].Features {
					sum += v
				}
				for _, s := range a.Shares() {
					abs += math.Abs(s)
				}
				if want := ig[i].Score - ig[i].Base; math.Abs(sum-want) > 0.05*math.Abs(want)+0.05 {
					t.Errorf("row %d: parts sum to %.5g, Score − Base is %.5g", i, sum, want)
				}
				if math.Abs(abs-1) > 1e-12 {
					t.Errorf("row %d: shares' magnitudes sum to %v", i, abs)
				}
				top := a.Top(4)
				for r := 1; r < len(top); r++ {
					if a.Features[top[r]] > a.Features[top[r-1]] {
						t.Fatalf("row %d: Top %v is not in decreasing order of %v", i, top, a.Features)
					}
				}
				if i%10 == 9 {
					anomalies++
					if top[0] == 2 {
						hits++
					}
				}
			}
			if hits < anomalies*9/10 {
				t.Errorf("the shifted feature leads %d of %d anomalies' explanations", hits, anomalies)
			}

			again, err := reloaded(t, m).Explain(rows)
			if err != nil {
				t.Fatal(err)
			}
			for i := range atts {
				if again[i].Score != atts[i].Score || again[i].Base != atts[i].Base || !slices.Equal(again[i].Features, atts[i].Features) {
					t.Fatalf("row %d: loaded %+v, fitted %+v", i, again[i], atts[i])
				}
			}
		})
	}
}

// TestExplainOptions checks the three methods give different attributions of the same
// rows, that the number of quadrature points moves the integrated gradients' sum
// towards Score − Base, and that an unknown method is refused.
func TestExplainOptions(t *testing.T) {
	rows := shiftedTable(150, 3, 4)
	m := fitted(t, "ensemble", rows)
	ds := dataset(t, rows)
	var by [3][]udocc.Attribution
	for k, meth := range []udocc.ExplainMethod{udocc.Occlusion, udocc.IntegratedGradients, udocc.GradientInput} {
		var err error
		if by[k], err = m.ExplainDataset(ds, []int{9, 19, 5}, udocc.ExplainOptions{Method: meth}); err != nil {
			t.Fatal(err)
		}
		if by[k][0].Row != 9 || by[k][1].Row != 19 || by[k][2].Row != 5 {
			t.Fatalf("%s: rows %d, %d, %d; want 9, 19, 5", meth, by[k][0].Row, by[k][1].Row, by[k][2].Row)
		}
	}
	if slices.Equal(by[0][0].Features, by[1][0].Features) || slices.Equal(by[1][0].Features, by[2][0].Features) {
		t.Errorf("two methods gave the same parts: %v, %v, %v", by[0][0].Features, by[1][0].Features, by[2][0].Features)
	}
	one, err := m.ExplainDataset(ds, []int{9}, udocc.ExplainOptions{Method: udocc.IntegratedGradients, Steps: 1})
	if err != nil {
		t.Fatal(err)
	}
	many, err := m.ExplainDataset(ds, []int{9}, udocc.ExplainOptions{Method: udocc.IntegratedGradients, Steps: 128})
	if err != nil {
		t.Fatal(err)
	}
	gap := func(a udocc.Attribution) float64 {
		s := 0.0
		for _, v := range a.Features {
			s += v
		}
		return math.Abs(s - (a.Score - a.Base))
	}
	if !(gap(many[0]) <= gap(one[0])) || gap(many[0]) > 0.01*math.Abs(many[0].Score-many[0].Base) {
		t.Errorf("|Σ parts − (Score − Base)|: %.4g with 1 point, %.4g with 128", gap(one[0]), gap(many[0]))
	}
}

// TestExplainRefuses checks Explain's errors: a row of another width, a row index out of
// range, negative steps, an unknown method, a closed model.
func TestExplainRefuses(t *testing.T) {
	rows := shiftedTable(100, 3, 5)
	m := fitted(t, "ensemble", rows)
	ds := dataset(t, rows)
	cases := []struct {
		name string
		run  func() error
		want string
	}{
		{"width", func() error { _, err := m.Explain([][]float64{{1, 2}}); return err }, "trained on 3"},
		{"row", func() error { _, err := m.ExplainDataset(ds, []int{100}, udocc.ExplainOptions{}); return err }, "rows[0] is 100: want an index of the table's 100 rows"},
		{"steps", func() error { _, err := m.ExplainDataset(ds, nil, udocc.ExplainOptions{Steps: -1}); return err }, "Steps -1"},
		{"method", func() error { _, err := m.ExplainDataset(ds, nil, udocc.ExplainOptions{Method: "shap"}); return err }, `Method "shap"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.run(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one saying %q", err, c.want)
			}
		})
	}
	m.Close()
	if _, err := m.Explain(rows); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("a closed model: error %v", err)
	}
}

// dataset packs rows into a data set, as a table read with package data.
func dataset(t *testing.T, rows [][]float64) *data.Dataset {
	t.Helper()
	ds := &data.Dataset{Name: "rows", N: len(rows), D: len(rows[0])}
	for _, r := range rows {
		for _, v := range r {
			ds.X = append(ds.X, float32(v))
		}
	}
	return ds
}

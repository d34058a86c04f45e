package method

import (
	"math"
	"slices"
	"testing"
)

// TestCombineMembers checks how members' scores combine: one member as it is; several
// divided by their thresholds (or medians when one has none) and averaged, labelled above 1.
func TestCombineMembers(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		name       string
		scores     [][]float64
		thr        []float64
		want       []float64
		wantLabels []bool // nil: no labels
	}{
		{"one member", [][]float64{{1, 2, 3}}, []float64{2.5}, []float64{1, 2, 3}, []bool{false, false, true}},
		{"one member without threshold", [][]float64{{1, 2, 3}}, []float64{inf}, []float64{1, 2, 3}, nil},
		{"two members in their threshold units", [][]float64{{1, 2, 4}, {3, 6, 3}}, []float64{2, 3},
			[]float64{0.75, 1.5, 1.5}, []bool{false, true, true}},
		{"a member without threshold: medians, no labels", [][]float64{{1, 2, 4}, {3, 6, 3}}, []float64{2, inf},
			[]float64{0.75, 1.5, 1.5}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, labels := combineMembers(c.scores, c.thr, memberScales(c.scores, c.thr))
			for i := range c.want {
				if math.Abs(got[i]-c.want[i]) > 1e-12 {
					t.Fatalf("scores %v, want %v", got, c.want)
				}
			}
			if !slices.Equal(labels, c.wantLabels) || (labels == nil) != (c.wantLabels == nil) {
				t.Errorf("labels %v, want %v", labels, c.wantLabels)
			}
			if thr := combinedThreshold(c.thr); len(c.thr) > 1 && c.wantLabels != nil && thr != 1 {
				t.Errorf("combinedThreshold %v, want 1", thr)
			}
		})
	}
}

// TestCombineMembersRowByRow: with scales fitted on the training rows, a row's combined
// score is the same scored alone, in a batch of others, or in the whole table (the
// scale once came from the median of the rows being scored: a row alone always got 1).
func TestCombineMembersRowByRow(t *testing.T) {
	inf := math.Inf(1)
	train := [][]float64{{1, 2, 4, 8, 3}, {3, 6, 3, 1, 2}}
	thr := []float64{inf, inf}
	div := memberScales(train, thr)
	whole, _ := combineMembers(train, thr, div)
	for i := range train[0] {
		alone, _ := combineMembers([][]float64{{train[0][i]}, {train[1][i]}}, thr, div)
		if math.Abs(alone[0]-whole[i]) > 1e-12*math.Abs(whole[i]) {
			t.Errorf("row %d: %g alone, %g in the table", i+1, alone[0], whole[i])
		}
	}
	pair, _ := combineMembers([][]float64{{train[0][1], train[0][3]}, {train[1][1], train[1][3]}}, thr, div)
	if pair[0] != whole[1] || pair[1] != whole[3] {
		t.Errorf("rows 2 and 4 in a batch of two: %v, in the table %g, %g", pair, whole[1], whole[3])
	}
}

package detector

import (
	"math"
	"testing"

	"github.com/udocc/udocc/internal/models"
)

// TestCutFrom checks the threshold drawn from known ranks and the training scores'
// sketch: exact where the rank below the cut is known, the sketch within its shares,
// interpolated in rank past them, every known row on its side, all rows below every
// score.
func TestCutFrom(t *testing.T) {
	// 100 training rows scoring 100, 99, ..., 1: the row of rank r scores 101 - r.
	scores := make([]float64, 100)
	for i := range scores {
		scores[i] = float64(100 - i)
	}
	m := &Model{meta: &models.Meta{Tail: newTail(scores)}}
	score := func(rank int) float64 { return float64(101 - rank) }
	cases := []struct {
		name  string
		cut   int
		known []int // ranks whose scores are known
		want  float64
	}{
		{"the rank below the cut known", 30, []int{31, 5}, score(31)},
		{"within the sketch", 20, []int{3, 60}, score(21)},
		{"past the sketch, between known ranks", 70, []int{60, 80}, score(71)},
		{"past the sketch and every known rank", 95, []int{60, 80}, math.Nextafter(score(80), math.Inf(-1))},
		{"every row", 100, []int{60}, -math.MaxFloat64},
		{"nothing, the top score known", 0, []int{1, 7}, score(1)},
		{"nothing", 0, []int{7}, math.MaxFloat64},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			known := map[int]float64{}
			for _, r := range tc.known {
				known[r] = score(r)
			}
			got, err := m.cutFrom(100, tc.cut, known)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want && math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("threshold %v, want %v", got, tc.want)
			}
			for r, s := range known {
				if (s > got) != (r <= tc.cut) {
					t.Errorf("rank %d (score %v) on the wrong side of %v", r, s, got)
				}
			}
		})
	}
	// Without a sketch: the known rows alone.
	m.meta.Tail = nil
	if got, err := m.cutFrom(100, 50, map[int]float64{40: score(40), 61: score(61)}); err != nil || math.Abs(got-score(51)) > 1e-9 {
		t.Errorf("no sketch: %v, %v; want %v", got, err, score(51))
	}
}

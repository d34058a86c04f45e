package dynamics

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// Every selector satisfies the interface the training loop calls.
var (
	_ Selector = (*Proposed)(nil)
	_ Selector = (*Otsu)(nil)
	_ Selector = (*TAR)(nil)
	_ Selector = (*All)(nil)
)

// selectors builds one of each selector (and each literal tie rule) for n rows.
var selectors = []struct {
	name string
	make func(n int) (Selector, error)
}{
	{"proposed/paper-smallest", func(n int) (Selector, error) {
		return NewProposed(n, ProposedOptions{Rule: Paper{Ties: TieSmallest}})
	}},
	{"proposed/paper-largest", func(n int) (Selector, error) { return NewProposed(n, ProposedOptions{}) }},
	{"proposed/paper-median", func(n int) (Selector, error) {
		return NewProposed(n, ProposedOptions{Rule: Paper{Ties: TieMedian}, CurveAll: true})
	}},
	{"otsu", func(n int) (Selector, error) { return NewOtsu(n) }},
	{"tar", func(n int) (Selector, error) { return NewTAR(n, 0.2) }},
	{"all", func(n int) (Selector, error) { return NewAll(n) }},
}

// toyScores returns scores for epochs 1..epochs of a toy data set whose rows keep a mean
// and get fresh Gaussian noise every epoch, independent of what was trained on. Row 0
// sits far below everyone (it keeps rank 1) and rows n−2, n−1 far above (they stay the
// top two), the two ends the literal Eq. (5) ties on. Of the rows between, the last
// `anomalies` have means in U(3, 4), the others in U(0, 1).
func toyScores(seed uint64, n, anomalies, epochs int, noise float64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 99))
	mean := make([]float64, n)
	for i := 1; i < n-2; i++ {
		mean[i] = rng.Float64()
		if i >= n-2-anomalies {
			mean[i] += 3
		}
	}
	mean[0], mean[n-2], mean[n-1] = -10, 50, 60
	out := make([][]float64, epochs)
	for e := range out {
		out[e] = make([]float64, n)
		for i, m := range mean {
			out[e][i] = m + noise*rng.NormFloat64()
		}
	}
	return out
}

// scoreSequence returns `epochs` epochs of scores of one of several kinds.
func scoreSequence(rng *rand.Rand, kind string, n, epochs int) [][]float64 {
	if kind == "toy" {
		return toyScores(rng.Uint64(), n, n/10, epochs, 0.2)
	}
	out := make([][]float64, epochs)
	for e := range out {
		out[e] = make([]float64, n)
		for i := range out[e] {
			switch kind {
			case "noise": // every epoch a fresh ranking
				out[e][i] = rng.ExpFloat64()
			case "levels": // few distinct values: ties everywhere
				out[e][i] = float64(rng.IntN(3))
			case "collapsed": // a network mapping everything onto c
				out[e][i] = 0
			}
		}
	}
	return out
}

func count(mask []bool) int {
	k := 0
	for _, b := range mask {
		if b {
			k++
		}
	}
	return k
}

// TestSelectorContract drives every selector with many score sequences and checks what
// the training loop relies on.
func TestSelectorContract(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, sel := range selectors {
		t.Run(sel.name, func(t *testing.T) {
			for _, n := range []int{3, 4, 5, 6, 9, 40, 300} {
				for _, kind := range []string{"toy", "noise", "levels", "collapsed"} {
					s, err := sel.make(n)
					if err != nil {
						t.Fatal(err)
					}
					scores := scoreSequence(rng, kind, n, 12)
					for e, sc := range scores {
						mask, rec, err := s.Next(e+1, sc)
						if err != nil {
							t.Fatalf("n=%d %s epoch %d: %v", n, kind, e+1, err)
						}
						k := count(mask)
						switch {
						case len(mask) != n:
							t.Fatalf("n=%d %s epoch %d: mask of %d rows", n, kind, e+1, len(mask))
						case k < MinTrainRows:
							t.Fatalf("n=%d %s epoch %d: trains on %d rows", n, kind, e+1, k)
						case k != rec.NextTrainSize || rec.Epoch != e+1:
							t.Fatalf("n=%d %s epoch %d: record %+v for a mask of %d", n, kind, e+1, rec, k)
						case e == 0 && k != n:
							t.Fatalf("n=%d %s: epoch 2 trains on %d of %d rows", n, kind, k, n)
						}
					}
					checkLabels(t, s, scores[len(scores)-1])
				}
			}
		})
	}
}

// checkLabels checks that the threshold Label returns agrees with its labels: flagged
// rows score at or above it, the others at or below, strictly when scores are distinct.
func checkLabels(t *testing.T, s Selector, scores []float64) {
	t.Helper()
	labels, thr, err := s.Label(scores)
	if s.Name() == "all" {
		if !errors.Is(err, ErrNoThreshold) || labels != nil || !math.IsInf(thr, 1) {
			t.Fatalf("all: Label = %v, %v, %v", labels, thr, err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	for i, flagged := range labels {
		if flagged && scores[i] < thr || !flagged && scores[i] > thr {
			t.Fatalf("%s: row %d score %v flagged=%v against threshold %v", s.Name(), i, scores[i], flagged, thr)
		}
	}
}

func TestSelectorErrors(t *testing.T) {
	scores := []float64{0.1, 0.4, 0.2, 0.9, 0.3}
	for _, sel := range selectors {
		t.Run(sel.name, func(t *testing.T) {
			s, err := sel.make(len(scores))
			if err != nil {
				t.Fatal(err)
			}
			calls := []struct {
				name   string
				e      int
				scores []float64
				want   error
			}{
				{"epoch 2 first", 2, scores, ErrEpoch},
				{"epoch 0", 0, scores, ErrEpoch},
				{"too few scores", 1, scores[:4], ErrLength},
				{"NaN score", 1, []float64{0, math.NaN(), 0, 0, 0}, ErrNonFinite},
				{"+Inf score", 1, []float64{0, 0, math.Inf(1), 0, 0}, ErrNonFinite},
				{"epoch 1 after the errors", 1, scores, nil},
				{"epoch 1 again", 1, scores, ErrEpoch},
				{"epoch 3 skips 2", 3, scores, ErrEpoch},
				{"epoch 2", 2, scores, nil},
			}
			for _, c := range calls {
				if _, _, err := s.Next(c.e, c.scores); !errors.Is(err, c.want) {
					t.Fatalf("%s: err = %v, want %v", c.name, err, c.want)
				}
			}
			if s.Name() == "all" {
				return
			}
			if _, _, err := s.Label(scores[:3]); !errors.Is(err, ErrLength) {
				t.Errorf("Label of 3 scores: err = %v, want ErrLength", err)
			}
		})
	}
}

func TestConstructorErrors(t *testing.T) {
	tests := []struct {
		name string
		make func() error
		want error
	}{
		{"proposed needs 3 rows", func() error { _, err := NewProposed(2, ProposedOptions{}); return err }, ErrTooFewRows},
		{"proposed floor below 2", func() error { _, err := NewProposed(9, ProposedOptions{MinTrain: 1}); return err }, ErrOption},
		{"proposed floor above n", func() error { _, err := NewProposed(9, ProposedOptions{MinTrain: 10}); return err }, ErrOption},
		{"proposed unknown tie rule", func() error { _, err := NewProposed(9, ProposedOptions{Rule: Paper{Ties: 3}}); return err }, ErrOption},
		{"proposed curve at epoch 1", func() error { _, err := NewProposed(9, ProposedOptions{CurveEpochs: []int{1}}); return err }, ErrOption},
		{"otsu needs 2 rows", func() error { _, err := NewOtsu(1); return err }, ErrTooFewRows},
		{"all needs 2 rows", func() error { _, err := NewAll(1); return err }, ErrTooFewRows},
		{"tar ratio 1", func() error { _, err := NewTAR(10, 1); return err }, ErrOption},
		{"tar ratio negative", func() error { _, err := NewTAR(10, -0.1); return err }, ErrOption},
		{"tar ratio NaN", func() error { _, err := NewTAR(10, math.NaN()); return err }, ErrOption},
		{"tar leaves one row", func() error { _, err := NewTAR(10, 0.9); return err }, ErrTooFewRows},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.make(); !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

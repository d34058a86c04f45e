package dynamics

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestProposedMatchesEq6 replays Algorithm 1 by hand, from the definitions, next to the
// selector: δ^{e*} from the brute-force search, δ̄ as a plain mean, D_N^{e+1} row by row.
func TestProposedMatchesEq6(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for rep := range 60 {
		n := 5 + rng.IntN(60)
		ties := TieRule(rep % 3)
		floor := MinTrainRows + rng.IntN(3)
		curveAt := 2 + rng.IntN(6)
		kind := []string{"toy", "noise", "levels"}[rep%3]
		if kind == "toy" {
			n += 10
		}
		p, err := NewProposed(n, ProposedOptions{Rule: Paper{Ties: ties}, MinTrain: floor, CurveEpochs: []int{curveAt}})
		if err != nil {
			t.Fatal(err)
		}
		var prev []int
		var picks []int
		acc := make([]int, n+1)
		for e, scores := range scoreSequence(rng, kind, n, 8) {
			e++
			mask, rec, err := p.Next(e, scores)
			if err != nil {
				t.Fatal(err)
			}
			cur := ranksSlow(scores)
			if e == 1 {
				prev = cur
				continue
			}
			counts := crossingsSlow(prev, cur)
			for d, c := range counts {
				acc[d] += c
			}
			tied, _ := argminSlow(counts)
			picks = append(picks, map[TieRule]int{TieSmallest: tied[0], TieLargest: tied[len(tied)-1], TieMedian: tied[(len(tied)-1)/2]}[ties])
			sum := 0
			for _, d := range picks {
				sum += d
			}
			bar := float64(sum) / float64(len(picks))
			want := make([]bool, n)
			size := 0
			for i := range want {
				want[i] = float64(prev[i]) < bar && float64(cur[i]) < bar
				if want[i] {
					size++
				}
			}
			if size < floor {
				for i := range want {
					want[i] = cur[i] <= floor
				}
			}
			switch {
			case rec.DeltaStar != picks[len(picks)-1] || rec.DeltaBar != bar || rec.Ties != len(tied):
				t.Fatalf("rep %d epoch %d: record %+v, want δ*=%d δ̄=%v ties=%d", rep, e, rec, picks[len(picks)-1], bar, len(tied))
			case !slices.Equal(mask, want) || rec.Floored != (size < floor):
				t.Fatalf("rep %d epoch %d: mask %v floored=%v, want %v (|D_N|=%d, floor %d)", rep, e, mask, rec.Floored, want, size, floor)
			case rec.SelectedRatio != (float64(n)-bar)/float64(n):
				t.Fatalf("rep %d epoch %d: selected ratio %v", rep, e, rec.SelectedRatio)
			case (rec.Curve != nil) != (e == curveAt):
				t.Fatalf("rep %d epoch %d: curve %v, requested at epoch %d", rep, e, rec.Curve != nil, curveAt)
			}
			prev = cur
		}
		if got := p.Accumulated(); !slices.Equal(got, acc) {
			t.Fatalf("rep %d: Accumulated = %v, want %v", rep, got, acc)
		}
		labels, _, err := p.Label(toyScores(uint64(rep), n, 1, 1, 1)[0])
		if err != nil {
			t.Fatal(err)
		}
		if got, want := count(labels), n-int(math.Ceil(p.DeltaBar()))+1; got != want {
			t.Fatalf("rep %d: Label flags %d rows, want n−⌈δ̄⌉+1 = %d", rep, got, want)
		}
	}
}

// runToy runs a Proposed with the given rule over a toy data set of 200 rows, 20 of them
// anomalies with a clean gap to the normal rows, for 20 epochs, and returns the records
// and the final labels.
func runToy(t *testing.T, rule Rule) ([]Record, []bool) {
	t.Helper()
	const n = 200
	p, err := NewProposed(n, ProposedOptions{Rule: rule})
	if err != nil {
		t.Fatal(err)
	}
	var recs []Record
	scores := toyScores(5, n, 20, 20, 0.05)
	for e, sc := range scores {
		_, rec, err := p.Next(e+1, sc)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	labels, _, err := p.Label(scores[len(scores)-1])
	if err != nil {
		t.Fatal(err)
	}
	return recs, labels
}

// TestPaperSmallestCollapses documents the failure of the literal Eq. (5) with ties to the
// smallest δ: the rank-1 row keeps its rank, so counts[2] = 0 is a minimum every epoch,
// δ* = δ̄ = 2 from the first search on, D_N holds one row (the floor of 2 takes over),
// and Label flags n−1 of 200 rows although 20 are anomalous.
func TestPaperSmallestCollapses(t *testing.T) {
	recs, labels := runToy(t, Paper{Ties: TieSmallest})
	for _, rec := range recs[1:] {
		if rec.DeltaStar != 2 || rec.DeltaBar != 2 || !rec.Floored || rec.NextTrainSize != MinTrainRows {
			t.Fatalf("epoch %d: %+v, want δ* = δ̄ = 2 and the floor", rec.Epoch, rec)
		}
	}
	if got := count(labels); got != 199 {
		t.Errorf("flags %d of 200 rows, want 199", got)
	}
}

// TestPaperLargestFlagsAlmostNothing documents the other literal reading: the top two rows
// stay on top, so counts[n−1] = 0 is a minimum every epoch, δ̄ = n−1, training keeps all
// but two rows (plain OC) and Label flags 2 of 200 rows although 20 are anomalous.
func TestPaperLargestFlagsAlmostNothing(t *testing.T) {
	recs, labels := runToy(t, Paper{Ties: TieLargest})
	for _, rec := range recs[1:] {
		if rec.DeltaStar != 199 || rec.DeltaBar != 199 || rec.NextTrainSize != 198 {
			t.Fatalf("epoch %d: %+v, want δ* = δ̄ = 199", rec.Epoch, rec)
		}
	}
	if got := count(labels); got != 2 {
		t.Errorf("flags %d of 200 rows, want 2", got)
	}
}

func TestProposedFloor(t *testing.T) {
	p, err := NewProposed(50, ProposedOptions{Rule: Paper{Ties: TieSmallest}, MinTrain: 10})
	if err != nil {
		t.Fatal(err)
	}
	scores := toyScores(3, 50, 5, 3, 0.05)
	var mask []bool
	var rec Record
	for e, sc := range scores {
		if mask, rec, err = p.Next(e+1, sc); err != nil {
			t.Fatal(err)
		}
	}
	// δ̄ = 2 leaves only the rank-1 row; the floor trains on the ten lowest ranks now.
	want := lowestRanks(Ranks(scores[2]), 10)
	if !rec.Floored || rec.NextTrainSize != 10 || !slices.Equal(mask, want) {
		t.Errorf("record %+v, mask of %d rows; want the 10 lowest-ranked rows", rec, count(mask))
	}
}

// TestProposedThreshold works Label's threshold by hand on six rows.
func TestProposedThreshold(t *testing.T) {
	p, err := NewProposed(6, ProposedOptions{Rule: Paper{Ties: TieLargest}})
	if err != nil {
		t.Fatal(err)
	}
	// Ranks A1 B2 C3 D4 E5 F6, then A2 B1 C3 D6 E4 F5 (TestEq5ByHand): δ* = 4 = δ̄.
	epochs := [][]float64{{1, 2, 3, 4, 5, 6}, {2, 1, 3, 6, 4, 5}}
	for e, sc := range epochs {
		if _, _, err := p.Next(e+1, sc); err != nil {
			t.Fatal(err)
		}
	}
	// Final scores with ranks A1 B2 C3 D4 E5 F6: rank ≥ 4 flags D, E, F; the threshold
	// lies between the scores of ranks 3 and 4, 0.3 and 0.7.
	labels, thr, err := p.Label([]float64{0.1, 0.2, 0.3, 0.7, 0.8, 0.9})
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{false, false, false, true, true, true}; !slices.Equal(labels, want) || thr != 0.5 {
		t.Errorf("Label = %v, %v; want %v, 0.5", labels, thr, want)
	}
}

func TestProposedLabelBeforeSearch(t *testing.T) {
	p, err := NewProposed(4, ProposedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.Next(1, []float64{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.Label([]float64{1, 2, 3, 4}); !errors.Is(err, ErrNotReady) {
		t.Errorf("err = %v, want ErrNotReady", err)
	}
	if !math.IsNaN(p.DeltaBar()) {
		t.Errorf("DeltaBar = %v before any search, want NaN", p.DeltaBar())
	}
}

// fixedRule always picks the same δ, or fails.
type fixedRule struct {
	delta int
	err   error
}

func (fixedRule) Name() string { return "fixed" }
func (r fixedRule) Pick(Dynamics) (SearchResult, error) {
	return SearchResult{Delta: r.delta}, r.err
}

func TestProposedRuleErrors(t *testing.T) {
	errBroken := errors.New("broken")
	tests := []struct {
		name string
		rule fixedRule
		want error
	}{
		{"δ = 1 below the range", fixedRule{delta: 1}, nil},
		{"δ = n above the range", fixedRule{delta: 5}, nil},
		{"rule error is wrapped", fixedRule{delta: 3, err: errBroken}, errBroken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewProposed(5, ProposedOptions{Rule: tt.rule})
			if err != nil {
				t.Fatal(err)
			}
			scores := []float64{1, 2, 3, 4, 5}
			if _, _, err := p.Next(1, scores); err != nil {
				t.Fatal(err)
			}
			_, _, err = p.Next(2, scores)
			if err == nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if !math.IsNaN(p.DeltaBar()) || slices.ContainsFunc(p.Accumulated(), func(c int) bool { return c != 0 }) {
				t.Errorf("state changed by a failed epoch: δ̄ = %v", p.DeltaBar())
			}
		})
	}
}

package dynamics

import (
	"fmt"
	"math"
)

// Accumulated is udocc's default δ rule. It keeps the paper's objective, crossings of δ
// relative to what random re-ranking would give (Eq. (5)), and changes three things
// that make the literal reading fail (see the package documentation and
// docs/threshold.md):
//
//   - Counts are summed over every search epoch so far (or the last Window epochs), as the
//     paper's Fig. 3 is drawn, instead of judged one epoch at a time.
//   - A count is judged by an upper confidence bound of its rate, not by its raw value:
//     U(C) = (√C + Z/2)², a variance-stabilised Poisson bound, divided by the expected
//     count under random re-ranking, E·2(δ−1)(n−δ+1)/n over E epochs. A count of 0 seen
//     over few expected crossings (the ends of the range) is weak evidence and no longer
//     wins by default.
//   - δ is searched over [⌈n/2⌉, n−1] (unless AllowMinority is set): the pseudo-normal
//     set is never asked to be a minority of the data, the concentration assumption every
//     one-class method rests on. MinTrain makes the same promise of the training set
//     itself: rank churn between two epochs can leave fewer rows below δ̄ in both than
//     δ̄ − 1, and Proposed then trains on the ⌈n/2⌉ rows of lowest rank instead. A
//     collapse of the training set is impossible.
//
// Ties of the minimum (rare once counts are summed) go to the median tied δ.
type Accumulated struct {
	// Window is the number of most recent search epochs whose counts are summed; 0 means
	// all of them.
	Window int
	// Z is the confidence multiplier of the upper bound; 0 means 2.
	Z float64
	// AllowMinority searches the whole range [2, n−1] instead of [⌈n/2⌉, n−1].
	AllowMinority bool

	sum  []int64 // Σ of the counts over the window
	hist [][]int // the window's counts, oldest first (only with Window > 0)
	k    int     // epochs in sum
}

// MinTrain is the smallest training set the rule allows for n rows: ⌈n/2⌉, or 2 with
// AllowMinority.
func (a *Accumulated) MinTrain(n int) int {
	if a.AllowMinority {
		return MinTrainRows
	}
	return max(MinTrainRows, (n+1)/2)
}

// Name returns "accumulated".
func (*Accumulated) Name() string { return "accumulated" }

// Validate checks the options.
func (a *Accumulated) Validate() error {
	if a.Window < 0 || a.Z < 0 || math.IsNaN(a.Z) || math.IsInf(a.Z, 0) {
		return fmt.Errorf("dynamics: accumulated rule: window %d, z %g: %w", a.Window, a.Z, ErrOption)
	}
	return nil
}

// Pick adds the epoch's counts to the window and returns the δ that minimises the
// bounded, scaled accumulated count.
func (a *Accumulated) Pick(d Dynamics) (SearchResult, error) {
	n := len(d.Counts) - 1
	if n < 3 {
		return SearchResult{}, fmt.Errorf("dynamics: δ search over %d rows: %w", max(n, 0), ErrTooFewRows)
	}
	if a.sum == nil {
		a.sum = make([]int64, n+1)
	}
	if len(a.sum) != n+1 {
		return SearchResult{}, fmt.Errorf("dynamics: accumulated rule: %d rows, began with %d: %w", n, len(a.sum)-1, ErrLength)
	}
	for i, c := range d.Counts {
		a.sum[i] += int64(c)
	}
	a.k++
	if a.Window > 0 {
		a.hist = append(a.hist, append([]int(nil), d.Counts...))
		if len(a.hist) > a.Window {
			for i, c := range a.hist[0] {
				a.sum[i] -= int64(c)
			}
			a.hist = a.hist[1:]
			a.k--
		}
	}
	curve := a.Curve()
	lo := 2
	if !a.AllowMinority {
		lo = max(2, (n+1)/2)
	}
	best, first, ties := lo, lo, 0
	for δ := lo; δ <= n-1; δ++ {
		switch v := curve[δ]; {
		case v < curve[best]:
			best, first, ties = δ, δ, 1
		case v == curve[best]:
			ties++
		}
	}
	res := SearchResult{Delta: best, MinScaled: curve[best], Ties: ties}
	if ties > 1 {
		want := (ties + 1) / 2
		for δ := first; δ <= n-1; δ++ {
			if curve[δ] == curve[best] {
				if want--; want == 0 {
					res.Delta = δ
					break
				}
			}
		}
	}
	return res, nil
}

// Curve is the rule's objective for δ = 0..n over the current window (NaN outside
// [2, n−1]): U(C(δ)) / (E·2(δ−1)(n−δ+1)/n). It is nil before the first Pick.
func (a *Accumulated) Curve() []float64 {
	if a.sum == nil {
		return nil
	}
	n := len(a.sum) - 1
	z := a.Z
	if z == 0 {
		z = 2
	}
	out := make([]float64, n+1)
	for δ := range out {
		out[δ] = math.NaN()
	}
	for δ := 2; δ <= n-1; δ++ {
		k := float64(δ - 1)
		expect := float64(a.k) * 2 * k * (float64(n) - k) / float64(n)
		u := math.Sqrt(float64(a.sum[δ])) + z/2
		out[δ] = u * u / expect
	}
	return out
}

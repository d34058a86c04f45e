package review

import (
	"fmt"
	"math"
	"slices"

	"github.com/udocc/udocc/internal/dynamics"
)

// Prior is the label-free count a fit gives: its share of anomalies and its 80 %
// interval, shares in (0, 1]. The zero Prior means the corpus prior: share 5 % with
// ln(share) ~ N(ln 0.05, 1.4²), an 80 % interval of 0.83 %–30 % (CorpusPrior).
// A Prior with Share set and Low, High zero takes the corpus prior's spread around Share.
type Prior struct{ Share, Low, High float64 }

// CorpusPrior is the prior used for the zero Prior.
var CorpusPrior = Prior{Share: 0.05, Low: 0.05 * math.Exp(-z80*corpusSD), High: 0.05 * math.Exp(z80*corpusSD)}

const (
	corpusSD = 1.4
	// z80 is the standard normal quantile at 0.9: an 80 % central interval is ±z80 σ.
	z80 = 1.2815515655446004
	// minSD bounds the prior's spread below, so that a degenerate interval (Low = High)
	// still lets the answers move the count.
	minSD = 0.1
)

// Answer is one row the user labelled.
type Answer struct {
	Rank    int  // 1-based rank of the row's score (rank 1: the highest score)
	Anomaly bool // the user's answer
	// Round is the review round that asked the row (1, 2, ...); 0 means the user added
	// the row outside the design. Such rows count as known rows (their answer replaces
	// the curve's expectation in the count) but do not enter the curve's likelihood,
	// since the user may have picked them for their label (see Calibrate).
	Round int
}

// Target chooses the cut. The zero Target maximises the estimated F1. Precision in
// (0, 1] picks the largest cut (most rows flagged) whose estimated precision is at
// least Precision; Recall in (0, 1] the smallest cut whose estimated recall is at least
// Recall. At most one of them may be set. Where no cut reaches the precision asked, the
// cut of the highest estimated precision is taken (Estimate.Precision then says so).
type Target struct{ Precision, Recall float64 }

// Estimate is the count from answers.
type Estimate struct {
	N         int     // rows scored
	Answers   int     // distinct rows answered (the design's and the user's)
	Anomalies int     // anomalies among them
	Count     float64 // posterior median of the number of anomalies among the n rows
	Share     float64 // Count / N (udocc's selected_ratio)
	Low, High float64 // 80 % interval of the share
	Cut       int     // flag ranks 1..Cut (the threshold is the score at rank Cut)
	// Precision, Recall and F1 of flagging ranks 1..Cut, estimated from the posterior
	// mean of each rank's chance of being an anomaly (the answer where there is one).
	Precision, Recall, F1 float64
	Prior                 Prior // the prior used (the corpus prior for the zero Prior)
}

// RankError is a rank outside [1, N] in answers[Index] (or pending[Index]).
type RankError struct {
	Rank, N int
	Index   int
	Pending bool
}

func (e *RankError) Error() string {
	where := "answers"
	if e.Pending {
		where = "pending"
	}
	return fmt.Sprintf("review: %s[%d]: rank %d is outside [1, %d]", where, e.Index, e.Rank, e.N)
}

// ContradictionError is one rank answered both ways: answers[First] and answers[Second].
type ContradictionError struct{ Rank, First, Second int }

func (e *ContradictionError) Error() string {
	return fmt.Sprintf("review: rank %d is answered both anomaly and normal (answers[%d] and answers[%d])", e.Rank, e.First, e.Second)
}

// ArgError is an argument out of its range: Arg names it ("n", "k", "round",
// "prior", "target"), Want says what it must be.
type ArgError struct {
	Arg   string
	Value float64
	Want  string
}

func (e *ArgError) Error() string {
	return fmt.Sprintf("review: %s = %g: %s", e.Arg, e.Value, e.Want)
}

// Ranks gives each row's rank (1-based) for scores: the highest score has rank 1; ties
// go to the lower row first; NaN scores rank last. It is dynamics.Ranks (an O(n) radix
// sort) of the negated scores: their ascending order is this one, ties and NaN alike.
func Ranks(scores []float64) []int {
	neg := make([]float64, len(scores))
	for i, s := range scores {
		neg[i] = -s
	}
	return dynamics.Ranks(neg)
}

// known is the answers after validation: each rank once.
type known struct {
	n      int
	label  map[int]bool // rank -> anomaly, every answered rank
	design map[int]bool // ranks the design asked (Round ≥ 1)
	anom   int          // anomalies among every answered rank
	round  int          // the largest round seen
}

// check validates n and the answers and indexes them by rank. A rank answered twice
// alike is kept once; if the rounds differ, the design's round wins.
func check(n int, answers []Answer) (*known, error) {
	if n < 2 {
		return nil, &ArgError{Arg: "n", Value: float64(n), Want: "at least 2 rows"}
	}
	kn := &known{n: n, label: map[int]bool{}, design: map[int]bool{}}
	first := map[int]int{}
	for i, a := range answers {
		if a.Rank < 1 || a.Rank > n {
			return nil, &RankError{Rank: a.Rank, N: n, Index: i}
		}
		if a.Round < 0 {
			return nil, &ArgError{Arg: fmt.Sprintf("answers[%d].Round", i), Value: float64(a.Round), Want: "0 (the user's row) or a round ≥ 1"}
		}
		if j, ok := first[a.Rank]; ok {
			if kn.label[a.Rank] != a.Anomaly {
				return nil, &ContradictionError{Rank: a.Rank, First: j, Second: i}
			}
		} else {
			first[a.Rank] = i
			kn.label[a.Rank] = a.Anomaly
			if a.Anomaly {
				kn.anom++
			}
		}
		if a.Round >= 1 {
			kn.design[a.Rank] = true
		}
		kn.round = max(kn.round, a.Round)
	}
	return kn, nil
}

// prior returns the prior used and its ln-share mean and spread.
func (p Prior) resolve() (Prior, float64, float64, error) {
	if p == (Prior{}) {
		p = CorpusPrior
	}
	if !(p.Share > 0 && p.Share <= 1) {
		return p, 0, 0, &ArgError{Arg: "prior.Share", Value: p.Share, Want: "a share in (0, 1]"}
	}
	if p.Low == 0 && p.High == 0 {
		p.Low, p.High = p.Share*math.Exp(-z80*corpusSD), min(1, p.Share*math.Exp(z80*corpusSD))
	}
	if !(p.Low > 0 && p.Low <= p.Share && p.Share <= p.High && p.High <= 1) {
		return p, 0, 0, &ArgError{Arg: "prior.Low", Value: p.Low, Want: fmt.Sprintf("0 < Low ≤ Share ≤ High ≤ 1 (Share %g, High %g)", p.Share, p.High)}
	}
	// The interval is read as ±z80 σ in ln(share) around ln(Share).
	sd := max(minSD, (math.Log(p.High)-math.Log(p.Low))/(2*z80))
	return p, math.Log(p.Share), sd, nil
}

// stratum is the ranks lo+1..hi (0-based [lo, hi)).
type stratum struct{ lo, hi int }

// stratumFracs is the geometric grid of the strata's upper ends, as shares of n: the
// top 0.1 %, 0.2 %, 0.5 %, 1 %, 2 %, 5 %, 10 %, 20 %, 50 % and the rest (about ×2
// apart; chosen against the prototype's ×3, bench/review/notes.md).
var stratumFracs = []float64{0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1}

// PrototypeStrata are the prototype's strata's upper ends: the top 0.1 %, 0.3 %, 1 %,
// 3 %, 10 %, 30 % and the rest (Method.Strata).
func PrototypeStrata() []float64 { return []float64{0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1} }

// strata cuts ranks 1..n at round(f·n) for f in stratumFracs (at least 1), dropping
// empty strata.
func strata(n int) []stratum { return strataAt(n, stratumFracs) }

// strataAt is strata with the upper ends fracs (ascending shares of n, the last 1).
func strataAt(n int, fracs []float64) []stratum {
	var ends []int
	for _, f := range fracs {
		e := min(n, max(1, int(math.Round(f*float64(n)))))
		if len(ends) == 0 || e > ends[len(ends)-1] {
			ends = append(ends, e)
		}
	}
	if ends[len(ends)-1] != n {
		ends = append(ends, n)
	}
	out := make([]stratum, len(ends))
	lo := 0
	for i, e := range ends {
		out[i] = stratum{lo, e}
		lo = e
	}
	return out
}

// stratumOf is the index of the stratum holding rank (1-based).
func stratumOf(st []stratum, rank int) int {
	i, _ := slices.BinarySearchFunc(st, rank, func(s stratum, r int) int {
		if s.hi < r {
			return -1
		}
		if s.lo >= r {
			return 1
		}
		return 0
	})
	return i
}

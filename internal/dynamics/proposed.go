package dynamics

import (
	"fmt"
	"math"
)

// ProposedOptions configures Proposed. The zero value is valid and means DefaultRule, a
// floor of MinTrainRows and no curves in the records.
type ProposedOptions struct {
	// Rule picks δ^{e*} each epoch; nil means DefaultRule().
	Rule Rule
	// MinTrain is the floor of the training mask: when D_N^{e+1} has fewer rows, the
	// MinTrain rows of lowest current rank are trained on instead. 0 means MinTrainRows;
	// otherwise it must lie in [MinTrainRows, n].
	MinTrain int
	// CurveEpochs lists the epochs whose Record carries the curve of Eq. (5).
	CurveEpochs []int
	// CurveAll puts the curve into the Record of every search epoch.
	CurveAll bool
}

// DefaultProposedOptions returns the options the zero value stands for, spelled out.
func DefaultProposedOptions() ProposedOptions {
	return ProposedOptions{Rule: DefaultRule(), MinTrain: MinTrainRows}
}

// Validate checks the options that do not depend on n, and the Rule when it has a
// Validate method.
func (o ProposedOptions) Validate() error {
	if v, ok := o.Rule.(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			return err
		}
	}
	if o.MinTrain != 0 && o.MinTrain < MinTrainRows {
		return fmt.Errorf("dynamics: MinTrain %d below %d: %w", o.MinTrain, MinTrainRows, ErrOption)
	}
	for _, e := range o.CurveEpochs {
		if e < 2 {
			return fmt.Errorf("dynamics: curve for epoch %d: the first search is at epoch 2: %w", e, ErrOption)
		}
	}
	return nil
}

// Proposed is the paper's selector (Section IV-A, Algorithm 1). After epoch 1 it keeps
// the ranks and trains on every row; after every epoch e ≥ 2 it picks δ^{e*} from the
// ranks of epochs e−1 and e (Eq. (5), through its Rule), averages all picks so far into
// δ̄ (Eq. (6)) and trains epoch e+1 on D_N^{e+1}, the rows ranked below δ̄ in both epochs.
type Proposed struct {
	n      int
	rule   Rule
	floor  int
	curves map[int]bool // nil with CurveAll
	last   int          // the last epoch seen
	prev   []int        // r^{e−1}
	sum    int          // Σ δ^{e'*} over Δ^e
	picks  int          // |Δ^e|
	acc    []int        // Σ over search epochs of Crossings
}

// NewProposed returns a Proposed for n rows. The δ search needs n ≥ 3.
func NewProposed(n int, opt ProposedOptions) (*Proposed, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if n < 3 {
		return nil, fmt.Errorf("dynamics: proposed selector over %d rows: %w", n, ErrTooFewRows)
	}
	p := &Proposed{n: n, rule: opt.Rule, floor: opt.MinTrain, acc: make([]int, n+1)}
	if p.rule == nil {
		p.rule = DefaultRule()
	}
	if p.floor == 0 {
		p.floor = MinTrainRows
	}
	if f, ok := p.rule.(interface{ MinTrain(n int) int }); ok {
		p.floor = max(p.floor, f.MinTrain(n)) // a rule's own floor, such as Accumulated's majority
	}
	if p.floor > n {
		return nil, fmt.Errorf("dynamics: MinTrain %d above %d rows: %w", p.floor, n, ErrOption)
	}
	if !opt.CurveAll {
		p.curves = make(map[int]bool, len(opt.CurveEpochs))
		for _, e := range opt.CurveEpochs {
			p.curves[e] = true
		}
	}
	return p, nil
}

// Name returns "proposed".
func (p *Proposed) Name() string { return "proposed" }

// Rule returns the rule that picks δ^{e*}.
func (p *Proposed) Rule() Rule { return p.rule }

// Next implements Selector. Epoch 1 only records the ranks (D_N^2 = D). From epoch 2 on,
// the returned mask is D_N^{e+1} of Eq. (6), or the floor rows when it is smaller than
// the floor (Record.Floored). On error the selector's state is unchanged.
func (p *Proposed) Next(e int, scores []float64) ([]bool, Record, error) {
	if err := checkNext(p.last, e, p.n, scores); err != nil {
		return nil, Record{}, err
	}
	cur := Ranks(scores)
	if e == 1 {
		p.last, p.prev = e, cur
		return allRows(p.n), newRecord(e, p.n), nil
	}
	counts := Crossings(p.prev, cur)
	res, err := p.rule.Pick(Dynamics{Epoch: e, Prev: p.prev, Cur: cur, Counts: counts})
	if err != nil {
		return nil, Record{}, fmt.Errorf("dynamics: epoch %d: rule %s: %w", e, p.rule.Name(), err)
	}
	if res.Delta < 2 || res.Delta > p.n-1 {
		return nil, Record{}, fmt.Errorf("dynamics: epoch %d: rule %s picked δ = %d outside [2, %d]",
			e, p.rule.Name(), res.Delta, p.n-1)
	}
	p.sum += res.Delta
	p.picks++
	bar := p.DeltaBar() // Eq. (6)
	mask, size := pseudoNormal(p.prev, cur, bar)
	floored := size < p.floor
	if floored {
		mask, size = lowestRanks(cur, p.floor), p.floor
	}

	rec := newRecord(e, size)
	rec.DeltaStar = res.Delta
	rec.DeltaBar = bar
	rec.MinScaled = res.MinScaled
	rec.Ties = res.Ties
	rec.SelectedRatio = (float64(p.n) - bar) / float64(p.n)
	rec.Floored = floored
	rec.Threshold = rankCut(scores, cur, int(math.Ceil(bar)))
	if p.curves == nil || p.curves[e] {
		rec.Curve = ScaledCurve(counts)
		if c, ok := p.rule.(interface{ Curve() []float64 }); ok {
			rec.Curve = c.Curve() // the rule's own objective, such as Accumulated's
		}
	}
	for d, c := range counts {
		p.acc[d] += c
	}
	p.last, p.prev = e, cur
	return mask, rec, nil
}

// pseudoNormal is D_N^{e+1} of Eq. (6): the rows ranked below δ̄ in epochs e−1 and e.
func pseudoNormal(prev, cur []int, bar float64) ([]bool, int) {
	mask := make([]bool, len(cur))
	size := 0
	for i, r := range cur {
		if float64(r) < bar && float64(prev[i]) < bar {
			mask[i] = true
			size++
		}
	}
	return mask, size
}

// Label implements Selector: a row is anomalous when its rank in the final scores is at
// or above δ̄ (rank ≥ ⌈δ̄⌉), which flags n−⌈δ̄⌉+1 rows, and more where rows tie with
// the lowest of them (rankCut's tie rule). Only the final ranking counts, so a flagged
// row need not have been outside D_N. The threshold lies between the scores of ranks
// ⌈δ̄⌉−1 and ⌈δ̄⌉ (see the package documentation). Label needs one search (epoch 2)
// first; it returns ErrNotReady before.
func (p *Proposed) Label(scores []float64) ([]bool, float64, error) {
	if p.picks == 0 {
		return nil, 0, fmt.Errorf("dynamics: proposed: label before epoch 2: %w", ErrNotReady)
	}
	if err := checkScores(p.n, scores); err != nil {
		return nil, 0, err
	}
	thr := rankCut(scores, Ranks(scores), int(math.Ceil(p.DeltaBar())))
	return aboveCut(scores, thr), thr, nil
}

// DeltaBar returns the running mean δ̄ of Eq. (6) over every δ^{e*} picked so far, in
// [2, n−1]; NaN before the first search.
func (p *Proposed) DeltaBar() float64 {
	if p.picks == 0 {
		return math.NaN()
	}
	return float64(p.sum) / float64(p.picks)
}

// Accumulated returns a copy of the crossing counts summed over every search epoch so
// far, for δ = 0..n. ScaledCurve(Accumulated()) is the curve of the paper's Fig. 3.
func (p *Proposed) Accumulated() []int {
	return append([]int(nil), p.acc...)
}

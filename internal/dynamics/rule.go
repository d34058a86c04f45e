package dynamics

import "fmt"

// Dynamics is what a Rule sees at a search epoch e ≥ 2. The slices belong to the caller
// and are valid during the call only: a Rule that keeps history copies what it keeps.
type Dynamics struct {
	Epoch  int   // e, 2-based: the first search is at e = 2
	Prev   []int // r^{e−1}, a permutation of 1..n
	Cur    []int // r^e
	Counts []int // Crossings(Prev, Cur): Counts[δ] for δ = 0..n
}

// A Rule picks the threshold δ^{e*} of one epoch (Algorithm 1, line 6). Proposed averages
// the picks into δ̄ (Eq. (6)) itself, so a new rule only replaces the search. A Rule may
// keep state across epochs (a window of past counts, say); give every Proposed its own.
// A Rule with a method Validate() error is checked by ProposedOptions.Validate.
type Rule interface {
	// Name is the rule's flag spelling.
	Name() string
	// Pick returns δ^{e*} in [2, n−1] with the rule's objective value at it.
	Pick(d Dynamics) (SearchResult, error)
}

// Paper is the literal reading of Eq. (5): each epoch on its own, argmin of the scaled
// crossing count over δ ∈ [2, n−1], ties broken by Ties. The paper does not say how ties
// are broken, and they are the common case; see the package documentation for how each
// choice behaves.
type Paper struct {
	Ties TieRule
}

// Name returns "paper".
func (Paper) Name() string { return "paper" }

// Validate reports an unknown tie rule.
func (p Paper) Validate() error {
	if !p.Ties.valid() {
		return fmt.Errorf("dynamics: paper rule: %v: %w", p.Ties, ErrOption)
	}
	return nil
}

// Pick implements Eq. (5).
func (p Paper) Pick(d Dynamics) (SearchResult, error) {
	return SearchCounts(d.Counts, p.Ties)
}

// DefaultRule is the rule NewProposed uses when none is given: a new Accumulated (see
// docs/threshold.md for why and for its measurements). Each call returns a fresh rule,
// since Accumulated keeps state.
func DefaultRule() Rule { return &Accumulated{} }

// RuleNames lists the δ rules by their flag spelling, the default first.
func RuleNames() []string { return []string{"accumulated", "paper"} }

// NewRule returns the δ rule called name; ties applies to the paper rule only.
func NewRule(name string, ties TieRule) (Rule, error) {
	switch name {
	case "accumulated":
		return &Accumulated{}, nil
	case "paper":
		p := Paper{Ties: ties}
		if err := p.Validate(); err != nil {
			return nil, err
		}
		return p, nil
	}
	return nil, fmt.Errorf("dynamics: unknown δ rule %q (one of %v): %w", name, RuleNames(), ErrOption)
}

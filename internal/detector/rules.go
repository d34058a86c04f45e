package detector

import (
	"fmt"
	"slices"
	"strings"

	"github.com/udocc/udocc/internal/dynamics"
	"github.com/udocc/udocc/internal/method"
	"github.com/udocc/udocc/internal/threshold"
	"github.com/udocc/udocc/internal/training"
)

// internalMethod is the training method named name, the zero Method for an unknown one.
func internalMethod(name string) method.Method {
	meth, _ := method.MethodNamed(name)
	return meth
}

// CountRule is a rule that decides how many rows the ensemble flags, from the
// distribution of its combined scores (Ensemble.Count).
type CountRule string

// LearnedCount is the count learned on the corpus of real tables (package
// internal/count; bench/notes/threshold.md A.0). It reads label-free features of the
// fit and gives a share in [0.1 %, 30 %]. The shipped model is gated: the MAD rule's
// share of the final scores where the screening and the final fit disagree on their top
// rows, a prior elsewhere. Its 80 % interval comes from held-out residuals of fits like
// it, and a flag says where the count is not to be trusted (Model.CountReliable). It is
// not a rule of the scores alone, and cannot be joined with others by "+".
const LearnedCount CountRule = "learned"

// kmeansRule is the two-means count: the exact two-means split of the scores, applied
// to the screening fit's and the final fit's, the larger share flagged.
const kmeansRule CountRule = "kmeans"

// defaultCount is the ensemble's count where Ensemble.Count is nil: the learned count,
// with its 80 % interval for the share (Model.RatioInterval) and its reliability flag
// (Model.CountReliable); bench/notes/threshold.md A.0.
const defaultCount = LearnedCount

// DeltaRule is the proposed method's rule for the rank threshold δ of each epoch.
type DeltaRule string

// The δ rules.
const (
	// Accumulated, the default: crossings accumulated over the epochs so far, against
	// their expectation for random ranks.
	Accumulated DeltaRule = "accumulated"
	// PaperRule is the paper's Eq. (5), the epoch's crossings scaled by δ(n−δ); its ties
	// are broken by Proposed.Ties.
	PaperRule DeltaRule = "paper"
)

// Ties is how PaperRule breaks ties of Eq. (5)'s minimum.
type Ties string

// The tie rules.
const (
	TiesLargest  Ties = "largest" // the default
	TiesSmallest Ties = "smallest"
	TiesMedian   Ties = "median"
)

// ScoreSource are the scores the proposed method's and the baselines' selectors rank
// each epoch (Proposed.RankScores).
type ScoreSource string

// The score sources.
const (
	// TrainScores, the default, are the distances of the epoch's own training pass.
	TrainScores ScoreSource = ScoreSource(training.TrainScores)
	// EvalScores are the distances of an eval-mode pass over every row after the epoch.
	EvalScores ScoreSource = ScoreSource(training.EvalScores)
)

// count is the ensemble's rules of o, the default for none.
func (o settings) count() (threshold.Combination, error) {
	names := o.countNames()
	c := make(threshold.Combination, len(names))
	for i, name := range names {
		if name == LearnedCount {
			return nil, fmt.Errorf("count %q is not a rule of the scores", name)
		}
		r, err := threshold.ByName(string(name))
		if err != nil {
			return nil, err
		}
		c[i] = r
	}
	return c, nil
}

// countNames are the count rules o names: Count, or defaultCount where it is nil.
func (o settings) countNames() []CountRule {
	if len(o.Count) == 0 {
		return []CountRule{defaultCount}
	}
	return o.Count
}

// kmeansCount says whether o counts by kmeansRule alone, which gives an interval
// around its share (method.DefaultInterval).
func (o settings) kmeansCount() bool {
	return o.Contamination == 0 && slices.Equal(o.Count, []CountRule{kmeansRule})
}

// learnedCount says whether o counts by LearnedCount.
func (o settings) learnedCount() bool {
	return o.Contamination == 0 && slices.Equal(o.countNames(), []CountRule{LearnedCount})
}

// delta is the proposed method's δ rule of o: a new one each call, since a rule may keep
// state and every member has its own.
func (o settings) delta() (dynamics.Rule, error) {
	name := o.Delta
	if name == "" {
		name = DeltaRule(dynamics.DefaultRule().Name())
	}
	ties := dynamics.TieLargest
	if o.Ties != "" {
		var err error
		if ties, err = dynamics.ParseTieRule(string(o.Ties)); err != nil {
			return nil, err
		}
	}
	return dynamics.NewRule(string(name), ties)
}

// RuleOf spells the rule that thresholds a fit with m (nil: Ensemble{}), as
// summary.json and model.json write it: the ensemble's count rules joined by "+"
// ("contamination=R" for a given Contamination), the proposed method's δ rule
// ("paper/TIES" for PaperRule), "" for the other methods.
func RuleOf(m Method) string { return newSettings(m, Options{}).rule() }

// rule is RuleOf of o's method.
func (o settings) rule() string {
	switch o.Method {
	case ensembleName:
		if o.Contamination > 0 {
			return fmt.Sprintf("contamination=%g", o.Contamination)
		}
		if len(o.Count) == 0 {
			return string(defaultCount)
		}
		names := make([]string, len(o.Count))
		for i, r := range o.Count {
			names[i] = string(r)
		}
		return strings.Join(names, "+")
	case proposedName:
		switch o.Delta {
		case "":
			return dynamics.DefaultRule().Name()
		case PaperRule:
			ties := o.Ties
			if ties == "" {
				ties = TiesLargest
			}
			return string(PaperRule) + "/" + string(ties)
		}
		return string(o.Delta)
	}
	return ""
}

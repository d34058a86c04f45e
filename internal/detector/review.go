package detector

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/udocc/udocc/internal/count"
	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/review"
	"github.com/udocc/udocc/internal/threshold"
)

// A review counts the anomalies from a few answers: ReviewRows picks rows for the user
// to label, a round at a time, and Calibrate turns the answers into the count, its 80 %
// interval and the threshold (package internal/review holds the design and the
// estimator; docs/threshold.md, "The count from answers"). Rows are ranked by score,
// highest first: rank 1 is the highest score, and ties go to the lower row index first.

// DefaultReviewRows is how many rows a round asks for when ReviewOptions.K is 0.
const DefaultReviewRows = 20

// Answer is the user's answer on one row under review.
type Answer struct {
	// Row is the row's 0-based index among the rows reviewed (the training rows, or
	// ReviewOptions.Rows / Scores).
	Row     int
	Anomaly bool
	// Round is the round of ReviewRows that asked the row (1, 2, ...), or 0 for a row the
	// user picked themselves, outside the design: the estimator treats those as
	// internal/review's Calibrate documents.
	Round int
}

// ReviewOptions say which rows are under review and how many to ask. The zero value
// reviews the training rows of a model from Fit, 20 rows a round, seed 0.
type ReviewOptions struct {
	// Rows are the rows under review, which the model scores; Scores, their scores where
	// the caller has them (Score's). Give at most one; with neither, the training rows
	// of a model from Fit are reviewed (a loaded model keeps none: ErrNoReviewRows).
	Rows   [][]float64
	Scores []float64
	// Pending are rows asked before and not answered yet (their Row and Round are read):
	// they are not asked again.
	Pending []ReviewRow
	// K is the rows to ask; 0 means DefaultReviewRows. Fewer come back only where fewer
	// rows remain.
	K int
	// Seed makes the choice repeatable: the same seed, answers and rows give the same
	// rows.
	Seed uint64
}

// ReviewRow is a row to ask about.
type ReviewRow struct {
	Row   int     // 0-based index among the rows reviewed
	Rank  int     // 1-based rank of its score among them, highest first
	Score float64 // its score
	Round int     // the round that asks it: one more than the answers' and pending rows' highest
}

// CalibrateOptions say on which rows the answers were given and which cut to draw. The
// zero value calibrates on the training rows of a model from Fit and cuts where the
// estimated F1 is highest.
type CalibrateOptions struct {
	// Rows or Scores are the rows the answers were given on, as in ReviewOptions.
	Rows   [][]float64
	Scores []float64
	// Precision, where set (in (0, 1]), cuts at the most rows whose estimated precision
	// is at least Precision; Recall, where set, at the fewest whose estimated recall is
	// at least Recall. Set at most one; neither: the cut of the highest estimated F1.
	Precision, Recall float64
	// LabelsSHA256 is the hex SHA-256 of the file the answers came from, recorded in
	// model.json beside their number; empty where there is none.
	LabelsSHA256 string
}

// Calibration is the count from answers and the cut drawn from it.
type Calibration struct {
	// N is the rows reviewed; Answers the answers the count rests on, Anomalies those
	// answered anomalous.
	N, Answers, Anomalies int
	// Count is the posterior median of the anomalies among the N rows, Share = Count/N
	// (the model's selected ratio), and Low, High the 80 % interval of the share.
	Count, Share, Low, High float64
	// Cut is how many rows, from rank 1, the threshold flags, and Threshold the score
	// above which a row is flagged (the model's Threshold from now on).
	Cut       int
	Threshold float64
	// Precision, Recall and F1 are estimated at Cut; Target names the cut: "f1",
	// "precision=P" or "recall=R".
	Precision, Recall, F1 float64
	Target                string
	// PriorShare, PriorLow and PriorHigh are the label-free count the answers updated
	// (its share and 80 % interval); 0 where it was the corpus prior.
	PriorShare, PriorLow, PriorHigh float64
}

// ErrNoReviewRows reports a review of a loaded model without rows: it keeps no training
// rows' scores.
var ErrNoReviewRows = errors.New("udocc: no rows to review: give the rows (ReviewOptions.Rows or Scores); a loaded model keeps no training rows")

// ErrNoRow and ErrContradiction are the Err of an AnswerError: a row that is not among
// the rows reviewed, and a row answered both anomalous and normal.
var (
	ErrNoRow         = errors.New("no such row")
	ErrContradiction = errors.New("answered both anomaly and normal")
	ErrBadRound      = errors.New("round below 0")
)

// AnswerError is an answer (or a pending row) that a review cannot take.
type AnswerError struct {
	Index int   // its index in the answers (or in ReviewOptions.Pending)
	Row   int   // its Row
	N     int   // the rows reviewed
	Err   error // ErrNoRow, ErrContradiction or ErrBadRound
}

func (e *AnswerError) Error() string {
	if errors.Is(e.Err, ErrNoRow) {
		return fmt.Sprintf("udocc: answer %d: row %d: %v (rows 0 to %d are reviewed)", e.Index, e.Row, e.Err, e.N-1)
	}
	return fmt.Sprintf("udocc: answer %d: row %d: %v", e.Index, e.Row, e.Err)
}

func (e *AnswerError) Unwrap() error { return e.Err }

// ReviewRows gives the rows to ask next, given the answers so far: K rows (fewer only
// where fewer remain), none answered or pending, the same ones for the same seed,
// answers and rows. A nil ctx is context.Background().
func (m *Model) ReviewRows(ctx context.Context, answers []Answer, o ReviewOptions) ([]ReviewRow, error) {
	if err := m.learned(); err != nil {
		return nil, err
	}
	scores, err := m.reviewScores(ctx, o.Rows, o.Scores)
	if err != nil {
		return nil, err
	}
	rank, order := ReviewRanks(scores)
	ra, err := rankedAnswers(answers, rank)
	if err != nil {
		return nil, err
	}
	round := 0
	for _, a := range answers {
		round = max(round, a.Round)
	}
	var pending []int
	for i, p := range o.Pending {
		if p.Row < 0 || p.Row >= len(scores) {
			return nil, &AnswerError{Index: i, Row: p.Row, N: len(scores), Err: ErrNoRow}
		}
		pending = append(pending, rank[p.Row])
		round = max(round, p.Round)
	}
	k := o.K
	if k == 0 {
		k = DefaultReviewRows
	}
	if k < 0 {
		return nil, fmt.Errorf("udocc: ReviewOptions.K %d: want 1 or more rows (0: %d)", k, DefaultReviewRows)
	}
	next, err := review.Next(len(scores), ra, pending, k, o.Seed, m.reviewPrior())
	if err != nil {
		return nil, fmt.Errorf("udocc: review: %w", err)
	}
	out := make([]ReviewRow, len(next))
	for i, r := range next {
		row := order[r-1]
		out[i] = ReviewRow{Row: row, Rank: r, Score: scores[row], Round: round + 1}
	}
	return out, nil
}

// Calibrate takes the answers and gives the count, its 80 % interval and the cut, and
// sets the model's threshold there: Threshold, Label, Predict, Save (model.json keeps the
// answers' provenance: Calibration's numbers and CalibrateOptions.LabelsSHA256) and a
// Handler serving the saved model follow it. The threshold is the score above which the
// Cut highest-ranked rows lie (threshold.TopCount's, tied rows kept together). Only the
// ensemble method's threshold can be drawn anew. A nil ctx is context.Background().
func (m *Model) Calibrate(ctx context.Context, answers []Answer, o CalibrateOptions) (Calibration, error) {
	if err := m.calibrable(); err != nil {
		return Calibration{}, err
	}
	scores, err := m.reviewScores(ctx, o.Rows, o.Scores)
	if err != nil {
		return Calibration{}, err
	}
	rank, _ := ReviewRanks(scores)
	ra, err := rankedAnswers(answers, rank)
	if err != nil {
		return Calibration{}, err
	}
	return m.calibrateRanked(len(scores), ra, scores, nil, o)
}

// CalibrateKnown is Calibrate on answers by rank among n rows, of which only the
// answered rows' scores are at hand (udocc cut --labels, whose table is not).
func (m *Model) CalibrateKnown(n int, answers []RankedAnswer, o CalibrateOptions) (Calibration, error) {
	if err := m.calibrable(); err != nil {
		return Calibration{}, err
	}
	known := map[int]float64{}
	ra := make([]review.Answer, len(answers))
	for i, a := range answers {
		if a.Rank < 1 || a.Rank > n {
			return Calibration{}, &AnswerError{Index: i, Row: a.Rank - 1, N: n, Err: ErrNoRow}
		}
		known[a.Rank] = a.Score
		ra[i] = review.Answer{Rank: a.Rank, Anomaly: a.Anomaly, Round: a.Round}
	}
	return m.calibrateRanked(n, ra, nil, known, o)
}

// calibrable refuses a model whose threshold cannot be drawn anew.
func (m *Model) calibrable() error {
	if err := m.learned(); err != nil {
		return err
	}
	if m.meta.Ensemble == nil {
		return fmt.Errorf("%w: method %s thresholds each member on its own; refit with the ensemble method", ErrNoRecut, m.meta.Method)
	}
	return nil
}

// calibrateRanked is Calibrate on answers by rank among n rows: the threshold is drawn on
// scores (the n rows' scores) where given, else from known (the scores of the ranks the
// caller has, the answered rows' at least) and the training scores' sketch (cutFrom).
func (m *Model) calibrateRanked(n int, answers []review.Answer, scores []float64, known map[int]float64, o CalibrateOptions) (Calibration, error) {
	target, name, err := reviewTarget(o.Precision, o.Recall)
	if err != nil {
		return Calibration{}, err
	}
	prior := m.reviewPrior()
	est, err := review.Calibrate(n, answers, prior, target)
	if err != nil {
		return Calibration{}, fmt.Errorf("udocc: calibrate: %w", err)
	}
	var thr float64
	if scores != nil {
		thr, err = cutOn(scores, est.Cut)
	} else {
		thr, err = m.cutFrom(n, est.Cut, known)
	}
	if err != nil {
		return Calibration{}, err
	}
	c := Calibration{N: n, Answers: est.Answers, Anomalies: est.Anomalies, Count: est.Count, Share: est.Share,
		Low: est.Low, High: est.High, Cut: est.Cut, Threshold: thr, Precision: est.Precision, Recall: est.Recall,
		F1: est.F1, Target: name, PriorShare: prior.Share, PriorLow: prior.Low, PriorHigh: prior.High}
	r := &models.Review{Answers: c.Answers, Anomalies: c.Anomalies, LabelsSHA256: o.LabelsSHA256, N: n,
		Count: c.Count, Share: c.Share, Cut: c.Cut, Target: name, Precision: finite01(c.Precision),
		Recall: finite01(c.Recall), F1: finite01(c.F1)}
	if prior != (review.Prior{}) {
		r.Prior = []float64{prior.Share, prior.Low, prior.High}
	}
	if m.meta.Review != nil {
		r.Prior = m.meta.Review.Prior // the label-free count, whichever answers came since
	}
	m.meta.Threshold, m.meta.ThresholdRule = &thr, "answers:"+name
	m.meta.RatioInterval, m.meta.CountReliable = []float64{c.Low, c.High}, nil
	m.meta.Review = r
	m.thr = thr
	if m.scores != nil {
		m.labels = m.Label(m.scores)
	}
	return c, nil
}

// finite01 is v where it is a share, 0 otherwise (model.json holds no NaN).
func finite01(v float64) float64 {
	if v >= 0 && v <= 1 {
		return v
	}
	return 0
}

// reviewTarget is the estimator's target of a precision or a recall (at most one set)
// and its name.
func reviewTarget(precision, recall float64) (review.Target, string, error) {
	ok := func(v float64) bool { return v > 0 && v <= 1 }
	switch {
	case precision != 0 && recall != 0:
		return review.Target{}, "", errors.New("udocc: CalibrateOptions: set Precision or Recall, not both")
	case precision != 0 && !ok(precision):
		return review.Target{}, "", fmt.Errorf("udocc: CalibrateOptions.Precision %g: want a share in (0, 1]", precision)
	case recall != 0 && !ok(recall):
		return review.Target{}, "", fmt.Errorf("udocc: CalibrateOptions.Recall %g: want a share in (0, 1]", recall)
	case precision != 0:
		return review.Target{Precision: precision}, "precision=" + strconv.FormatFloat(precision, 'g', -1, 64), nil
	case recall != 0:
		return review.Target{Recall: recall}, "recall=" + strconv.FormatFloat(recall, 'g', -1, 64), nil
	}
	return review.Target{}, "f1", nil
}

// reviewScores are the scores of the rows under review: rows scored, scores as given, or
// the training rows' of a model from Fit.
func (m *Model) reviewScores(ctx context.Context, rows [][]float64, scores []float64) ([]float64, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	switch {
	case rows != nil && scores != nil:
		return nil, errors.New("udocc: give the rows under review or their scores, not both")
	case rows != nil:
		return m.Score(ctx, rows)
	case scores != nil:
		for i, s := range scores {
			if math.IsNaN(s) || math.IsInf(s, 0) {
				return nil, fmt.Errorf("udocc: score %d is %v: want a finite score", i, s)
			}
		}
		return scores, ctx.Err()
	case m.scores != nil:
		return m.scores, ctx.Err()
	}
	return nil, ErrNoReviewRows
}

// checkAnswers refuses answers on rows past n and answers that contradict each other,
// as rankedAnswers does (an AnswerError).
func checkAnswers(answers []Answer, n int) error {
	order := make([]int, n)
	for i := range order {
		order[i] = i + 1
	}
	_, err := rankedAnswers(answers, order)
	return err
}

// rankedAnswers are answers by rank; a row answered twice alike counts once (the first
// answer with a round), a row answered both ways is refused.
func rankedAnswers(answers []Answer, rank []int) ([]review.Answer, error) {
	seen := map[int]int{} // row -> index in out
	var out []review.Answer
	for i, a := range answers {
		switch {
		case a.Row < 0 || a.Row >= len(rank):
			return nil, &AnswerError{Index: i, Row: a.Row, N: len(rank), Err: ErrNoRow}
		case a.Round < 0:
			return nil, &AnswerError{Index: i, Row: a.Row, N: len(rank), Err: ErrBadRound}
		}
		if j, ok := seen[a.Row]; ok {
			if out[j].Anomaly != a.Anomaly {
				return nil, &AnswerError{Index: i, Row: a.Row, N: len(rank), Err: ErrContradiction}
			}
			if out[j].Round == 0 {
				out[j].Round = a.Round
			}
			continue
		}
		seen[a.Row] = len(out)
		out = append(out, review.Answer{Rank: rank[a.Row], Anomaly: a.Anomaly, Round: a.Round})
	}
	return out, nil
}

// reviewPrior is the label-free count the answers update: the one recorded by an
// earlier calibration, else the model's selected ratio with its 80 % interval where the
// count gave one (the corpus prior's spread where it gave none: a given contamination,
// another rule); the zero Prior (the corpus prior) where the model has no ratio.
func (m *Model) reviewPrior() review.Prior {
	if r := m.meta.Review; r != nil {
		if len(r.Prior) == 3 {
			return review.Prior{Share: r.Prior[0], Low: r.Prior[1], High: r.Prior[2]}
		}
		return review.Prior{}
	}
	lo, hi := m.RatioInterval()
	share := m.Ratio()
	if m.scores == nil && m.meta.Tail != nil && !math.IsInf(m.thr, 0) {
		share = float64(m.TrainingFlagged()) / float64(m.meta.Tail.N)
	}
	switch {
	case !(share > 0 && share < 1):
		return review.Prior{}
	case math.IsNaN(lo):
		return review.Prior{Share: share} // the corpus prior's spread around the model's share
	}
	const edge = 1e-6 // the estimator takes shares in (0, 1)
	clip := func(v float64) float64 { return min(max(v, edge), 1-edge) }
	return review.Prior{Share: clip(share), Low: clip(min(lo, share)), High: clip(max(hi, share))}
}

// cutOn is the threshold that flags the top cut of scores: above every score for 0,
// below every score for all of them.
func cutOn(scores []float64, cut int) (float64, error) {
	if cut >= len(scores) {
		return math.Nextafter(slices.Min(scores), math.Inf(-1)), nil
	}
	t, err := threshold.TopCount(scores, max(cut, 0))
	if err != nil {
		return 0, fmt.Errorf("udocc: %w", err)
	}
	return t, nil
}

// cutFrom is the threshold that flags the top cut of n rows whose scores are not all at
// hand. Where the score of rank cut+1 is known (known: rank -> score, the answered
// rows' at least), it is that score. Else it is the training scores' value at that
// share, from their sketch in model.json: the rows reviewed are taken to score as the
// training rows do. Beyond the sketch's shares (at most a half) it is interpolated
// linearly in rank between the nearest known ranks. In every case each known row above
// the cut is flagged and none below it. All n rows: below every
// finite score; none (the top score not known): above every one.
func (m *Model) cutFrom(n, cut int, known map[int]float64) (float64, error) {
	if cut >= n {
		return -math.MaxFloat64, nil
	}
	if s, ok := known[cut+1]; ok {
		if above, ok := known[cut]; !ok || above > s {
			return s, nil
		}
	}
	lo, hi := math.Inf(-1), math.Inf(1) // the threshold must be >= lo and < hi
	for r, s := range known {
		if r > cut {
			lo = max(lo, s)
		} else {
			hi = min(hi, s)
		}
	}
	var thr float64
	t := m.meta.Tail
	switch {
	case cut == 0:
		thr = math.MaxFloat64 // above every finite score; the top one is not at hand
	case t != nil && float64(cut)/float64(n) <= t.Shares[len(t.Shares)-1]:
		var err error
		if thr, err = m.tailThreshold(Cut{Contamination: float64(cut) / float64(n)}); err != nil {
			return 0, err
		}
	default:
		var ok bool
		if thr, ok = interpolateRank(rankPoints(t, n, known), float64(cut+1)); !ok {
			return 0, fmt.Errorf("%w: the top %d of %d rows: no score known at or below rank %d; calibrate on the table's rows", ErrNoRecut, cut, n, cut+1)
		}
	}
	if thr < lo {
		thr = lo
	}
	if thr >= hi && hi > lo {
		thr = math.Max(lo, math.Nextafter(hi, math.Inf(-1)))
	}
	return thr, nil
}

// rankPoint is a score known (or sketched) at a rank among n rows.
type rankPoint struct{ rank, score float64 }

// rankPoints are the scores known at ranks among n rows, ascending by rank: the sketch
// of the training scores (tail, nil for none) placed at the ranks its shares give among
// n, and the known rows' own.
func rankPoints(tail *models.Tail, n int, known map[int]float64) []rankPoint {
	var pts []rankPoint
	if tail != nil {
		for i, share := range tail.Shares {
			pts = append(pts, rankPoint{share*float64(n) + 1, tail.Scores[i]})
		}
		pts = append(pts, rankPoint{0.5*float64(n) + 1, tail.Median})
	}
	for r, s := range known {
		pts = append(pts, rankPoint{float64(r), s})
	}
	slices.SortFunc(pts, func(a, b rankPoint) int { return cmp.Compare(a.rank, b.rank) })
	return pts
}

// interpolateRank is the score at rank r, linear in rank between the points on either
// side of it: the first point's score before it, just below the last point's past it;
// false where there are no points.
func interpolateRank(pts []rankPoint, r float64) (float64, bool) {
	if len(pts) == 0 {
		return 0, false
	}
	i, _ := slices.BinarySearchFunc(pts, r, func(p rankPoint, r float64) int { return cmp.Compare(p.rank, r) })
	switch {
	case i == len(pts):
		return math.Nextafter(pts[i-1].score, math.Inf(-1)), true
	case pts[i].rank == r || i == 0:
		return pts[i].score, true
	}
	a, b := pts[i-1], pts[i]
	return a.score + (r-a.rank)/(b.rank-a.rank)*(b.score-a.score), true
}

// CountBasis says what a model's count of anomalies (its selected ratio) rests on.
type CountBasis struct {
	// Prior is true where the count is the corpus prior: the learned count found no
	// evidence of the share in the scores (its gate stayed shut), and Share is the
	// median share over the real tables it was learned on.
	Prior bool
	// Share is the count's share of the rows (the selected ratio); NaN where the model
	// does not say (the paper's methods).
	Share float64
	// Answers and Anomalies are the answers a calibrated count rests on (Calibrate), 0
	// for a label-free one; LabelsSHA256 the hash of their file where one was given.
	Answers, Anomalies int
	LabelsSHA256       string
}

// CountBasis says what the model's count rests on: answers, the scores, or the corpus
// prior alone.
func (m *Model) CountBasis() CountBasis {
	if r := m.meta.Review; r != nil {
		return CountBasis{Share: r.Share, Answers: r.Answers, Anomalies: r.Anomalies, LabelsSHA256: r.LabelsSHA256}
	}
	b := CountBasis{Share: m.Ratio()}
	if m.scores == nil && m.meta.Tail != nil && !math.IsInf(m.thr, 0) {
		b.Share = float64(m.TrainingFlagged()) / float64(m.meta.Tail.N)
	}
	if share, ok := m.priorCount(); ok {
		b.Prior, b.Share = true, share
	}
	return b
}

// priorCount is the corpus prior's share, and whether the model's count is it: the
// learned count's gate shut, as the interval model.json keeps shows (the prior's own).
func (m *Model) priorCount() (float64, bool) {
	iv := m.meta.RatioInterval
	if m.meta.ThresholdRule != string(LearnedCount) || len(iv) != 2 {
		return 0, false
	}
	cm, err := count.Default()
	if err != nil || cm.Gate == nil || len(cm.Bands) == 0 || m.meta.CountModel != cm.Version {
		return 0, false
	}
	share := math.Exp(min(max(cm.Intercept, math.Log(cm.MinShare)), math.Log(cm.MaxShare)))
	lo, hi := min(share*math.Exp(cm.Bands[0].Low), 1), min(share*math.Exp(cm.Bands[0].High), 1)
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }
	return share, near(iv[0], lo) && near(iv[1], hi)
}

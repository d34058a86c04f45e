package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/udocc/udocc/data"
	lib "github.com/udocc/udocc/internal/detector"
)

// reviewFlags are udocc review's flags.
type reviewFlags struct {
	model, labels     string
	k                 int
	seed              uint64
	interactive, web  bool
	port              int
	precision, recall float64
	input             inputFlags
	table             tableFlags
	device            string
	threads           int
}

func runReview(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("review", "--model DIR --labels FILE [flags] DATA",
		"Pick rows of DATA for you to label, a round at a time, and count the anomalies from your answers. "+
			"It scores DATA with the saved model, writes (or extends) FILE, a CSV with a row to answer per line "+
			"(fill its anomaly column with 1 or 0), and prints the count so far. Run it again after answering: "+
			"it adds the next rows, chosen given the answers; a row is never asked twice. "+
			"Then udocc cut --model DIR --labels FILE --out DIR2 writes the model with the count's threshold.", stdout)
	var f reviewFlags
	fs.StringVar(&f.model, "model", "", "saved model folder (the model/ folder that udocc fit wrote)")
	fs.StringVar(&f.labels, "labels", "", "the labels file to write or extend (CSV)")
	fs.IntVar(&f.k, "k", lib.DefaultReviewRows, "rows to ask this round")
	fs.Uint64Var(&f.seed, "seed", 1, "the seed of the rows' choice: the same seed and answers ask the same rows")
	fs.BoolVar(&f.interactive, "interactive", false, "ask in the terminal, one row at a time with its explanation (a: anomaly, n: normal, s: skip, q: quit); every answer is saved at once")
	fs.BoolVar(&f.web, "web", false, "serve a page on 127.0.0.1 to answer in a browser; every answer is saved at once")
	fs.IntVar(&f.port, "port", 0, "--web's port on 127.0.0.1 (0: any free port; the URL is printed)")
	fs.Float64Var(&f.precision, "precision", 0, "report the cut whose estimated precision is at least P (default: the cut of the highest estimated F1)")
	fs.Float64Var(&f.recall, "recall", 0, "report the cut whose estimated recall is at least R")
	addInputFlags(fs, &f.input)
	addDeviceFlags(fs, &f.device, &f.threads, usableCores())
	addTableFlags(fs, &f.table)
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case f.model == "" || f.labels == "":
		return usagef("--model and --labels are required")
	case fs.NArg() != 1:
		return usagef("want one DATA file, have %d arguments", fs.NArg())
	case f.k < 1:
		return usagef("--k %d: want 1 or more rows", f.k)
	case f.interactive && f.web:
		return usagef("give --interactive or --web, not both")
	case f.port < 0 || f.port > 65535:
		return usagef("--port %d: want 0..65535", f.port)
	case fs.Changed("port") && !f.web:
		return usagef("--port is --web's")
	}
	if err := checkTarget(f.precision, f.recall); err != nil {
		return err
	}
	if err := checkDevice(f.device); err != nil {
		return err
	}
	if err := checkThreads(f.threads); err != nil {
		return err
	}
	if err := f.input.check(); err != nil {
		return err
	}
	if err := f.table.check(false); err != nil {
		return err
	}
	if err := deviceUsable(f.device); err != nil {
		return err
	}
	f.table.threads = f.threads
	m, in, ds, err := openScored(fs, f.model, fs.Arg(0), f.device, f.input, f.table)
	if err != nil {
		return err
	}
	defer m.Close()
	defer in.remove()
	m.SetThreads(f.threads)
	s, err := openReview(ctx, m, ds, fs.Arg(0), f)
	if err != nil {
		return err
	}
	switch {
	case f.interactive:
		return s.interactive(ctx, os.Stdin, stdout)
	case f.web:
		return s.serveWeb(ctx, f.port, stdout, stderr)
	}
	asked, err := s.ask(ctx)
	if err != nil {
		return err
	}
	s.report(stdout, asked)
	return nil
}

// checkTarget refuses a --precision or --recall out of (0, 1], or both.
func checkTarget(precision, recall float64) error {
	switch {
	case precision != 0 && recall != 0:
		return usagef("give --precision or --recall, not both")
	case precision != 0 && !(precision > 0 && precision <= 1):
		return usagef("--precision %g: want a share in (0, 1]", precision)
	case recall != 0 && !(recall > 0 && recall <= 1):
		return usagef("--recall %g: want a share in (0, 1]", recall)
	}
	return nil
}

// reviewSession is a labels file and the table it labels, scored by a model: what a
// review's rounds, answers and estimate work on.
type reviewSession struct {
	m       *lib.Model
	ds      *data.Dataset
	data    string // DATA as given
	f       reviewFlags
	scores  []float64
	rank    []int // each row's 1-based rank (lib.ReviewRanks)
	lf      *labelsFile
	header  []string
	explain int // features named per row
}

// openReview scores ds with m, reads the labels file and checks it against the table:
// each line's row exists, its score, rank and n are the model's on this table (a file
// for another table or model is refused), and the lines the user added get their score,
// rank, values and explanation filled in.
func openReview(ctx context.Context, m *lib.Model, ds *data.Dataset, path string, f reviewFlags) (*reviewSession, error) {
	scores, _, err := m.ScoreDataset(ctx, ds) // imputes ds's missing cells: the values written
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, libError(err))
	}
	s, err := newReviewSession(m, ds, path, f, scores)
	if err != nil {
		return nil, err
	}
	var fill []*labelLine
	for _, l := range s.lf.lines {
		i, err := s.check(l)
		if err != nil {
			return nil, err
		}
		if !l.hasScore || l.rank == 0 || l.n == 0 {
			fill = append(fill, l)
			s.setCells(l, i, -1)
		}
	}
	if err := s.explainLines(ctx, fill); err != nil {
		return nil, err
	}
	return s, nil
}

// newReviewSession is the review of ds (read from path), whose rows score scores under
// m, with the labels file f.labels read (a new one where there is none).
func newReviewSession(m *lib.Model, ds *data.Dataset, path string, f reviewFlags, scores []float64) (*reviewSession, error) {
	s := &reviewSession{m: m, ds: ds, data: path, f: f, scores: scores, explain: min(defaultExplain, ds.D)}
	s.rank, _ = lib.ReviewRanks(scores)
	s.header = s.columns()
	var err error
	if s.lf, err = readLabels(f.labels, true); err != nil {
		return nil, err
	}
	return s, nil
}

// dsRow is the row of ds that is the file's 1-based data row row; false where there is
// none (out of range, or a row the read left out).
func (s *reviewSession) dsRow(row int) (int, bool) {
	if s.ds.RowIndex == nil {
		return row - 1, row >= 1 && row <= s.ds.N
	}
	// RowIndex holds the kept rows in file order.
	return slices.BinarySearch(s.ds.RowIndex, row-1)
}

// fileRow is row i's 1-based data row in the file, as scores.csv numbers it.
func (s *reviewSession) fileRow(i int) int {
	if s.ds.RowIndex != nil {
		return s.ds.RowIndex[i] + 1
	}
	return i + 1
}

// columns are the labels file's columns for this table.
func (s *reviewSession) columns() []string {
	h := []string{colRow}
	if s.ds.IDs != nil {
		h = append(h, s.idColumn())
	}
	h = append(h, labelsColumns[1:]...)
	for j := range s.ds.D {
		h = append(h, featureName(s.ds.Features, j))
	}
	for i := 1; i <= s.explain; i++ {
		h = append(h, fmt.Sprintf("feature_%d", i), fmt.Sprintf("share_%d", i))
	}
	return h
}

// idColumn is the id column's name in the labels file: the table's, unless it is one of
// the file's own.
func (s *reviewSession) idColumn() string {
	if slices.Contains(labelsColumns, s.ds.IDName) || s.ds.IDName == "" {
		return "id"
	}
	return s.ds.IDName
}

// scoreTolerance is how far, relatively, a labels file's score may be from the model's
// on the same row: the file's are written exactly, so only a score computed on another
// device (or libtorch) differs at all.
const scoreTolerance = 1e-5

// check checks a line against the table and the model's scores of it, and returns its
// row of ds.
func (s *reviewSession) check(l *labelLine) (int, error) {
	i, err := s.checkRows(l)
	if err != nil {
		return 0, err
	}
	if l.hasScore && !scoreNear(l.score, s.scores[i]) {
		return 0, s.lineError(l, colScore, "row %d scores %s under %s, the file says %s: a labels file of another table or model",
			l.row, ftoa(s.scores[i]), s.f.model, ftoa(l.score))
	}
	if l.rank != 0 && l.rank != s.rank[i] {
		return 0, s.lineError(l, colRank, "row %d ranks %d under %s, the file says %d: a labels file of another table or model", l.row, s.rank[i], s.f.model, l.rank)
	}
	return i, nil
}

// checkRows checks a line against the table (its row, n and id) and returns its row of
// ds.
func (s *reviewSession) checkRows(l *labelLine) (int, error) {
	i, ok := s.dsRow(l.row)
	if !ok {
		return 0, s.lineError(l, colRow, "row %d is not a row of %s (%d rows%s)", l.row, s.data, s.ds.N, leftOut(s.ds))
	}
	if l.n != 0 && l.n != s.ds.N {
		return 0, s.lineError(l, colN, "%d rows, but %s has %d: a labels file of another table", l.n, s.data, s.ds.N)
	}
	if id := s.idColumn(); s.ds.IDs != nil {
		if v, ok := l.cells[id]; ok && strings.TrimSpace(v) != "" && v != s.ds.IDs[i] {
			return 0, s.lineError(l, id, "row %d has id %q in %s, the file says %q: a labels file of another table", l.row, s.ds.IDs[i], s.data, v)
		}
	}
	return i, nil
}

// lineError is an error of line l's column col.
func (s *reviewSession) lineError(l *labelLine, col, format string, args ...any) error {
	return &labelsError{Path: s.lf.path, Line: l.line, Column: col, Err: fmt.Errorf(format, args...)}
}

// leftOut says how many rows the table left out, where it left any.
func leftOut(ds *data.Dataset) string {
	if k := len(ds.EmptyRows) + ds.RowsDropped; k > 0 {
		return fmt.Sprintf(", %d left out for missing values", k)
	}
	return ""
}

func scoreNear(a, b float64) bool {
	return a == b || math.Abs(a-b) <= scoreTolerance*math.Max(math.Abs(a), math.Abs(b))
}

// setCells writes row i's own cells into l: row, id, score, rank, n, its values, and
// its round unless round < 0 (a line the user added keeps its empty round).
func (s *reviewSession) setCells(l *labelLine, i, round int) {
	l.row = s.fileRow(i)
	l.score, l.hasScore, l.rank, l.n = s.scores[i], true, s.rank[i], s.ds.N
	c := l.cells
	c[colRow] = strconv.Itoa(l.row)
	if s.ds.IDs != nil {
		c[s.idColumn()] = s.ds.IDs[i]
	}
	c[colScore], c[colRank], c[colN] = ftoa(l.score), strconv.Itoa(l.rank), strconv.Itoa(l.n)
	if round >= 0 {
		l.round, c[colRound] = round, strconv.Itoa(round)
	}
	for j, v := range s.ds.Row(i) {
		c[featureName(s.ds.Features, j)] = strconv.FormatFloat(float64(v), 'g', -1, 32)
	}
}

// explainLines fills the lines' feature_i and share_i cells: the features that raise
// each row's score most, with their shares (Model.ExplainDataset, as scores.csv's).
func (s *reviewSession) explainLines(ctx context.Context, lines []*labelLine) error {
	if len(lines) == 0 || s.explain == 0 {
		return nil
	}
	rows := make([]int, len(lines))
	for k, l := range lines {
		rows[k], _ = s.dsRow(l.row)
	}
	atts, err := s.m.ExplainDataset(ctx, s.ds, rows, lib.ExplainOptions{})
	if err != nil {
		return fmt.Errorf("explaining the rows asked: %w", libError(err))
	}
	for k, a := range atts {
		c := lines[k].cells
		shares := a.Shares()
		top := a.Top(s.explain)
		for q := range s.explain {
			name, share := "", ""
			if q < len(top) {
				name, share = featureName(s.ds.Features, top[q]), strconv.FormatFloat(shares[top[q]], 'f', 4, 64)
			}
			c[fmt.Sprintf("feature_%d", q+1)], c[fmt.Sprintf("share_%d", q+1)] = name, share
		}
	}
	return nil
}

// answers are the file's answers and pending rows in the library's terms.
func (s *reviewSession) answers() ([]lib.Answer, []lib.ReviewRow) {
	var answers []lib.Answer
	var pending []lib.ReviewRow
	for _, l := range s.lf.lines {
		i, _ := s.dsRow(l.row)
		switch {
		case l.answered():
			answers = append(answers, lib.Answer{Row: i, Anomaly: l.answer == 1, Round: l.round})
		default:
			pending = append(pending, lib.ReviewRow{Row: i, Rank: s.rank[i], Score: s.scores[i], Round: l.round})
		}
	}
	return answers, pending
}

// ask adds the next round's rows to the file and saves it; it returns the lines added.
func (s *reviewSession) ask(ctx context.Context) ([]*labelLine, error) {
	answers, pending := s.answers()
	next, err := s.m.ReviewRows(ctx, answers, lib.ReviewOptions{Scores: s.scores, Pending: pending, K: s.f.k, Seed: s.f.seed})
	if err != nil {
		return nil, libError(err)
	}
	round := s.lf.maxRound() + 1
	var added []*labelLine
	for _, r := range next {
		l := &labelLine{cells: map[string]string{}, answer: -1}
		s.setCells(l, r.Row, round)
		added = append(added, l)
	}
	if err := s.explainLines(ctx, added); err != nil {
		return nil, err
	}
	s.lf.lines = append(s.lf.lines, added...)
	return added, s.save()
}

// save writes the labels file.
func (s *reviewSession) save() error { return s.lf.write(s.header) }

// answer sets row's (1-based file row) answer, 1 anomaly or 0 normal, and saves the file.
// A row not in the file is added as the user's own pick.
func (s *reviewSession) answer(ctx context.Context, row, a int) error {
	for _, l := range s.lf.lines {
		if l.row == row {
			l.answer, l.cells[colAnomaly] = a, strconv.Itoa(a)
			return s.save()
		}
	}
	i, ok := s.dsRow(row)
	if !ok {
		return fmt.Errorf("row %d is not a row of %s (%d rows%s)", row, s.data, s.ds.N, leftOut(s.ds))
	}
	l := &labelLine{cells: map[string]string{colAnomaly: strconv.Itoa(a)}, answer: a}
	s.setCells(l, i, -1)
	if err := s.explainLines(ctx, []*labelLine{l}); err != nil {
		return err
	}
	s.lf.lines = append(s.lf.lines, l)
	return s.save()
}

// estimate is the count from the answers so far (Model.Calibrate on the loaded model,
// which is not saved).
func (s *reviewSession) estimate(ctx context.Context) (lib.Calibration, error) {
	answers, _ := s.answers()
	c, err := s.m.Calibrate(ctx, answers, lib.CalibrateOptions{Scores: s.scores, Precision: s.f.precision, Recall: s.f.recall})
	if err != nil {
		return c, libError(err)
	}
	return c, nil
}

// report prints what the round did and the estimate.
func (s *reviewSession) report(w io.Writer, asked []*labelLine) {
	answers, anomalies, pending := s.lf.counts()
	if len(asked) > 0 {
		ranks := make([]string, len(asked))
		for k, l := range asked {
			ranks[k] = strconv.Itoa(l.rank)
		}
		fmt.Fprintf(w, "udocc review: round %d: %d rows of %s asked (ranks %s) in %s\n", asked[0].round, len(asked), s.data, strings.Join(ranks, " "), s.lf.path)
	} else {
		fmt.Fprintf(w, "udocc review: no rows left to ask in %s\n", s.data)
	}
	fmt.Fprintf(w, "  %d answers (%d anomalies), %d rows waiting for an answer\n", answers, anomalies, pending)
	s.printEstimate(context.Background(), w)
	fmt.Fprintf(w, "  next: fill the anomaly column of %s with 1 (anomaly) or 0 (normal), then run udocc review again for more rows, or udocc cut --model %s --labels %s --out DIR for the model with this count's threshold\n",
		s.lf.path, s.f.model, s.lf.path)
}

// printEstimate prints the count and the cut, or why there is none.
func (s *reviewSession) printEstimate(ctx context.Context, w io.Writer) {
	c, err := s.estimate(ctx)
	if err != nil {
		fmt.Fprintf(w, "  no count: %v\n", err)
		return
	}
	fmt.Fprintf(w, "  %s\n", countLine(c))
	fmt.Fprintf(w, "  %s\n", cutLine(c))
}

// countLine says the count, its interval and what it rests on.
func countLine(c lib.Calibration) string {
	rests := fmt.Sprintf("from %d answers (%d anomalies)", c.Answers, c.Anomalies)
	if c.Answers == 0 {
		rests = "no answers yet: the label-free count"
	}
	if n := noAnomalyNote(c.Answers, c.Anomalies); n != "" {
		rests += "; " + n
	}
	return fmt.Sprintf("count: %.1f of %d rows (%.2f %%), 80 %% interval %.2f %% to %.2f %%, %s",
		c.Count, c.N, 100*c.Share, 100*c.Low, 100*c.High, rests)
}

// noAnomalyNote warns of a count from answers none of which is an anomaly: such answers
// read alike on every table, so the count is about the same whatever the share (on the
// corpus, tables of 0.03 % to 5 % got about 0.85 %; docs/threshold.md). "" otherwise.
func noAnomalyNote(answers, anomalies int) string {
	if answers == 0 || anomalies > 0 {
		return ""
	}
	return "no answer is an anomaly, so the answers cannot tell a share of 0.03 % from one of 5 % (docs/threshold.md): label more rows, or add rows you know to be anomalies"
}

// cutLine says the cut and its estimated quality.
func cutLine(c lib.Calibration) string {
	return fmt.Sprintf("cut (%s): flag the top %d rows, threshold %.6g; estimated precision %.2f, recall %.2f, F1 %.2f",
		c.Target, c.Cut, c.Threshold, c.Precision, c.Recall, c.F1)
}

// errQuit ends an interactive review at the user's q.
var errQuit = errors.New("quit")

// fitCalibration is what fit --labels did: the count from the answers and how many of
// the labelled rows' scores were not this fit's (labels drawn on another model).
type fitCalibration struct {
	lib.Calibration
	path     string
	rescored int
}

// calibrateFit fine-tunes a fresh fit's networks and sharpens its scores with the answers
// of the labels file o.labels, and sets its count and threshold from them (Model.Learn on
// the training rows; the count is udocc cut --labels').
// The file must be of this table (its rows, n and ids); where its scores are another
// model's (the file was reviewed with a model fitted otherwise), the rows keep their
// answers and rounds, ranked by this fit's scores, and the report says how many.
func calibrateFit(ctx context.Context, m *lib.Model, ds *data.Dataset, o fitOptions) (*fitCalibration, error) {
	s, err := newReviewSession(m, ds, ds.Path, reviewFlags{model: "this fit", labels: o.labels}, m.Scores())
	if err != nil {
		return nil, err
	}
	if s.lf.header == nil {
		return nil, &labelsError{Path: o.labels, Err: errors.New("no such file: udocc review --model DIR --labels FILE DATA writes one")}
	}
	fc := &fitCalibration{path: o.labels}
	for _, l := range s.lf.lines {
		i, err := s.checkRows(l)
		if err != nil {
			return nil, err
		}
		if l.answered() && (l.rank != 0 && l.rank != s.rank[i] || l.hasScore && !scoreNear(l.score, s.scores[i])) {
			fc.rescored++
		}
	}
	answers, _ := s.answers()
	if fc.Calibration, err = m.Learn(ctx, ds, answers, lib.CalibrateOptions{LabelsSHA256: s.lf.sha256}); err != nil {
		return nil, fmt.Errorf("%s: %w", o.labels, libError(err))
	}
	return fc, nil
}

// What a count rests on (summary.json's count_basis.from).
const (
	countFromAnswers = "answers"
	countFromPrior   = "prior"
	countFromScores  = "scores"
)

// countBasis is summary.json's count_basis: what the ensemble's count (selected_ratio)
// rests on, said plainly, with the next step where it is the corpus prior.
type countBasis struct {
	// From is "answers" (a count calibrated from a labels file), "prior" (the learned
	// count found no evidence of the share in the scores: the corpus prior) or
	// "scores" (a rule's count of the scores, or a given contamination).
	From string `json:"from"`
	// Answers and Anomalies are the answers the count rests on (0 for a label-free
	// count); Labels and LabelsSHA256 their file.
	Answers      int    `json:"answers"`
	Anomalies    int    `json:"anomalies"`
	Labels       string `json:"labels,omitempty"`
	LabelsSHA256 string `json:"labels_sha256,omitempty"`
	// Sharpened is set where the answers also sharpened the scores (fit --labels),
	// with the evidence's weight Beta (docs/answers.md).
	Sharpened bool    `json:"scores_sharpened"`
	Beta      float64 `json:"evidence_weight,omitempty"`
	// FineTuned is set where the answers also fine-tuned the networks (fit --labels
	// with an anomaly and a normal row among them; docs/answers.md).
	FineTuned bool `json:"networks_fine_tuned"`
	// Note says it in a sentence, and what to do next.
	Note string `json:"note"`
}

// reviewAnswers is about how many answers a review needs for a useful count (the 80 %
// interval about ×3.3 wide instead of ×37 on the 71 tables of the corpus;
// docs/threshold.md, "The count from answers").
const reviewAnswers = 40

// countBasisOf is what m's count rests on; model and data name the model's folder and
// the table for the next step's command, fc the calibration of fit --labels (or nil).
func countBasisOf(m *lib.Model, model, data string, fc *fitCalibration) *countBasis {
	b := m.CountBasis()
	switch {
	case b.Answers > 0 || fc != nil:
		cb := &countBasis{From: countFromAnswers, Answers: b.Answers, Anomalies: b.Anomalies, LabelsSHA256: b.LabelsSHA256}
		cb.Note = fmt.Sprintf("the count rests on %d answers (%d anomalies)", b.Answers, b.Anomalies)
		if fc != nil {
			cb.Labels = fc.path
			cb.Note = fmt.Sprintf("the count rests on %d answers (%d anomalies) in %s: %.1f of %d rows, cut (%s) at the top %d",
				b.Answers, b.Anomalies, fc.path, fc.Count, fc.N, fc.Target, fc.Cut)
			if fc.rescored > 0 {
				cb.Note += fmt.Sprintf("; %d of the answered rows were ranked by another model's scores when asked, and are ranked by this fit's", fc.rescored)
			}
			_, cb.FineTuned = m.FineTuned()
			beta, sharp := m.Sharpened()
			cb.Sharpened, cb.Beta = sharp, beta
			switch {
			case cb.FineTuned && sharp:
				cb.Note += fmt.Sprintf("; the networks are fine-tuned on the answers (Deep SAD) and their scores sharpened by them (evidence weight %.2f)", beta)
			case cb.FineTuned:
				cb.Note += "; the networks are fine-tuned on the answers (Deep SAD)"
			case sharp:
				cb.Note += fmt.Sprintf("; the scores are sharpened by the answers (evidence weight %.2f)", beta)
			default:
				cb.Note += "; the scores are the label-free fit's: the answers hold no anomaly or no normal row"
			}
		}
		if n := noAnomalyNote(b.Answers, b.Anomalies); n != "" {
			cb.Note += "; " + n
		}
		return cb
	case b.Prior:
		return &countBasis{From: countFromPrior, Note: fmt.Sprintf(
			"no evidence of the share in the scores; %.2f %% is the corpus prior. To count from answers, label about %d rows: udocc review --model %s --labels labels.csv %s",
			100*b.Share, reviewAnswers, model, data)}
	}
	return &countBasis{From: countFromScores, Note: fmt.Sprintf(
		"the count comes from the scores alone; about %d answers (udocc review) give one from labels", reviewAnswers)}
}

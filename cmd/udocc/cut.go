package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/spf13/pflag"

	lib "github.com/udocc/udocc/internal/detector"
)

// cutFlags are the flags that draw a threshold anew without training: score's, on the
// rows it scores, and cut's, on the training rows' scores the model keeps.
type cutFlags struct {
	contamination float64
	count         int
	rule          string
	score         float64
}

// addCutFlags declares the cut flags; on says on which scores they cut.
func addCutFlags(fs *pflag.FlagSet, c *cutFlags, on string) {
	fs.Float64Var(&c.contamination, "contamination", 0, "re-cut: flag the top share P of "+on+", a share in (0, 0.5], instead of the model's threshold")
	fs.IntVar(&c.count, "count", 0, "re-cut: flag the top K of "+on)
	fs.StringVar(&c.rule, "threshold", "", "re-cut: apply this count rule to the scores of "+on+" ("+orList(thresholdNames())+")")
	fs.Float64Var(&c.score, "score-threshold", 0, "re-cut: flag the rows scoring above this score (in the units of scores.csv's score)")
}

// cut is the lib.Cut the flags give, nil where none is given (unless required).
func (c cutFlags) cut(fs *pflag.FlagSet, required bool) (*lib.Cut, error) {
	given := 0
	var names []string
	for _, name := range []string{"contamination", "count", "threshold", "score-threshold"} {
		if fs.Lookup(name) != nil {
			names = append(names, "--"+name)
			if fs.Changed(name) {
				given++
			}
		}
	}
	switch {
	case given == 0 && required:
		return nil, usagef("give one of %s", orList(names))
	case given == 0:
		return nil, nil
	case given > 1:
		return nil, usagef("give only one of %s", orList(names))
	case fs.Changed("contamination") && !(c.contamination > 0 && c.contamination <= lib.MaxContamination):
		return nil, usagef("--contamination %g: want a share of rows in (0, %g]", c.contamination, lib.MaxContamination)
	case fs.Changed("count") && c.count < 1:
		return nil, usagef("--count %d: want 1 or more rows", c.count)
	}
	cut := &lib.Cut{Contamination: c.contamination, Count: c.count, Rule: c.rule}
	if fs.Changed("score-threshold") {
		if math.IsNaN(c.score) || math.IsInf(c.score, 0) {
			return nil, usagef("--score-threshold %g: want a finite number", c.score)
		}
		cut.Score = &c.score
	}
	if c.rule != "" && !validRule(c.rule) {
		return nil, usagef("--threshold %q: want one of %s", c.rule, orList(thresholdNames()))
	}
	return cut, nil
}

func validRule(name string) bool {
	for _, r := range thresholdNames() {
		if r == name {
			return true
		}
	}
	return false
}

// cutSummary is what udocc cut prints with --json.
type cutSummary struct {
	Model     string  `json:"model"`
	Out       string  `json:"out"`
	Cut       string  `json:"cut"`
	Before    float64 `json:"threshold_before"`
	Threshold float64 `json:"threshold"`
	// Flagged is the training rows above the new threshold, estimated from the model's
	// sketch of their scores.
	Flagged int `json:"flagged_training_rows"`
	// Seconds is the cut's own time: the threshold drawn and the new model written, after
	// the model is loaded.
	Seconds float64 `json:"seconds"`
	// The count from answers (--labels): absent otherwise.
	*answersSummary
}

// answersSummary is what udocc cut --labels adds to its JSON: the count from the
// answers, its interval, the cut and the answers it rests on.
type answersSummary struct {
	// SelectedRatio is the count's share of the rows reviewed (Count / N) and
	// RatioInterval its 80 % interval.
	SelectedRatio float64   `json:"selected_ratio"`
	RatioInterval []float64 `json:"selected_ratio_interval"`
	Count         float64   `json:"count"`
	N             int       `json:"n"`
	// Cut is how many of the N rows the threshold flags, for Target, with the
	// precision, recall and F1 estimated there.
	CutRows   int     `json:"cut_rows"`
	Target    string  `json:"target"`
	Precision float64 `json:"estimated_precision"`
	Recall    float64 `json:"estimated_recall"`
	F1        float64 `json:"estimated_f1"`
	// Answers and Anomalies are the answers the count rests on; Labels the file and
	// LabelsSHA256 its hash, as model.json keeps them.
	Answers      int        `json:"answers"`
	Anomalies    int        `json:"anomalies"`
	Labels       string     `json:"labels"`
	LabelsSHA256 string     `json:"labels_sha256"`
	Prior        *priorJSON `json:"prior,omitempty"`
	// Note warns where no answer is an anomaly (noAnomalyNote); absent otherwise.
	Note string `json:"note,omitempty"`
}

// priorJSON is the label-free count the answers updated.
type priorJSON struct {
	Share    float64   `json:"selected_ratio"`
	Interval []float64 `json:"selected_ratio_interval"`
}

// answersOf is the summary of a calibration from the labels file at path.
func answersOf(c lib.Calibration, path, sha string) *answersSummary {
	a := &answersSummary{SelectedRatio: c.Share, RatioInterval: []float64{c.Low, c.High}, Count: c.Count, N: c.N,
		CutRows: c.Cut, Target: c.Target, Precision: c.Precision, Recall: c.Recall, F1: c.F1,
		Answers: c.Answers, Anomalies: c.Anomalies, Labels: path, LabelsSHA256: sha, Note: noAnomalyNote(c.Answers, c.Anomalies)}
	if c.PriorShare > 0 {
		a.Prior = &priorJSON{c.PriorShare, []float64{c.PriorLow, c.PriorHigh}}
	}
	return a
}

// runCut writes a copy of a saved model with a new threshold, drawn from the training
// rows' scores that the model keeps (a sketch in model.json): no row is read, no network
// trained.
func runCut(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	start := time.Now()
	fs := newFlags("cut", "--model DIR --out DIR2 --contamination P|--count K|--score-threshold S|--labels FILE", "Write the saved model in DIR into DIR2 with a new threshold, drawn from its training rows' scores (kept in model.json), without training: udocc score --model DIR2 then labels rows by it. With --labels, the threshold and the count come from the answers of a labels file that udocc review wrote.", stdout)
	var (
		model, out, labels string
		asJSON             bool
		c                  cutFlags
		precision, recall  float64
	)
	fs.StringVar(&model, "model", "", "saved model folder (the model/ folder that udocc fit wrote)")
	fs.StringVar(&out, "out", "", "the folder the new model is written to (not DIR itself)")
	fs.BoolVar(&asJSON, "json", false, "print the result as JSON")
	fs.Float64Var(&c.contamination, "contamination", 0, "flag the top share P of the training rows, a share in (0, 0.5]")
	fs.IntVar(&c.count, "count", 0, "flag the top K training rows")
	fs.Float64Var(&c.score, "score-threshold", 0, "flag the rows scoring above this score (in the units of scores.csv's score)")
	fs.StringVar(&labels, "labels", "", "count the anomalies from the answers in this labels file (udocc review's) and cut where the estimated F1 is highest")
	fs.Float64Var(&precision, "precision", 0, "with --labels: cut at the most rows whose estimated precision is at least P")
	fs.Float64Var(&recall, "recall", 0, "with --labels: cut at the fewest rows whose estimated recall is at least R")
	if err := parse(fs, args); err != nil {
		return err
	}
	if labels != "" || fs.Changed("labels") {
		if fs.Changed("contamination") || fs.Changed("count") || fs.Changed("score-threshold") {
			return usagef("give --labels or one of --contamination, --count and --score-threshold, not both")
		}
		if err := checkTarget(precision, recall); err != nil {
			return err
		}
	} else if fs.Changed("precision") || fs.Changed("recall") {
		return usagef("--precision and --recall pick the cut of --labels")
	}
	switch {
	case fs.NArg() != 0:
		return usagef("cut takes no DATA (it draws on the training rows' scores the model keeps); to re-cut on rows, use udocc score --contamination")
	case model == "" || out == "":
		return usagef("--model and --out are required")
	}
	var cut *lib.Cut
	if labels == "" {
		var err error
		if cut, err = c.cut(fs, true); err != nil {
			return err
		}
	}
	if same, _ := sameFile(model, out); same {
		return usagef("--out %s is the model's own folder: write the new model elsewhere", out)
	}
	if _, err := os.Stat(out); err == nil {
		return fmt.Errorf("--out %s exists: cut writes a new folder, never over one", out)
	}
	m, err := lib.Load(model, "cpu")
	if err != nil {
		return libError(err)
	}
	defer m.Close()
	start = time.Now() // the cut's own time, after loading the model (libtorch's load is most of a run)
	before := m.Threshold()
	var t float64
	var answers *answersSummary
	if labels != "" {
		cal, err := calibrateFromFile(ctx, m, model, labels, precision, recall)
		if err != nil {
			return err
		}
		t, answers = cal.Threshold, answersOf(cal, labels, m.CountBasis().LabelsSHA256)
	} else if t, err = m.Recut(nil, *cut); err != nil {
		return fmt.Errorf("%s: %w", model, libError(err))
	}
	if err := m.Save(out); err != nil {
		return libError(err)
	}
	s := cutSummary{Model: model, Out: out, Before: before, Threshold: t,
		Flagged: m.TrainingFlagged(), Seconds: time.Since(start).Seconds(), answersSummary: answers}
	if cut != nil {
		s.Cut = cut.String()
	} else {
		s.Cut = "answers:" + answers.Target
	}
	if asJSON {
		b, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return err
		}
		_, err = stdout.Write(append(b, '\n'))
		return err
	}
	if a := answers; a != nil {
		fmt.Fprintf(stdout, "udocc cut: %s -> %s: from %d answers (%d anomalies) in %s: %.1f anomalies of %d rows (%.2f %%, 80 %% interval %.2f %% to %.2f %%); cut (%s) at the top %d rows, threshold %.6g (was %.6g), estimated precision %.2f, recall %.2f, F1 %.2f\n",
			model, out, a.Answers, a.Anomalies, labels, a.Count, a.N, 100*a.SelectedRatio, 100*a.RatioInterval[0], 100*a.RatioInterval[1],
			a.Target, a.CutRows, t, before, a.Precision, a.Recall, a.F1)
		if a.Note != "" {
			fmt.Fprintf(stdout, "  %s\n", a.Note)
		}
		return nil
	}
	fmt.Fprintf(stdout, "udocc cut: %s -> %s: %s, threshold %.6g (was %.6g), about %d training rows above it; %.2f s, no training\n",
		model, out, s.Cut, t, before, s.Flagged, s.Seconds)
	return nil
}

// calibrateFromFile sets m's threshold and count from the answers of the labels file at
// path (udocc review's), whose table is not at hand: the answered rows' ranks and
// scores come from the file (Model.CalibrateKnown).
func calibrateFromFile(ctx context.Context, m *lib.Model, dir, path string, precision, recall float64) (lib.Calibration, error) {
	lf, err := readLabels(path, false)
	if err != nil {
		return lib.Calibration{}, err
	}
	n, answers, err := lf.ranked(ctx, m, dir)
	if err != nil {
		return lib.Calibration{}, err
	}
	c, err := m.CalibrateKnown(n, answers, lib.CalibrateOptions{Precision: precision, Recall: recall, LabelsSHA256: lf.sha256})
	if err != nil {
		return lib.Calibration{}, fmt.Errorf("%s: %w", path, libError(err))
	}
	return c, nil
}

// sameFile reports whether a and b are the same existing folder.
func sameFile(a, b string) (bool, error) {
	sa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(sa, sb), nil
}

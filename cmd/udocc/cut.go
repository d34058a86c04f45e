package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/udocc/udocc/internal/tool"
	"io"
	"os"
	"time"

	"github.com/spf13/pflag"

	lib "github.com/udocc/udocc"
)

// cutFlags are the flags that draw a threshold anew without training: score's, on the
// rows it scores, and cut's, on the training rows' scores the model keeps.
type cutFlags struct {
	contamination float64
	count         int
	rule          string
}

// addCutFlags declares the cut flags; on says on which scores they cut.
func addCutFlags(fs *pflag.FlagSet, c *cutFlags, on string) {
	fs.Float64Var(&c.contamination, "contamination", 0, "re-cut: flag the top share P of "+on+", a ratio in (0, 1), instead of the model's threshold")
	fs.IntVar(&c.count, "count", 0, "re-cut: flag the top K of "+on)
	fs.StringVar(&c.rule, "threshold", "", "re-cut: apply this count rule to the scores of "+on+" ("+orList(thresholdNames())+")")
}

// cut is the tool.Cut the flags give, nil where none is given (unless required).
func (c cutFlags) cut(fs *pflag.FlagSet, required bool) (*tool.Cut, error) {
	given := 0
	var names []string
	for _, name := range []string{"contamination", "count", "threshold"} {
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
	case fs.Changed("contamination") && !(c.contamination > 0 && c.contamination < 1):
		return nil, usagef("--contamination %g: want a ratio in (0, 1)", c.contamination)
	case fs.Changed("count") && c.count < 1:
		return nil, usagef("--count %d: want 1 or more rows", c.count)
	}
	cut := &tool.Cut{Contamination: c.contamination, Count: c.count, Rule: c.rule}
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
	Flagged int     `json:"flagged_training_rows"`
	Seconds float64 `json:"seconds"`
}

// runCut writes a copy of a saved model with a new threshold, drawn from the training
// rows' scores that the model keeps (a sketch in model.json): no row is read, no network
// trained.
func runCut(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	start := time.Now()
	fs := newFlags("cut", "--model DIR --out DIR2 --contamination P|--count K", "Write the saved model in DIR into DIR2 with a new threshold, drawn from its training rows' scores (kept in model.json), without training: udocc score --model DIR2 then labels rows by it.", stdout)
	var (
		model, out string
		asJSON     bool
		c          cutFlags
	)
	fs.StringVar(&model, "model", "", "saved model folder (the model/ folder that udocc fit wrote)")
	fs.StringVar(&out, "out", "", "the folder the new model is written to (not DIR itself)")
	fs.BoolVar(&asJSON, "json", false, "print the result as JSON")
	fs.Float64Var(&c.contamination, "contamination", 0, "flag the top share P of the training rows, a ratio in (0, 1/2]")
	fs.IntVar(&c.count, "count", 0, "flag the top K training rows")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() != 0:
		return usagef("cut takes no DATA (it draws on the training rows' scores the model keeps); to re-cut on rows, use udocc score --contamination")
	case model == "" || out == "":
		return usagef("--model and --out are required")
	}
	cut, err := c.cut(fs, true)
	if err != nil {
		return err
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
	before := m.Threshold()
	t, err := tool.Of(m).Recut(nil, *cut)
	if err != nil {
		return fmt.Errorf("%s: %w", model, libError(err))
	}
	if err := m.Save(out); err != nil {
		return libError(err)
	}
	s := cutSummary{Model: model, Out: out, Cut: cut.String(), Before: before, Threshold: t,
		Flagged: tool.Of(m).TrainingFlagged(), Seconds: time.Since(start).Seconds()}
	if asJSON {
		b, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return err
		}
		_, err = stdout.Write(append(b, '\n'))
		return err
	}
	fmt.Fprintf(stdout, "udocc cut: %s -> %s: %s, threshold %.6g (was %.6g), about %d training rows above it; %.2f s, no training\n",
		model, out, s.Cut, t, before, s.Flagged, s.Seconds)
	return nil
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

package training

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestLossDiverged checks the divergence rule on hand-made losses: a loss within
// growthLimit of its level passes; one beyond it, or one that is not finite, is
// ErrDiverged naming the stage, and ErrPretrainDiverged in pretraining only.
func TestLossDiverged(t *testing.T) {
	cases := []struct {
		stage       string
		loss, level float64
		want        string // "" for no error
	}{
		{"fine-tuning", 3, 2, ""},
		{"fine-tuning", 9999, 1, ""},
		{"fine-tuning", 2e4 + 1, 2, "times its level before training"},
		{"fine-tuning", 5.7e22, 1, "5.7e+22"},
		{"fine-tuning", math.NaN(), 1, "is NaN"},
		{"pretraining", math.Inf(1), 1, "is +Inf"},
		{"pretraining", 4.4e17, 1, "4.4e+17"},
	}
	for _, c := range cases {
		err := lossDiverged(c.stage, 3, 1, 7, "the loss", c.loss, c.level)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s loss %g at level %g: %v, want none", c.stage, c.loss, c.level, err)
		case c.want == "":
		case err == nil || !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), c.want) ||
			!strings.Contains(err.Error(), c.stage+" epoch 3, member 1 (seed 7)"):
			t.Errorf("%s loss %g at level %g: %v, want ErrDiverged naming %q", c.stage, c.loss, c.level, err, c.want)
		case errors.Is(err, ErrPretrainDiverged) != (c.stage == "pretraining"):
			t.Errorf("%s: errors.Is(err, ErrPretrainDiverged) = %v", c.stage, errors.Is(err, ErrPretrainDiverged))
		}
	}
}

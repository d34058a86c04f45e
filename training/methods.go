package training

import (
	"fmt"
	"slices"

	"github.com/udocc/udocc/dynamics"
)

// Methods are the methods udocc trains, by their CLI names: the proposed adaptive
// threshold and the paper's baselines (Section V-A).
var Methods = []string{"proposed", "oc", "sb", "otsu", "tar"}

// MethodOptions are the settings a method may take.
type MethodOptions struct {
	// Ratio is SB's ν or TAR's anomaly ratio, in (0, 1); it must be 0 for the others.
	Ratio float64
	// Rule is proposed's δ rule; nil means dynamics.DefaultRule().
	Rule dynamics.Rule
	// CurveEpochs lists the epochs whose records carry the Eq. (5) curve (proposed).
	CurveEpochs []int
	// CurveAll puts the Eq. (5) curve into every record (proposed).
	CurveAll bool
}

// UsesRatio reports whether method takes MethodOptions.Ratio.
func UsesRatio(method string) bool { return method == "sb" || method == "tar" }

// NewMember builds the member of method with seed for n rows: its selector, or its ν.
func NewMember(method string, seed uint64, n int, opt MethodOptions) (Member, error) {
	if !slices.Contains(Methods, method) {
		return Member{}, fmt.Errorf("training: unknown method %q (one of %v)", method, Methods)
	}
	if UsesRatio(method) {
		if !(opt.Ratio > 0 && opt.Ratio < 1) {
			return Member{}, fmt.Errorf("training: method %s needs a ratio in (0, 1), have %g", method, opt.Ratio)
		}
	} else if opt.Ratio != 0 {
		return Member{}, fmt.Errorf("training: method %s takes no ratio", method)
	}
	m := Member{Seed: seed, Method: method}
	switch method {
	case "sb":
		m.Nu = opt.Ratio
	case "tar":
		s, err := dynamics.NewTAR(n, opt.Ratio)
		if err != nil {
			return Member{}, err
		}
		m.Selector = s
	case "otsu":
		s, err := dynamics.NewOtsu(n)
		if err != nil {
			return Member{}, err
		}
		m.Selector = s
	case "proposed":
		s, err := dynamics.NewProposed(n, dynamics.ProposedOptions{
			Rule: opt.Rule, CurveEpochs: opt.CurveEpochs, CurveAll: opt.CurveAll,
		})
		if err != nil {
			return Member{}, err
		}
		m.Selector = s
	}
	return m, nil
}

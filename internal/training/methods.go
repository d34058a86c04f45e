package training

import (
	"fmt"

	"github.com/udocc/udocc/internal/dynamics"
)

// Methods are the paper's methods by name: the proposed adaptive threshold and the
// paper's baselines (Section V-A). AllMethods adds the default ensemble.
var Methods = []string{Proposed.Name, OC.Name, SB.Name, Otsu.Name, TAR.Name}

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

// UsesRatio reports whether the method of name takes MethodOptions.Ratio.
func UsesRatio(name string) bool {
	m, err := MethodNamed(name)
	return err == nil && m.Ratio
}

// NewMember builds the member of the method of name with seed for n rows (Method's
// NewMember).
func NewMember(name string, seed uint64, n int, opt MethodOptions) (Member, error) {
	m, err := MethodNamed(name)
	if err != nil {
		return Member{}, fmt.Errorf("training: %w", err)
	}
	return m.NewMember(seed, n, opt)
}

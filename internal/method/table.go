package method

import (
	"fmt"
	"strings"

	"github.com/udocc/udocc/internal/dynamics"
	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/training"
)

// Method is one of udocc's methods: the paper's (Section V-A) and the default
// ensemble. It supplies what a member of the method trains with: its selector (how it
// picks the next epoch's training rows and labels rows at the end), its objective
// (one-class, or SB's soft boundary, whose radius moves after a warm-up) and the
// settings it takes. The CLI, the library and the bench ask the Method instead of
// comparing its name.
type Method struct {
	// Name is the method's name, as flags, model.json and the bench's lines spell it.
	Name string
	// Ratio is set when the method needs MethodOptions.Ratio in (0, 1): SB's ν or TAR's
	// anomaly ratio. The other methods take none.
	Ratio bool
	// Rule is set when the method takes a rule by name: proposed's δ rule (package
	// dynamics), the ensemble's threshold rule (package threshold).
	Rule bool
	// Labels is set when the method labels rows; OC ranks them without a threshold.
	Labels bool
	// Ensemble is set for the default method: OC members whose distances and pretrained
	// autoencoders' reconstruction errors models.Ensemble combines and a threshold rule
	// cuts.
	Ensemble bool
	// Soft is set for SB's soft-boundary objective, whose radius R is updated from the
	// epoch after training.Config.WarmUp on; the others minimise the one-class objective.
	Soft bool
	// selector makes a member's selector for n rows; nil for OC and SB, which train on
	// every row (built in, see Member).
	selector func(n int, opt MethodOptions) (dynamics.Selector, error)
}

// The methods.
var (
	// Proposed is the paper's adaptive threshold: ranking-based training dynamics pick
	// the pseudo-normal rows of every epoch and, at the end, δ̄.
	Proposed = Method{Name: "proposed", Rule: true, Labels: true, selector: func(n int, o MethodOptions) (dynamics.Selector, error) {
		return dynamics.NewProposed(n, dynamics.ProposedOptions{Rule: o.Rule, CurveEpochs: o.CurveEpochs, CurveAll: o.CurveAll})
	}}
	// OC is one-class Deep SVDD on every row; it ranks rows but labels none.
	OC = Method{Name: "oc"}
	// SB is soft-boundary Deep SVDD with ν = the ratio.
	SB = Method{Name: "sb", Ratio: true, Labels: true, Soft: true}
	// Otsu trains on the rows below Otsu's threshold of the scores.
	Otsu = Method{Name: "otsu", Labels: true, selector: func(n int, _ MethodOptions) (dynamics.Selector, error) {
		return dynamics.NewOtsu(n)
	}}
	// TAR trains on the rows below the given anomaly ratio's quantile.
	TAR = Method{Name: "tar", Ratio: true, Labels: true, selector: func(n int, o MethodOptions) (dynamics.Selector, error) {
		return dynamics.NewTAR(n, o.Ratio)
	}}
	// Ensemble is the default of `udocc fit` (EnsembleConfig): a seed ensemble of OC
	// members scored with their autoencoders and cut by a threshold rule.
	Ensemble = Method{Name: EnsembleMethod, Rule: true, Labels: true, Ensemble: true}
)

// AllMethods are every method, the default first, then the paper's in Methods' order.
var AllMethods = []Method{Ensemble, Proposed, OC, SB, Otsu, TAR}

// MethodNamed returns the method of name, or an error listing the names.
func MethodNamed(name string) (Method, error) {
	var names []string
	for _, m := range AllMethods {
		if m.Name == name {
			return m, nil
		}
		names = append(names, m.Name)
	}
	return Method{}, fmt.Errorf("unknown method %q: want one of %s", name, strings.Join(names, ", "))
}

// MemberMethod is the method a member of m trains with: OC for the ensemble, m itself
// otherwise.
func (m Method) MemberMethod() Method {
	if m.Ensemble {
		return OC
	}
	return m
}

// NewMember builds m's member with seed for n rows: its selector, or its ν.
func (m Method) NewMember(seed uint64, n int, opt MethodOptions) (training.Member, error) {
	mm := m.MemberMethod()
	if mm.Ratio {
		if !(opt.Ratio > 0 && opt.Ratio < 1) {
			return training.Member{}, fmt.Errorf("method: method %s needs a ratio in (0, 1), have %g", m.Name, opt.Ratio)
		}
	} else if opt.Ratio != 0 {
		return training.Member{}, fmt.Errorf("method: method %s takes no ratio", m.Name)
	}
	mem := training.Member{Seed: seed, Soft: mm.Soft}
	if mm.Soft {
		mem.Nu = opt.Ratio
	}
	if mm.selector != nil {
		s, err := mm.selector(n, opt)
		if err != nil {
			return training.Member{}, err
		}
		mem.Selector = s
	}
	return mem, nil
}

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
func NewMember(name string, seed uint64, n int, opt MethodOptions) (training.Member, error) {
	m, err := MethodNamed(name)
	if err != nil {
		return training.Member{}, fmt.Errorf("method: %w", err)
	}
	return m.NewMember(seed, n, opt)
}

// CheckMeta checks a saved model's method, which models.Meta does not know: it is one
// of udocc's, the ensemble method has its Ensemble and Threshold fields and the paper's
// methods no Ensemble, and each of their members has a threshold exactly when its method
// labels rows (all but OC).
func CheckMeta(m *models.Meta) error {
	meth, err := MethodNamed(m.Method)
	if err != nil {
		return err
	}
	if meth.Ensemble {
		if m.Ensemble == nil {
			return fmt.Errorf("method %s needs the ensemble field", m.Method)
		}
		if m.Threshold == nil {
			return fmt.Errorf("method %s needs the threshold field", m.Method)
		}
		return nil // Meta.Validate checked the rest
	}
	if m.Ensemble != nil {
		return fmt.Errorf("method %s has no ensemble field", m.Method)
	}
	for i, mem := range m.Members {
		if meth.Labels != (mem.Threshold != nil) {
			want := "a number"
			if !meth.Labels {
				want = "null"
			}
			return fmt.Errorf("members[%d].threshold: method %s wants %s", i, m.Method, want)
		}
		if mem.Scale == nil && len(m.Members) > 1 {
			// Without it the combination would scale by the rows being scored.
			return fmt.Errorf("members[%d].scale is missing: a model of several members combines their scores by it (a model saved before udocc kept it: fit again)", i)
		}
	}
	return nil
}

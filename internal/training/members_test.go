package training

import (
	"fmt"

	"github.com/udocc/udocc/internal/dynamics"
	"github.com/udocc/udocc/internal/stats"
)

// The tests build members as package method builds its methods' (training knows no
// method names): Methods are the paper's, MethodOptions their settings.
var Methods = []string{"proposed", "oc", "sb", "otsu", "tar"}

type MethodOptions struct {
	Ratio       float64
	Rule        dynamics.Rule
	CurveEpochs []int
	CurveAll    bool
}

// UsesRatio says whether the method of name needs MethodOptions.Ratio.
func UsesRatio(name string) bool { return name == "sb" || name == "tar" }

// NewMember is the member of the method of name with seed for n rows.
func NewMember(name string, seed uint64, n int, o MethodOptions) (Member, error) {
	m := Member{Seed: seed}
	var err error
	switch name {
	case "proposed":
		m.Selector, err = dynamics.NewProposed(n, dynamics.ProposedOptions{Rule: o.Rule, CurveEpochs: o.CurveEpochs, CurveAll: o.CurveAll})
	case "oc", "ensemble":
	case "sb":
		m.Soft, m.Nu = true, o.Ratio
	case "otsu":
		m.Selector, err = dynamics.NewOtsu(n)
	case "tar":
		m.Selector, err = dynamics.NewTAR(n, o.Ratio)
	default:
		err = fmt.Errorf("no method %q", name)
	}
	return m, err
}

// name is the method of a member NewMember made.
func (m Member) name() string {
	switch {
	case m.Soft:
		return "sb"
	case m.Selector != nil:
		return m.Selector.Name()
	}
	return "oc"
}

// EnsembleSize and EnsembleSeeds are the default ensemble's (package method's): five
// members of seeds s, s+1, ….
const EnsembleSize = 5

func EnsembleSeeds(s uint64, size int) []uint64 {
	out := make([]uint64, size)
	for i := range out {
		out[i] = s + uint64(i)
	}
	return out
}

// screenScore is a screening score for the tests: each row's mean over the members of
// its distance and reconstruction error, each over its member's median (package method
// gives the ensemble's robust combination).
func screenScore(dist, rec [][]float32) ([]float64, error) {
	out := make([]float64, len(dist[0]))
	for _, kind := range [][][]float32{dist, rec} {
		for _, s := range kind {
			med := stats.Median(stats.Widen(nil, s))
			for i, v := range s {
				out[i] += float64(v) / (med + 1e-12) / float64(len(kind))
			}
		}
	}
	return out, nil
}

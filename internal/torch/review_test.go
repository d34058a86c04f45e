package torch

import (
	"slices"
	"testing"
)

// TestRefusedPlanLeavesAdam checks that a plan refused for a bad row index moves no
// member's Adam step counter: a group that was handed one and then trains an epoch ends
// with the same weights, bit for bit, as a group that only trained the epoch.
func TestRefusedPlanLeavesAdam(t *testing.T) {
	const n, d = 200, 5
	x := synth(n, d, 5)
	weights := func(refuseFirst bool) []float32 {
		g, err := NewGroup([]int{d, 8, 4}, 1, true, "cpu", []uint64{9})
		must(t, err)
		defer g.Close()
		must(t, g.SetData(x, n, d))
		must(t, g.ResetAdam(Autoencoder, []float64{1e-2}, []float64{0}))
		if refuseFirst {
			bad := fullPlan(1, n, 64)
			bad.Rows[len(bad.Rows)/2] = int32(n + 5)
			if _, err := g.PretrainEpoch(bad); err == nil {
				t.Fatal("a plan with a row index beyond n was accepted")
			}
		}
		_, err = g.PretrainEpoch(fullPlan(1, n, 64))
		must(t, err)
		w, err := g.Param(0, "enc.0.weight")
		must(t, err)
		return w
	}
	if a, b := weights(false), weights(true); !slices.Equal(a, b) {
		t.Error("a refused plan changed what the next epoch does (Adam's step counters moved)")
	}
}

// TestSetRadiusCopies checks that SetRadius keeps its own copy of the radii, not the
// caller's slice.
func TestSetRadiusCopies(t *testing.T) {
	g, err := NewGroup([]int{3, 4, 2}, 2, false, "cpu", []uint64{1, 2})
	must(t, err)
	defer g.Close()
	r := []float32{0.5, 0.25}
	must(t, g.SetRadius(r))
	r[0], r[1] = 9, 9
	got, err := g.Radius()
	must(t, err)
	if got[0] != 0.5 || got[1] != 0.25 {
		t.Errorf("radii %v after the caller's slice changed, want [0.5 0.25]", got)
	}
}

// TestDropData checks that a group without its data (and a group derived from it, which
// shares it) refuses to score it, scores other rows as before, and that SetDataScaled
// standardises the rows as scale.Scaler.Standardise does, to the bit.
func TestDropData(t *testing.T) {
	const n, d = 50, 3
	x := synth(n, d, 3)
	mean, scale := []float64{0.5, -1, 2}, []float64{2, 0.25, 3}
	std := make([]float32, len(x))
	for k, v := range x {
		std[k] = float32((float64(v) - mean[k%d]) / scale[k%d])
	}
	g, err := NewGroup([]int{d, 4, 2}, 1, false, "cpu", []uint64{1})
	must(t, err)
	defer g.Close()
	must(t, g.SetDataScaled(x, n, d, mean, scale))
	must(t, g.InitCenter(0.1))
	dist, err := g.Distances()
	must(t, err)
	of, err := g.DistancesOf(std, n, d)
	must(t, err)
	if !slices.Equal(dist, of) {
		t.Error("the rows standardised on their way differ from the same rows standardised before")
	}
	ft, err := g.Derive([]int{0})
	must(t, err)
	defer ft.Close()
	must(t, g.DropData())
	must(t, ft.DropData())
	for name, grp := range map[string]*Group{"source": g, "derived": ft} {
		if _, err := grp.Distances(); err == nil {
			t.Errorf("%s: scored its data after DropData", name)
		}
	}
	after, err := g.DistancesOf(std, n, d)
	must(t, err)
	if !slices.Equal(after, of) {
		t.Error("DropData changed how the network scores other rows")
	}
}

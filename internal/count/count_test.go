package count

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestLearnRecoversALinearCount: samples whose ln(share) is a known linear function of
// one feature, the other feature noise: the learned model weighs the informative feature
// and its held-out estimates land near the truth.
// TestEstimateClipped: a model whose regression says 90 % flags at most MaxShare, and
// one that says 1e-6 at least MinShare.
func TestEstimateClipped(t *testing.T) {
	m := &Model{Features: []string{"kmeans_final"}, Mean: []float64{0}, Scale: []float64{1}, Coef: []float64{1},
		MinShare: 0.001, MaxShare: 0.3, Reliability: "agree_members", Bands: []Band{{Upto: 1, Low: -1, High: 1}}}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if e := m.estimate([]float64{math.Log(0.9)}, 0); e.Share != 0.3 {
		t.Errorf("share %g, want 0.3", e.Share)
	}
	if e := m.estimate([]float64{math.Log(1e-6)}, 0); math.Abs(e.Share-0.001) > 1e-12 {
		t.Errorf("share %g, want 0.001", e.Share)
	}
}

// TestValidateRejects: each broken model file names what is wrong.
func TestValidateRejects(t *testing.T) {
	good := func() *Model {
		return &Model{Features: []string{"kmeans_final"}, Mean: []float64{0}, Scale: []float64{1}, Coef: []float64{1},
			MinShare: 0.001, MaxShare: 0.3, Reliability: "agree_members", Bands: []Band{{Upto: 1, Low: -1, High: 1}}}
	}
	for name, broken := range map[string]func(m *Model){
		"unknown feature": func(m *Model) { m.Features[0] = "nope" },
		"zero scale":      func(m *Model) { m.Scale[0] = 0 },
		"short means":     func(m *Model) { m.Mean = nil },
		"no bands":        func(m *Model) { m.Bands = nil },
		"bad shares":      func(m *Model) { m.MinShare = 0.5 },
		"band low > high": func(m *Model) { m.Bands[0].Low = 2 },
		"bad reliability": func(m *Model) { m.Reliability = "x" },
	} {
		m := good()
		broken(m)
		if err := m.Validate(); !errors.Is(err, ErrModel) {
			t.Errorf("%s: err %v, want ErrModel", name, err)
		}
	}
}

// TestDefaultLoads: the shipped model is whole and names only known features.
func TestDefaultLoads(t *testing.T) {
	m, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if m.Version < 1 {
		t.Errorf("shipped model version %d", m.Version)
	}
}

// TestComputeFeatures: on scores with a planted upper cluster of 5 %, two-means on the
// final and the screening scores flags it, and the agreements of identical members are 1.
func TestComputeFeatures(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 2000
	s := make([]float64, n)
	for i := range s {
		s[i] = rng.NormFloat64()
		if i < n/20 {
			s[i] += 20
		}
	}
	d := make([]float32, n)
	for i, v := range s {
		d[i] = float32(v)
	}
	members, distRec := Agreements([][]float32{d, d, d}, [][]float32{d, d, d})
	if members != 1 || math.Abs(distRec-1) > 1e-12 {
		t.Errorf("agreements %g, %g of identical members, want 1, 1", members, distRec)
	}
	f, err := Compute(&Inputs{Final: s, Screen: s, MemberAgreement: members, DistRecAgreement: distRec}, []string{"kmeans_final", "kmeans_screen", "agree_screen_final"})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(f[0]-math.Log(0.05)) > 1e-9 || math.Abs(f[1]-math.Log(0.05)) > 1e-9 {
		t.Errorf("ln shares %v, want ln 0.05", f[:2])
	}
	if f[2] != 1 {
		t.Errorf("overlap of a ranking with itself %g, want 1", f[2])
	}
	if _, err := Compute(&Inputs{Final: s}, []string{"nope"}); err == nil {
		t.Error("an unknown feature gave no error")
	}
}

// TestReads: a model reads the screening's scores or the agreements exactly when one of
// the features it uses does, so a fit keeps or computes them only then.
func TestReads(t *testing.T) {
	bands := []Band{{Upto: 0, Low: -1, High: 1}, {Upto: 1, Low: -1, High: 1}}
	gated := &Model{Features: Names(), Reliability: "agree_members", Bands: bands,
		Gate: &Gate{Use: "kmeans_final", On: "gap_final"}}
	if gated.Reads(Screen) || gated.Reads(Agreement) {
		t.Error("a gate on final-score features reads the screening's scores or the agreements")
	}
	gated.Gate.On = "gap_screen"
	if !gated.Reads(Screen) || gated.Reads(Agreement) {
		t.Error("a gate on gap_screen: want the screening's scores read, the agreements not")
	}
	ridge := &Model{Features: []string{"kmeans_final"}, Reliability: "agree_members"}
	if ridge.Reads(Screen) || !ridge.Reads(Agreement) {
		t.Error("a regression with an agreement as reliability: want the agreements read, the screening's scores not")
	}
}

// TestGatedIntervalsFromOriginals: original tables whose shares lie near 5 % and copies
// spread over 0.2-40 %, no feature informative: the gated count's prior is learned on
// every sample either way, and with Originals its intervals come from the original
// tables' residuals alone — narrower, and holding about 80 % of the originals.
// TestLearnRuleChoosesTheRuleThatCounts: of three rules' shares, one tracks the true
// share (iqr_final), one flags far too many and one is noise: the rule count picks the
// one that counts, as it is (coefficient 1, no intercept), and its held-out estimates are
// that rule's share, clipped, inside their intervals. An Estimate from a fit's inputs
// computes only that rule and the reliability feature.
// TestGateChosenHeldOut: the gate is chosen by its leave-one-group-out error among
// gateSpecs. Where the MAD rule's share is the true share on the fits whose screening and
// final fit disagree (agree_screen_final below its median) and noise elsewhere, the gate
// counts by MAD below a cut near that median; where the rule is noise everywhere, there is
// no gate and every fit gets the prior. A case's interval is reliable only when it comes
// from MinBandGroups groups or more.
// TestHeldoutOnItself: judged on the samples it learns from, HeldoutOn gives what the
// held-out estimates of each kind give; an unknown kind is an error.

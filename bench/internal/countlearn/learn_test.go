package countlearn

import (
	"fmt"
	"github.com/udocc/udocc/internal/count"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestLearnRecoversALinearCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var samples []Sample
	for g := 0; g < 8; g++ {
		for i := 0; i < 20; i++ {
			x := rng.Float64()*4 - 6 // ln share in [-6, -2]
			truth := math.Exp(x)
			samples = append(samples, Sample{
				Group: string(rune('a' + g)), Features: []float64{x + 0.05*rng.NormFloat64(), rng.NormFloat64()},
				Reliability: rng.Float64(), TrueShare: truth,
			})
		}
	}
	o := LearnOptions{Features: []string{"kmeans_final", "tail_final"}, Reliability: "agree_members", MinShare: 0.001, MaxShare: 0.3}
	m, err := Learn(samples, o)
	if err != nil {
		t.Fatal(err)
	}
	if !(math.Abs(m.Coef[0]) > 10*math.Abs(m.Coef[1])) {
		t.Errorf("coefficients %v: the informative feature should dominate", m.Coef)
	}
	held, err := Heldout(samples, o)
	if err != nil {
		t.Fatal(err)
	}
	var e float64
	for i, s := range samples {
		e += math.Abs(math.Log(held[i].Share / s.TrueShare))
	}
	if e /= float64(len(samples)); e > 0.2 {
		t.Errorf("held-out mean |ln| %.3f, want below 0.2", e)
	}
	for i, h := range held {
		if !(h.Low <= h.Share && h.Share <= h.High) {
			t.Fatalf("sample %d: share %g outside its interval [%g, %g]", i, h.Share, h.Low, h.High)
		}
	}
}

func TestGatedIntervalsFromOriginals(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var samples []Sample
	for g := 0; g < 10; g++ {
		for i := 0; i < 30; i++ {
			copy := i%3 != 0
			ln := math.Log(0.05) + 0.5*rng.NormFloat64()
			if copy {
				ln = math.Log(0.002) + rng.Float64()*math.Log(0.4/0.002)
			}
			f := rng.NormFloat64()
			samples = append(samples, Sample{Group: string(rune('a' + g)), Features: []float64{math.Exp(ln + 3*rng.NormFloat64()), f},
				TrueShare: math.Exp(ln), Copy: copy})
		}
	}
	o := LearnOptions{Features: []string{"kmeans_final", "gap_final"}, Reliability: "agree_members", MinShare: 0.001, MaxShare: 0.3}
	all, err := LearnGated(samples, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Originals = true
	orig, err := LearnGated(samples, o)
	if err != nil {
		t.Fatal(err)
	}
	if all.Intercept != orig.Intercept {
		t.Errorf("prior %g with Originals, %g without: want the same", orig.Intercept, all.Intercept)
	}
	wAll, wOrig := all.Bands[0].High-all.Bands[0].Low, orig.Bands[0].High-orig.Bands[0].Low
	if !(wOrig < 0.6*wAll) {
		t.Errorf("prior's interval %.2f wide in ln from the originals, %.2f from every sample: want much narrower", wOrig, wAll)
	}
	held, err := HeldoutGated(samples, o)
	if err != nil {
		t.Fatal(err)
	}
	in, n := 0, 0
	for i, s := range samples {
		if !s.Copy {
			n++
			if held[i].Low <= s.TrueShare && s.TrueShare <= held[i].High {
				in++
			}
		}
	}
	if c := float64(in) / float64(n); c < 0.65 || c > 0.92 {
		t.Errorf("held-out coverage of the originals %.2f, want about 0.8", c)
	}
}

func TestLearnRuleChoosesTheRuleThatCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	names := []string{"kmeans_final", "mad_final", "iqr_final", "agree_members"}
	var samples []Sample
	for g := 0; g < 6; g++ {
		for i := 0; i < 15; i++ {
			x := rng.Float64()*4 - 6
			f := []float64{x + 2, rng.Float64()*5 - 7, x + 0.1*rng.NormFloat64(), rng.Float64()}
			samples = append(samples, Sample{Group: string(rune('a' + g)), Features: f, Reliability: f[3], TrueShare: math.Exp(x)})
		}
	}
	o := LearnOptions{Features: names, Reliability: "agree_members", MinShare: 0.001, MaxShare: 0.3}
	m, err := LearnRule(samples, o)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0, 0, 1, 0}; !slices.Equal(m.Coef, want) || m.Intercept != 0 {
		t.Fatalf("coefficients %v, intercept %g: want %v and 0 (iqr_final as it is)", m.Coef, m.Intercept, want)
	}
	held, err := HeldoutRule(samples, o)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range samples {
		want := math.Exp(m.Clip(s.Features[2]))
		if math.Abs(held[i].Share-want) > 1e-12*want {
			t.Fatalf("sample %d: held-out share %g, want iqr_final's %g", i, held[i].Share, want)
		}
		if !(held[i].Low <= held[i].Share && held[i].Share <= held[i].High) {
			t.Fatalf("sample %d: share %g outside [%g, %g]", i, held[i].Share, held[i].Low, held[i].High)
		}
	}
}

func TestGateChosenHeldOut(t *testing.T) {
	names := []string{"mad_final", "iqr_final", "agree_screen_final", "agree_members"}
	build := func(informative bool, groups int) []Sample {
		rng := rand.New(rand.NewPCG(5, 6))
		var out []Sample
		for g := 0; g < groups; g++ {
			for i := 0; i < 20; i++ {
				ln := math.Log(0.002) + rng.Float64()*math.Log(0.3/0.002)
				agree := rng.Float64()
				mad := math.Log(0.002) + rng.Float64()*math.Log(0.3/0.002)
				if informative && agree < 0.5 {
					mad = ln + 0.05*rng.NormFloat64()
				}
				out = append(out, Sample{Group: fmt.Sprintf("g%02d", g), TrueShare: math.Exp(ln),
					Features: []float64{mad, rng.NormFloat64() - 3, agree, rng.Float64()}})
			}
		}
		return out
	}
	o := LearnOptions{Features: names, Reliability: "agree_members", MinShare: 0.001, MaxShare: 0.3}
	m, err := LearnGated(build(true, 12), o)
	if err != nil {
		t.Fatal(err)
	}
	if m.Gate == nil || m.Gate.Use != "mad_final" || m.Gate.On != "agree_screen_final" || m.Gate.Above ||
		m.Gate.Upto < 0.2 || m.Gate.Upto > 0.8 {
		t.Fatalf("gate %+v, want mad_final where agree_screen_final ≤ about 0.5", m.Gate)
	}
	if b := m.Bands[1]; !b.Reliable || math.Exp(b.High-b.Low) > 2 {
		t.Errorf("the rule's band %+v from 12 groups: want narrow and reliable", b)
	}
	few, err := LearnGated(build(true, 6), o)
	if err != nil {
		t.Fatal(err)
	}
	if few.Gate == nil || few.Bands[1].Reliable {
		t.Errorf("from 6 groups: gate %+v, rule band %+v; want a gate whose band is not reliable (fewer than %d groups)",
			few.Gate, few.Bands[1], MinBandGroups)
	}
	none, err := LearnGated(build(false, 12), o)
	if err != nil {
		t.Fatal(err)
	}
	if none.Gate != nil {
		t.Errorf("rules of noise: gate %+v, want none", none.Gate)
	}
	held, err := HeldoutGated(build(true, 12), o)
	if err != nil {
		t.Fatal(err)
	}
	s := build(true, 12)
	good := 0
	for i := range s {
		if s[i].Features[2] < 0.4 && math.Abs(math.Log(held[i].Share/s[i].TrueShare)) < 0.3 {
			good++
		}
	}
	if good < 12*20*3/10 {
		t.Errorf("held out, %d fits of the informative case counted within ×1.35, want most of about %d", good, 12*20*4/10)
	}
}

func TestHeldoutOnItself(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var samples []Sample
	for g := 0; g < 8; g++ {
		for i := 0; i < 15; i++ {
			ln := math.Log(0.002) + rng.Float64()*math.Log(0.3/0.002)
			f := []float64{ln + 0.3*rng.NormFloat64(), rng.Float64(), rng.Float64()}
			samples = append(samples, Sample{Group: fmt.Sprintf("g%d", g), Features: f, Reliability: f[2], TrueShare: math.Exp(ln), Copy: i%2 == 1})
		}
	}
	o := LearnOptions{Features: []string{"mad_final", "agree_screen_final", "agree_members"}, Reliability: "agree_members", Originals: true}
	for _, c := range []struct {
		kind string
		held func([]Sample, LearnOptions) ([]count.Estimate, error)
		o    LearnOptions
	}{{"gated", HeldoutGated, o}, {"ridge", Heldout, o.ChooseReliability()}, {"rule", HeldoutRule, o.ChooseReliability()}} {
		want, err := c.held(samples, c.o)
		if err != nil {
			t.Fatal(err)
		}
		got, err := HeldoutOn(c.kind, samples, samples, o)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: HeldoutOn on its own samples differs from its held-out estimates", c.kind)
		}
	}
	if _, err := HeldoutOn("forest", samples, samples, o); err == nil {
		t.Error("an unknown kind: no error")
	}
}

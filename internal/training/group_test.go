package training

import (
	"math"
	"testing"
)

// TestGroupEquivalence trains K = 3 members in one group and each member alone with
// the same seed, for every method, and compares their final scores. The members differ
// in method and seed, so their training sets and minibatch counts differ and each sits
// out steps the others take.
func TestGroupEquivalence(t *testing.T) {
	const n, d = 300, 6
	x, _ := blobs(n, d, 0.1, 9)
	cfg := quickConfig()
	for _, method := range Methods {
		t.Run(method, func(t *testing.T) {
			opt := MethodOptions{}
			if UsesRatio(method) {
				opt.Ratio = 0.1
			}
			others := []string{"oc", "tar"}
			var members []Member
			for i, m := range []string{method, others[0], others[1]} {
				o := MethodOptions{}
				if UsesRatio(m) {
					o.Ratio = 0.2
				}
				if i == 0 {
					o = opt
				}
				mem, err := NewMember(m, uint64(10+i), n, o)
				if err != nil {
					t.Fatal(err)
				}
				members = append(members, mem)
			}
			group, err := FitGroup(x, n, d, cfg, members, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer group.Close()
			for k := range members {
				alone, err := NewMember(members[k].name(), members[k].Seed, n, ratioOf(members[k], k, opt))
				if err != nil {
					t.Fatal(err)
				}
				run, err := Fit(x, n, d, cfg, alone, nil)
				if err != nil {
					t.Fatal(err)
				}
				got, want := group.Results[k].Scores, run.Results[0].Scores
				worst := 0.0
				for i := range want {
					worst = math.Max(worst, math.Abs(got[i]-want[i])/math.Max(1e-3, math.Abs(want[i])))
				}
				run.Close()
				t.Logf("member %d (%s): largest relative score difference %.2g", k, members[k].name(), worst)
				if worst > groupTolerance {
					t.Errorf("member %d (%s): scores differ from training alone by %.3g (relative), tolerance %g", k, members[k].name(), worst, groupTolerance)
				}
			}
		})
	}
}

// groupTolerance bounds the relative difference of a member's scores in a group and
// alone: the same arithmetic, summed over padded minibatches of another width and
// normalised by the masked rather than the fused BatchNorm, differs in float32 rounding.
const groupTolerance = 1e-4

func ratioOf(m Member, k int, first MethodOptions) MethodOptions {
	if k == 0 {
		return first
	}
	if UsesRatio(m.name()) {
		return MethodOptions{Ratio: 0.2}
	}
	return MethodOptions{}
}

package method

import (
	"strings"
	"testing"

	"github.com/udocc/udocc/internal/models"
)

// TestCheckMeta checks that a saved model's method and its fields agree.
func TestCheckMeta(t *testing.T) {
	one := 1.0
	cases := []struct {
		name string
		meta models.Meta
		want string // "" = valid
	}{
		{"ensemble", models.Meta{Method: EnsembleMethod, Ensemble: &models.Ensemble{}, Threshold: &one}, ""},
		{"ensemble without its combination", models.Meta{Method: EnsembleMethod, Threshold: &one}, "needs the ensemble field"},
		{"ensemble without its threshold", models.Meta{Method: EnsembleMethod, Ensemble: &models.Ensemble{}}, "needs the threshold field"},
		{"an unknown method", models.Meta{Method: "svm"}, `method "svm"`},
		{"proposed with a combination", models.Meta{Method: "proposed", Ensemble: &models.Ensemble{}}, "has no ensemble field"},
		{"proposed member without threshold", models.Meta{Method: "proposed", Members: []models.Member{{}}}, "members[0].threshold: method proposed wants a number"},
		{"oc member with a threshold", models.Meta{Method: "oc", Members: []models.Member{{Threshold: &one}}}, "wants null"},
		{"oc", models.Meta{Method: "oc", Members: []models.Member{{}}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckMeta(&c.meta)
			if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
				t.Errorf("CheckMeta: %v, want %q", err, c.want)
			}
		})
	}
}

// TestCheckMetaScale: a paper-method model of several members without the scales its
// combination divides by is refused, naming the member's field; one member needs none.
func TestCheckMetaScale(t *testing.T) {
	one := 1.0
	m := &models.Meta{Method: "oc", Members: []models.Member{{Seed: 0, Scale: &one}, {Seed: 1}}}
	if err := CheckMeta(m); err == nil || !strings.Contains(err.Error(), "members[1].scale") {
		t.Errorf("a member without its scale: %v, want an error naming members[1].scale", err)
	}
	m.Members = m.Members[1:]
	if err := CheckMeta(m); err != nil {
		t.Errorf("one member without a scale: %v", err)
	}
}

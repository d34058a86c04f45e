package training

import (
	"fmt"

	"github.com/udocc/udocc/internal/models"
)

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

package models

import (
	"slices"
	"testing"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/scale"
)

// TestNamesRoundTrip writes and reads model.json with Latin-1 column names (features,
// the id column and a dropped column): they come back byte for byte; with UTF-8 names
// alone model.json has no name_bytes.
func TestNamesRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name     string
		features []string
		sel      *data.Selection
		raw      bool // name_bytes expected
	}{
		{"utf-8", []string{"a", "café"}, &data.Selection{ID: "id", Drop: []string{"x"}}, false},
		{"latin-1 features", []string{"a", "caf\xe9"}, nil, true},
		{"latin-1 selection", []string{"a", "b"}, &data.Selection{ID: "id\xe9", Drop: []string{"dr\xf6p"}}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			m := &Meta{Format: Format, Method: "oc", Sizes: []int{2, 4}, Features: slices.Clone(c.features), Selection: c.sel,
				Scaler:  scale.Scaler{Mean: []float64{0, 0}, Scale: []float64{1, 1}},
				Members: []Member{{Seed: 1, Network: "member-1.pt"}}}
			if err := WriteMeta(dir, m); err != nil {
				t.Fatal(err)
			}
			got, err := ReadMeta(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Features, c.features) {
				t.Errorf("features %q, want %q", got.Features, c.features)
			}
			if c.sel != nil && (got.Selection.ID != c.sel.ID || !slices.Equal(got.Selection.Drop, c.sel.Drop)) {
				t.Errorf("selection %+v, want %+v", got.Selection, c.sel)
			}
			if (got.NameBytes != nil) != c.raw {
				t.Errorf("name_bytes %+v, want it only for names that are not UTF-8", got.NameBytes)
			}
		})
	}
}

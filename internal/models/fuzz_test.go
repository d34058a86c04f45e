package models

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/udocc/udocc/internal/scale"
)

// FuzzReadMeta feeds ReadMeta any model.json: it returns a Meta or an error, never
// panics, and every error but a file system's is ErrFormat; a Meta it returns passes
// Validate and CheckFiles answers for it without panicking (the network files are not
// there, so it errs).
func FuzzReadMeta(f *testing.F) {
	thr := 0.5
	good := &Meta{Format: Format, Method: "proposed", Sizes: []int{2, 4}, Features: []string{"a", "b"},
		Scaler:  scale.Scaler{Mean: []float64{1, 2}, Scale: []float64{1, 1}},
		Members: []Member{{Seed: 3, Network: "member-3.pt", Threshold: &thr}},
		Files:   []File{{Name: "member-3.pt", Role: RoleEncoder, Member: 0, Seed: 3, Method: "proposed", SHA256: "00", Bytes: 9}}}
	b, err := json.Marshal(good)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"format": 2, "method": "oc", "sizes": [2, 4], "members": [{"network": "a.pt"}], "scaler": {"mean": [0, 0], "scale": [1, 0]}}`))
	f.Add([]byte(`{"format": 2, "method": "ensemble", "sizes": [2, 4], "members": [{"network": "a.pt", "autoencoder": "b.pt"}], "scaler": {"mean": [0, 0], "scale": [1, 1]}, "ensemble": {"distance_weight": 0.5}, "threshold": 1}`))
	f.Add([]byte(`{"format": 2, "sizes": [2,`))
	f.Fuzz(func(t *testing.T, body []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, MetaFile), body, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := ReadMeta(dir)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v is not ErrFormat", err)
			}
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("ReadMeta returned a Meta that Validate refuses: %v", err)
		}
		_ = m.CheckFiles(dir)
		_ = m.Thresholds()
	})
}

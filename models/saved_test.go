package models

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/udocc/udocc/data"
)

func TestMetaRoundTrip(t *testing.T) {
	dir := t.TempDir()
	thr := 0.5
	m := &Meta{Format: Format, Method: "proposed", Sizes: []int{2, 4}, Features: []string{"a", "b"},
		Scaler:  data.Scaler{Mean: []float64{1, 2}, Scale: []float64{1, 1}},
		Members: []Member{{Seed: 3, Network: "member-3.pt", Threshold: &thr}}}
	if err := WriteMeta(dir, m); err != nil {
		t.Fatal(err)
	}
	got, err := ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !got.HasThreshold() || got.Thresholds()[0] != 0.5 || got.Members[0].Seed != 3 {
		t.Errorf("read back %+v", got)
	}
}

func TestMetaErrors(t *testing.T) {
	cases := map[string]string{
		"other format": `{"format": 99, "sizes": [2, 4], "members": [{"network": "a.pt"}], "scaler": {"mean": [0, 0], "scale": [1, 1]}}`,
		"corrupt":      `{"format": 1, "sizes": [2,`,
		"no members":   `{"format": 1, "sizes": [2, 4], "members": [], "scaler": {"mean": [0, 0], "scale": [1, 1]}}`,
		"path escape":  `{"format": 1, "sizes": [2, 4], "members": [{"network": "../x.pt"}], "scaler": {"mean": [0, 0], "scale": [1, 1]}}`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, MetaFile), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := ReadMeta(dir); !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v, want ErrFormat", err)
			}
		})
	}
}

package models

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/udocc/udocc/internal/project"
	"github.com/udocc/udocc/internal/scale"
)

func TestMetaRoundTrip(t *testing.T) {
	dir := t.TempDir()
	thr := 0.5
	m := &Meta{Format: Format, Method: "proposed", Sizes: []int{2, 4}, Features: []string{"a", "b"},
		Scaler:  scale.Scaler{Mean: []float64{1, 2}, Scale: []float64{1, 1}},
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
	const sc = `"scaler": {"mean": [0, 0], "scale": [1, 1]}`
	cases := map[string]struct{ body, field string }{
		"other format":       {`{"format": 99, "method": "oc", "sizes": [2, 4], "members": [{"network": "a.pt"}], ` + sc + `}`, "format"},
		"corrupt":            {`{"format": 2, "sizes": [2,`, "model.json"},
		"no method":          {`{"format": 2, "sizes": [2, 4], "members": [{"network": "a.pt"}], ` + sc + `}`, "method"},
		"no members":         {`{"format": 2, "method": "oc", "sizes": [2, 4], "members": [], ` + sc + `}`, "members"},
		"path escape":        {`{"format": 2, "method": "oc", "sizes": [2, 4], "members": [{"network": "../x.pt"}], ` + sc + `}`, "members[0].network"},
		"a zero size":        {`{"format": 2, "method": "oc", "sizes": [2, 0], "members": [{"network": "a.pt"}], ` + sc + `}`, "sizes[1]"},
		"features too few":   {`{"format": 2, "method": "oc", "sizes": [2, 4], "features": ["a"], "members": [{"network": "a.pt"}], ` + sc + `}`, "features"},
		"a feature twice":    {`{"format": 2, "method": "oc", "sizes": [2, 4], "features": ["a", "a"], "members": [{"network": "a.pt"}], ` + sc + `}`, "features[1]"},
		"a network twice":    {`{"format": 2, "method": "oc", "sizes": [2, 4], "members": [{"seed": 1, "network": "a.pt"}, {"seed": 2, "network": "a.pt"}], ` + sc + `}`, "members[1].network"},
		"a seed twice":       {`{"format": 2, "method": "oc", "sizes": [2, 4], "members": [{"network": "a.pt"}, {"network": "b.pt"}], ` + sc + `}`, "members[1].seed"},
		"negative threshold": {`{"format": 2, "method": "tar", "sizes": [2, 4], "members": [{"network": "a.pt", "threshold": -1}], ` + sc + `}`, "members[0].threshold"},
		"scaler too short":   {`{"format": 2, "method": "oc", "sizes": [3, 4], "members": [{"network": "a.pt"}], ` + sc + `}`, "scaler"},
		// Hand edits (issue 47): each error names the field and what is wrong with its value.
		"a scale of 0":  {`{"format": 2, "method": "oc", "sizes": [2, 4], "members": [{"network": "a.pt"}], "scaler": {"mean": [0, 0], "scale": [1, 0]}}`, "scale[1] (column 2) is 0: want a number > 0"},
		"a scale of -1": {`{"format": 2, "method": "oc", "sizes": [2, 4], "members": [{"network": "a.pt"}], "scaler": {"mean": [0, 0], "scale": [-1, 1]}}`, "scale[0] (column 1) is -1: want a number > 0"},
		"a member removed": {`{"format": 2, "method": "oc", "sizes": [2, 4], "members": [{"network": "a.pt"}], ` + sc +
			`, "files": [{"name": "a.pt", "role": "encoder", "member": 0}, {"name": "b.pt", "role": "encoder", "member": 1}]}`, "members: 1 entries, but files describes the network files of 2 members"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, MetaFile), []byte(c.body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadMeta(dir)
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.field) || !strings.Contains(err.Error(), MetaFile) {
				t.Fatalf("error %v, want ErrFormat naming %s", err, c.field)
			}
		})
	}
}

// TestWriteMetaGaussianBytes: a model.json with a Gaussian, whose matrix WriteMeta writes
// in place of a stand-in, is the bytes json.MarshalIndent gives (and a newline): for
// matrices around WriteBase64's block and for a feature named as the stand-in's text,
// which takes MarshalIndent's path.
func TestWriteMetaGaussianBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		values int
		name   string
	}{{0, "a"}, {1, "a"}, {2, "a"}, {3, "a"}, {3<<12 - 1, "a"}, {3 << 12, "a"}, {3<<12 + 1, "a"}, {40000, "a"}, {5, string(spliceText)}} {
		b := make(project.Floats, tc.values)
		for i := range b {
			b[i] = float32(rng.NormFloat64())
		}
		m := &Meta{Format: Format, Method: "ensemble", Sizes: []int{2, 4}, Features: []string{tc.name, "<b&c>"},
			Scaler:  scale.Scaler{Mean: []float64{1, 2}, Scale: []float64{1, 1}},
			Members: []Member{{Seed: 3, Network: "member-3.pt"}},
			Projection: &Projection{Map: project.Projection{K: 1, D: 2, Components: []float32{1, 0}},
				Gaussian: &project.Gaussian{D: 2, R: tc.values / 2, Iso: 1, Coef: 1, Center: []float32{0.5, -0.25}, B: b}}}
		dir := t.TempDir()
		if err := WriteMeta(dir, m); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, MetaFile))
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if want = append(want, '\n'); !bytes.Equal(got, want) {
			t.Errorf("%d values, feature %q: model.json differs from MarshalIndent's (%d against %d bytes)", tc.values, tc.name, len(got), len(want))
		}
		if m.Projection.Gaussian.B == nil && tc.values > 0 || len(m.Projection.Gaussian.B) != tc.values {
			t.Errorf("%d values: WriteMeta changed the model's matrix", tc.values)
		}
		var back Meta
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatal(err)
		}
		if g := back.Projection.Gaussian; len(g.B) != tc.values || tc.values > 0 && g.B[tc.values-1] != b[tc.values-1] {
			t.Errorf("%d values: read back %d", tc.values, len(g.B))
		}
	}
}

// BenchmarkWriteMetaGaussian writes the model.json of a model with InternetAds' Gaussian
// (1,555 × 1,555 float32 values, 13 MB of base64).
func BenchmarkWriteMetaGaussian(b *testing.B) {
	const d = 1555
	g := make(project.Floats, d*d)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range g {
		g[i] = float32(rng.NormFloat64())
	}
	m := &Meta{Format: Format, Method: "ensemble", Sizes: []int{32, 4}, Scaler: scale.Scaler{Mean: make([]float64, 32), Scale: make([]float64, 32)},
		Members:    []Member{{Seed: 3, Network: "member-3.pt"}},
		Projection: &Projection{Map: project.Projection{K: 1, D: d, Components: make([]float32, d)}, Gaussian: &project.Gaussian{D: d, R: d, Coef: 1, Center: make([]float32, d), B: g}}}
	dir := b.TempDir()
	b.SetBytes(int64(4 * len(g)))
	for i := 0; i < b.N; i++ {
		if err := WriteMeta(dir, m); err != nil {
			b.Fatal(err)
		}
	}
}

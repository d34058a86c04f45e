package models

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/udocc/udocc/internal/project"
	"github.com/udocc/udocc/internal/scale"
)

// TestWriteMetaWithinReadLimit checks that WriteMeta refuses a model.json larger than
// ReadMeta reads, with or without a Gaussian spliced in, and writes nothing; what it
// writes, ReadMeta reads (hostile round 4, B3: fit saved 310 MB that no command loaded).
func TestWriteMetaWithinReadLimit(t *testing.T) {
	defer func(v int64) { maxMetaBytes = v }(maxMetaBytes)
	maxMetaBytes = 64 << 10
	meta := func(d, gauss int) *Meta {
		m := &Meta{Format: Format, Method: "ensemble", Sizes: []int{d, 4}, Features: make([]string, d),
			Scaler:  scale.Scaler{Mean: make([]float64, d), Scale: make([]float64, d)},
			Members: []Member{{Seed: 3, Network: "member-3.pt"}}}
		for j := range d {
			m.Features[j], m.Scaler.Mean[j], m.Scaler.Scale[j] = fmt.Sprintf("c%d", j), 0.123456789, 1.5
		}
		if gauss > 0 {
			m.Projection = &Projection{Map: project.Projection{K: 1, D: d, Components: make([]float32, d)},
				Gaussian: &project.Gaussian{D: d, R: gauss / d, Iso: 1, Coef: 1, Center: make([]float32, d), B: make(project.Floats, gauss)}}
		}
		return m
	}
	for _, c := range []struct {
		name     string
		d, gauss int
		fits     bool
	}{
		{"narrow", 10, 0, true},
		{"narrow with a Gaussian", 10, 100, true},
		{"wide", 4000, 0, false},
		{"large Gaussian", 10, 20000, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			err := WriteMeta(dir, meta(c.d, c.gauss))
			if !c.fits {
				if !errors.Is(err, ErrTooLarge) {
					t.Fatalf("error %v, want %v", err, ErrTooLarge)
				}
				if _, serr := os.Stat(filepath.Join(dir, MetaFile)); !os.IsNotExist(serr) {
					t.Fatalf("a model.json was written: %v", serr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := readMetaFile(filepath.Join(dir, MetaFile)); err != nil {
				t.Fatalf("written, but not read: %v", err)
			}
		})
	}
}

// TestReadMetaStrict checks that model.json's unknown fields are refused, naming the
// field, and that an error quotes at most a short part of a long value (hostile round 4,
// L22: unknown fields were accepted, and a 10 MB feature name made a 10 MB message).
func TestReadMetaStrict(t *testing.T) {
	thr := 0.5
	base := func() *Meta {
		return &Meta{Format: Format, Method: "proposed", Sizes: []int{2, 4}, Features: []string{"a", "b"},
			Scaler:  scale.Scaler{Mean: []float64{1, 2}, Scale: []float64{1, 1}},
			Members: []Member{{Seed: 3, Network: "member-3.pt", Threshold: &thr}}}
	}
	dir := t.TempDir()
	if err := WriteMeta(dir, base()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, MetaFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, append([]byte(`{"smuggled": 1,`), b[1:]...), 0o644)
	if _, err := ReadMeta(dir); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "smuggled") {
		t.Errorf("unknown field: %v", err)
	}
	long := strings.Repeat("n", 1<<20)
	m := base()
	m.Features = []string{long, long}
	os.Remove(path)
	if err := WriteMeta(dir, m); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadMeta(dir); err == nil || len(err.Error()) > 1000 {
		t.Errorf("a name twice: an error of %d bytes", len(fmt.Sprint(err)))
	}
}

// TestReadMetaShapeBounded checks that a model.json whose arrays would decode into far
// more memory than it holds is refused before it is decoded (hostile round 4, L22: a
// 200 MB model.json of number arrays took 2.4 GB and 15 s before Validate refused it).
func TestReadMetaShapeBounded(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, MetaFile)
	long := strings.Repeat("0,", 4*MaxColumns) // 8 MB, four times the longest array
	os.WriteFile(path, []byte(`{"format": 1, "scaler": {"mean": [`+long+`0]}}`), 0o644)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadMeta(dir)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTooLarge) || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "more than 1048576 values") {
		t.Errorf("a long array: %v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("refusing an 8 MB model.json allocated %d bytes", got)
	}
}

// TestShapeCounts checks how shapeReader counts: values of every kind in an array,
// and none of the brackets, commas and quotes inside strings.
func TestShapeCounts(t *testing.T) {
	for _, c := range []struct {
		in    string
		elems int64
	}{
		{`[]`, 0},
		{`[1]`, 1},
		{`[1, -2.5e3 ,true,null, "a,]\"[", [], {}, {"k": [1,2]}]`, 10},
		{`{"a": [ "x" , "y" ], "b": {"c": [0]}}`, 3},
		{`[[1,2],[3]]`, 5},
	} {
		s := &shapeReader{}
		for _, b := range []byte(c.in) {
			if err := s.step(b); err != nil {
				t.Fatalf("%s: %v", c.in, err)
			}
		}
		if s.elems != c.elems || len(s.open) != 0 {
			t.Errorf("%s: %d values, depth %d; want %d, 0", c.in, s.elems, len(s.open), c.elems)
		}
	}
	ok := "[" + strings.Repeat("1,", MaxColumns-1) + "1]"
	if err := checkShape("m", []byte(ok)); err != nil {
		t.Errorf("an array of MaxColumns values: %v", err)
	}
	if err := checkShape("m", []byte("[1,"+ok[1:])); !errors.Is(err, ErrTooLarge) {
		t.Errorf("an array of MaxColumns+1 values: %v", err)
	}
	if err := checkShape("m", []byte(strings.Repeat("[", maxDepth+1))); !errors.Is(err, ErrTooLarge) {
		t.Errorf("nested %d deep: %v", maxDepth+1, err)
	}
	members := `{"members": [` + strings.Repeat(`{"seed": 1, "files": [1, 2]},`, MaxMembers) + `{}]}`
	if err := checkShape("m", []byte(members)); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "more than 1000 values") {
		t.Errorf("MaxMembers+1 members: %v", err)
	}
	if err := checkShape("m", []byte(`{"features": [`+strings.Repeat(`"members",`, MaxMembers)+`"x"]}`)); err != nil {
		t.Errorf("a name that spells members: %v", err)
	}
	if err := CheckSize(&Meta{}, MaxColumns+1, 0); !errors.Is(err, ErrTooLarge) {
		t.Errorf("CheckSize of MaxColumns+1 columns: %v", err)
	}
}

package models

import (
	"slices"
	"testing"
)

func TestPreset(t *testing.T) {
	cases := []struct {
		name  string
		want  []int
		found bool
	}{
		{"arrhythmia", []int{128, 64, 32}, true},
		{"../shared/data/odds/mnist.mat", []int{64, 32, 16}, true},
		{"Pima.csv", []int{32, 16, 4}, true},
		{"thyroid", []int{32, 16, 4}, true},
		{"satellite", []int{32, 16, 8}, false},
		{"my-table.csv", []int{32, 16, 8}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, found := Preset(c.name)
			if !slices.Equal(got, c.want) || found != c.found {
				t.Errorf("Preset(%q) = %v, %v; want %v, %v", c.name, got, found, c.want, c.found)
			}
		})
	}
}

func TestParseHidden(t *testing.T) {
	h, err := ParseHidden("64, 32,16")
	if err != nil || !slices.Equal(h, []int{64, 32, 16}) || FormatHidden(h) != "64,32,16" {
		t.Fatalf("ParseHidden = %v, %v", h, err)
	}
	for _, bad := range []string{"", "32,,8", "32,0", "a,b", "-4"} {
		if _, err := ParseHidden(bad); err == nil {
			t.Errorf("ParseHidden(%q) gave no error", bad)
		}
	}
}

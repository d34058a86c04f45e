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

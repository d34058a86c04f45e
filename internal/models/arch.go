package models

import (
	"path/filepath"
	"strings"
)

// DefaultHidden is the architecture for data sets without a preset: 32-16-8, the one home
// of these widths (training.DefaultConfig and Preset copy it; callers do not modify it).
var DefaultHidden = []int{32, 16, 8}

// presets are the paper's architectures (Section V-A): layer widths after the input.
var presets = map[string][]int{
	"arrhythmia": {128, 64, 32},
	"mnist":      {64, 32, 16},
	"pima":       {32, 16, 4},
	"thyroid":    {32, 16, 4},
}

// Preset returns the paper's layer widths for a data set name (a file name works too:
// "data/mnist.mat" gives mnist's), or DefaultHidden, and whether a preset was found.
func Preset(name string) ([]int, bool) {
	base := strings.ToLower(strings.TrimSuffix(filepath.Base(name), filepath.Ext(name)))
	if h, ok := presets[base]; ok {
		return append([]int(nil), h...), true
	}
	return append([]int(nil), DefaultHidden...), false
}

// Sizes prepends the input width d to the hidden widths: the layer sizes of the encoder.
func Sizes(d int, hidden []int) []int {
	return append([]int{d}, hidden...)
}

package models

import (
	"path/filepath"
	"strings"
)

// DefaultHidden is the architecture for data sets without a preset: 32-16-8, the one home
// of these widths (training.DefaultConfig and Preset copy it; callers do not modify it).
var DefaultHidden = []int{32, 16, 8}

// NarrowInputs is the most input features for which the default ensemble's encoder ends
// in NarrowHidden instead of DefaultHidden: a bottleneck of 4, as the paper gives its
// two tables of at most 8 features (pima, thyroid). On the 8 real tables of at most 9
// features, seeds 0 and 1, a bottleneck of 4 scored a mean ROCAUC 0.796 and 0.817 against
// 8's 0.778 and 0.778, PRAUC 0.343 and 0.376 against 0.314 and 0.337; of them only glass
// (9 features) scored lower with 4 on average (bench/notes/cost.md).
const NarrowInputs = 8

// NarrowHidden are the default ensemble's widths for at most NarrowInputs features.
var NarrowHidden = []int{32, 16, 4}

// EnsembleHidden returns the default ensemble's widths for d input features: NarrowHidden
// for at most NarrowInputs, else DefaultHidden. They depend on the table's shape, never on
// its name.
func EnsembleHidden(d int) []int {
	if d <= NarrowInputs {
		return append([]int(nil), NarrowHidden...)
	}
	return append([]int(nil), DefaultHidden...)
}

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

package udocc

import (
	"github.com/udocc/udocc/internal/dynamics"
	"github.com/udocc/udocc/internal/torch"
	"github.com/udocc/udocc/internal/training"
)

// ErrDiverged reports a fit whose loss left every finite range or grew past 10⁴ times
// its level before the first step: lower the learning rate (Options.LR, or
// Options.PretrainLR for ErrPretrainDiverged, which is ErrDiverged too).
var (
	ErrDiverged         = training.ErrDiverged
	ErrPretrainDiverged = training.ErrPretrainDiverged
)

// Runtime is what the libtorch that udocc is linked against offers.
type Runtime struct {
	Libtorch    string // its version, such as "1.13.0"
	CUDA        bool   // built with CUDA
	CUDADevices int    // CUDA devices visible
	Gloo        bool   // CPU data-parallel runs (Gloo) can start
}

// RuntimeInfo describes the linked libtorch.
func RuntimeInfo() Runtime {
	return Runtime{Libtorch: torch.Version(), CUDA: torch.CUDACompiled(), CUDADevices: torch.CUDADeviceCount(), Gloo: torch.GlooCompiled()}
}

// CheckDevice returns nil when device ("cpu", "cuda" or "cuda:N") can be used here,
// and otherwise the error a fit on it would fail with.
func CheckDevice(device string) error { return torch.CheckDevice(device) }

// Ranks are the ranks of scores, 1 for the lowest (the most normal row) to n, ties in
// row order: scores.csv's rank column.
func Ranks(scores []float64) []int32 { return dynamics.Ranks32(scores) }

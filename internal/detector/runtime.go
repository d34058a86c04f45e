package detector

import (
	"github.com/udocc/udocc/internal/torch"
	"github.com/udocc/udocc/internal/training"
)

// ErrDiverged reports a fit whose loss left every finite range or grew past 10⁴ times
// its level before the first step: lower the learning rate (Options.LR, or
// Options.PretrainLR where the error says the pretraining diverged).
var ErrDiverged = training.ErrDiverged

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

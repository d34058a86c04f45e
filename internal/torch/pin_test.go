package torch

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestShimMatchesLibtorch runs the pin test (torch/shim/pintest/pin_test.cpp): a
// two-member group trained through the C ABI, pretraining and fine-tuning, against the
// same members as libtorch's own torch::nn::BatchNorm1d and torch::optim::Adam on the
// same rows, with dense, masked and sat-out steps. Losses, weights, running statistics,
// the center and eval-mode distances must agree to float rounding. ./build.sh test builds
// the program and names it in UDOCC_PIN_TEST; a plain go test runs lib/udocc_pin_test
// when an earlier ./build.sh test left one.
func TestShimMatchesLibtorch(t *testing.T) {
	bin := os.Getenv("UDOCC_PIN_TEST")
	if bin == "" {
		bin = filepath.Join("..", "..", "lib", "udocc_pin_test")
		if _, err := os.Stat(bin); err != nil {
			t.Skip("no lib/udocc_pin_test: ./build.sh test builds it")
		}
	}
	out, err := exec.Command(bin).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, out)
	}
	t.Logf("%s", out)
}

package bench

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/udocc/udocc/internal/torch"
)

// TestFailedGroups runs the tiny grid on a device this libtorch lacks: every group
// fails, is retried run by run, and each run is counted failed and named in the error,
// with nothing written to the results.
func TestFailedGroups(t *testing.T) {
	if torch.CUDADeviceCount() > 0 {
		t.Skip("CUDA is available: no device to fail on")
	}
	o := tinyOptions(tinyData(t), t.TempDir())
	o.Train.Device = "cuda"
	sum, err := Run(context.Background(), o)
	if err == nil {
		t.Fatal("a grid on a missing device did not fail")
	}
	if sum == nil || sum.Failed != 8 || sum.Trained != 0 {
		t.Fatalf("summary %+v, want 8 failed and none trained", sum)
	}
	for _, want := range []string{"alpha: oc seed 0", "beta: proposed seed 1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not name %q:\n%v", want, err)
		}
	}
	res, err := ReadResults(filepath.Join(o.Out, ResultsFile))
	if err != nil || len(res.Lines) != 0 {
		t.Errorf("results: %v, %v; want an empty file", res, err)
	}
	sessions, err := ReadSessions(filepath.Join(o.Out, SessionsFile))
	if err != nil || len(sessions) != 1 || sessions[0].Failed != 8 {
		t.Errorf("sessions %+v, %v; want one with 8 failed", sessions, err)
	}
}

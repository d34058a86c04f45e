package training

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/odds"
	"github.com/udocc/udocc/internal/scale"
)

// TestSelectorsOnODDS runs every method on the ODDS glass file (214 rows, 9 anomalies)
// with shortened training and checks each per-epoch record against its definition:
// δ̄ is the mean of the δ* so far, the selected ratio is (n − δ̄)/n, and the next
// training set is what the following epoch trained on. It logs δ*, δ̄ and the selected
// ratio against the true ratio (go test -v). The full-length runs on all ten sets are
// the bench's (bench/results).
func TestSelectorsOnODDS(t *testing.T) {
	dir := odds.FindDir()
	if dir == "" {
		t.Skip("no ODDS folder: set UDOCC_DATA or put the files in ../shared/data/odds")
	}
	ds, err := data.Load(filepath.Join(dir, "glass.mat"), data.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scale.Fit(ds)
	if err != nil {
		t.Fatal(err)
	}
	std, err := sc.Transform(ds)
	if err != nil {
		t.Fatal(err)
	}
	trueRatio := float64(ds.Anomalies()) / float64(ds.N)
	cfg := DefaultConfig()
	cfg.Hidden, _ = models.Preset("glass")
	cfg.PretrainEpochs, cfg.Epochs = 20, 15
	var members []Member
	for _, method := range Methods {
		opt := MethodOptions{}
		if UsesRatio(method) {
			opt.Ratio = trueRatio
		}
		m, err := NewMember(method, 1, ds.N, opt)
		if err != nil {
			t.Fatal(err)
		}
		members = append(members, m)
	}
	run, err := FitGroup(std.X, std.N, std.D, cfg, members, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	n := float64(ds.N)
	for _, r := range run.Results {
		sum := 0.0
		for j, h := range r.History {
			rec := h.Record
			if j+1 < len(r.History) && r.History[j+1].TrainSize != rec.NextTrainSize {
				t.Errorf("%s epoch %d: record says %d rows next, epoch %d trained %d", r.Member.name(), h.Epoch, rec.NextTrainSize, h.Epoch+1, r.History[j+1].TrainSize)
			}
			if r.Member.name() != "proposed" {
				continue
			}
			if h.Epoch < 2 {
				if h.TrainSize != ds.N || rec.DeltaStar != 0 {
					t.Errorf("proposed epoch %d: %d rows, δ* %d; epochs 1 and 2 train on all rows", h.Epoch, h.TrainSize, rec.DeltaStar)
				}
				continue
			}
			sum += float64(rec.DeltaStar)
			bar := sum / float64(h.Epoch-1)
			if math.Abs(rec.DeltaBar-bar) > 1e-9 || math.Abs(rec.SelectedRatio-(n-bar)/n) > 1e-12 {
				t.Errorf("proposed epoch %d: δ̄ %g, ratio %g; want %g, %g", h.Epoch, rec.DeltaBar, rec.SelectedRatio, bar, (n-bar)/n)
			}
			t.Logf("proposed epoch %2d: δ* %3d  δ̄ %6.1f  selected ratio %.3f (true %.3f)  next train %d",
				h.Epoch, rec.DeltaStar, rec.DeltaBar, rec.SelectedRatio, trueRatio, rec.NextTrainSize)
		}
		flagged := 0
		for _, l := range r.Labels {
			if l {
				flagged++
			}
		}
		t.Logf("%-8s flagged %3d of %d (true anomalies %d), threshold %.4g", r.Member.name(), flagged, ds.N, ds.Anomalies(), r.Threshold)
	}
}

package detector

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/udocc/udocc/internal/training"
)

// TestCheckFinite fits a small ensemble, whose every tensor checkFinite reads without
// error (so that the names it asks for exist), then puts a NaN into member 1's radius:
// checkFinite names the member and the tensor and wraps training.ErrDiverged.
func TestCheckFinite(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	rows := make([][]float64, 40)
	for i := range rows {
		rows[i] = []float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
	}
	m, err := Fit(context.Background(), rows, Ensemble{ScreenEpochs: 2}, Options{PretrainEpochs: 2, Epochs: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.checkFinite(); err != nil {
		t.Fatalf("a good fit: %v", err)
	}
	if err := m.nets[1].SetRadius([]float32{float32(math.NaN())}); err != nil {
		t.Fatal(err)
	}
	err = m.checkFinite()
	if !errors.Is(err, training.ErrDiverged) || !strings.Contains(err.Error(), "member 1") || !strings.Contains(err.Error(), "radius") {
		t.Errorf("error %v, want ErrDiverged naming member 1's radius", err)
	}
}

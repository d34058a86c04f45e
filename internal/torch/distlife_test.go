package torch

import (
	"errors"
	"net"
	"testing"
	"time"
)

// TestGroupKeepsItsDist closes a Dist while a group made a rank of it is still open:
// the group keeps the process group alive, trains (an all-reduce at every step) and
// sets its center (another) through it, and derived groups do too; the closed handle
// itself refuses its collectives.
func TestGroupKeepsItsDist(t *testing.T) {
	if !GlooCompiled() {
		t.Skip("the shim was built without Gloo's headers (libgloo-dev): no CPU process group")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	d, err := NewDist(DistConfig{Addr: "127.0.0.1", Port: port, Rank: 0, World: 1, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	const n, dim, k = 120, 4, 2
	x := synth(n, dim, 3)
	g, err := NewGroup([]int{dim, 6, 3}, k, true, "cpu", []uint64{1, 2})
	must(t, err)
	defer g.Close()
	must(t, g.SetData(x, n, dim))
	must(t, g.ResetAdam(Autoencoder, []float64{1e-2, 1e-2}, []float64{0, 0}))
	must(t, g.SetDist(d))
	d.Close()
	if err := d.AllReduce([]float64{1}); !errors.Is(err, ErrDistClosed) {
		t.Errorf("AllReduce on a closed Dist: %v, want ErrDistClosed", err)
	}
	for e := 0; e < 2; e++ {
		if _, err := g.PretrainEpoch(fullPlan(k, n, 32)); err != nil {
			t.Fatalf("epoch %d after the Dist closed: %v", e, err)
		}
	}
	ft, err := g.Derive([]int{0, 1})
	must(t, err)
	defer ft.Close()
	g.Close() // the derived group still holds the process group
	must(t, ft.InitCenter(0.1))
	must(t, ft.ResetAdam(Encoder, []float64{1e-3, 1e-3}, []float64{0, 0}))
	obj := Objective{Soft: []uint8{0, 0}, Nu: []float64{0, 0}, UpdateR: []uint8{0, 0}}
	if _, err := ft.TrainEpoch(fullPlan(k, n, 32), obj, nil); err != nil {
		t.Fatalf("fine-tuning after the Dist and the first group closed: %v", err)
	}
}

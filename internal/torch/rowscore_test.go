package torch

import (
	"errors"
	"math"
	"path/filepath"
	"strconv"
	"testing"
)

// TestRowScoreIsAFunctionOfTheRow holds the shim to its promise on the CPU: a row's
// eval-mode distance and reconstruction error are a function of the row and its member's
// network alone, to the bit — whichever rows, and how many, are scored with it, in what
// order, from a table the group holds or from a caller's buffer, in a group of one member
// or of three. Both CPU paths (fast and libtorch) are held to it; .ci/run runs it under
// DNNL_MAX_CPU_ISA=AVX2 as well, whose sgemm kernels round differently for different row
// counts. The rows cross many blocks of udocc_fast.h's kEvalRows and end in a partial one.
func TestRowScoreIsAFunctionOfTheRow(t *testing.T) {
	for _, p := range places() {
		if p.device != "cpu" {
			continue // the promise is the CPU's; cuBLAS picks kernels by shape too
		}
		const n, d, k = 2100, 7, 3
		x := synth(n, d, 5)
		g := pretrained(t, p, x, n, []int{d, 16, 4}, []uint64{3, 4, 5})
		must(t, g.InitCenter(0.1))
		must(t, g.ResetAdam(Encoder, []float64{1e-3, 1e-3, 1e-3}, []float64{1e-6, 1e-6, 1e-6}))
		obj := Objective{Soft: make([]uint8, k), Nu: make([]float64, k), UpdateR: make([]uint8, k)}
		_, err := g.TrainEpoch(fullPlan(k, n, 64), obj, nil)
		must(t, err)

		dist, err := g.DistancesOf(x, n, d)
		must(t, err)
		rec, err := g.ReconstructionOf(x, n, d)
		must(t, err)
		same := func(what string, got []float32, m int, row func(i int) int, want []float32, members []int) {
			t.Helper()
			for q, kk := range members {
				for i := 0; i < m; i++ {
					a, b := got[q*m+i], want[kk*n+row(i)]
					if math.Float32bits(a) != math.Float32bits(b) {
						t.Fatalf("reference %v: %s: member %d, row %d: %v, scored with all rows %v", p.ref, what, kk, row(i), a, b)
					}
				}
			}
		}
		all := []int{0, 1, 2}

		// The group's own table, read in its chunks.
		own, err := g.Distances()
		must(t, err)
		same("the group's rows", own, n, func(i int) int { return i }, dist, all)
		ownRec, err := g.Reconstruction()
		must(t, err)
		same("the group's rows' reconstruction", ownRec, n, func(i int) int { return i }, rec, all)

		// Single rows, short runs across a block's end, and the table reversed.
		runs := [][2]int{{0, 1}, {1023, 1}, {1024, 1}, {n - 1, 1}, {5, 7}, {1000, 100}, {2047, 53}}
		for _, r := range runs {
			lo, m := r[0], r[1]
			part := x[lo*d : (lo+m)*d]
			got, err := g.DistancesOf(part, m, d)
			must(t, err)
			same("rows "+strconv.Itoa(lo)+"+"+strconv.Itoa(m), got, m, func(i int) int { return lo + i }, dist, all)
			gotRec, err := g.ReconstructionOf(part, m, d)
			must(t, err)
			same("reconstruction of rows "+strconv.Itoa(lo)+"+"+strconv.Itoa(m), gotRec, m, func(i int) int { return lo + i }, rec, all)
		}
		rev := make([]float32, len(x))
		for i := 0; i < n; i++ {
			copy(rev[i*d:(i+1)*d], x[(n-1-i)*d:(n-i)*d])
		}
		got, err := g.DistancesOf(rev, n, d)
		must(t, err)
		same("the rows reversed", got, n, func(i int) int { return n - 1 - i }, dist, all)

		// One member saved and loaded alone: a group of one.
		path := filepath.Join(t.TempDir(), "m.pt")
		must(t, g.Save(1, path))
		l, err := Load(path, p.device)
		must(t, err)
		l.SetReference(p.ref)
		one, err := l.DistancesOf(x[:300*d], 300, d)
		if err == nil {
			same("member 1 alone", one, 300, func(i int) int { return i }, dist, []int{1})
			var oneRec []float32
			oneRec, err = l.ReconstructionOf(x[:300*d], 300, d)
			if err == nil {
				same("member 1 alone, reconstruction", oneRec, 300, func(i int) int { return i }, rec, []int{1})
			}
		}
		if err == nil {
			// Several groups in one call of the shim (ScoreGroups), as a model's members
			// are scored: each group's rows as it scores them alone.
			const lo, m = 5, 70
			var gd, gr [][]float32
			gd, gr, err = ScoreGroups([]*Group{g, l}, []*Group{l, g}, x[lo*d:(lo+m)*d], m, d)
			if err == nil {
				at := func(i int) int { return lo + i }
				same("ScoreGroups, the group", gd[0], m, at, dist, all)
				same("ScoreGroups, member 1 alone", gd[1], m, at, dist, []int{1})
				same("ScoreGroups, member 1 alone, reconstruction", gr[0], m, at, rec, []int{1})
				same("ScoreGroups, the group, reconstruction", gr[1], m, at, rec, all)
			}
		}
		l.Close()
		must(t, err)
		if _, _, err := ScoreGroups([]*Group{g, l}, nil, x[:d], 1, d); !errors.Is(err, ErrClosed) {
			t.Errorf("ScoreGroups with a closed group: %v, want ErrClosed", err)
		}
	}
}

package torch

import (
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// standardised is rows (nil: all) of the nx x d matrix x standardised as the shim does
// it (mean nil: as they are), copied: the matrix a group that copies would hold.
func standardised(x []float32, d int, rows []int32, mean, scale []float64) []float32 {
	if rows == nil {
		rows = make([]int32, len(x)/d)
		for i := range rows {
			rows[i] = int32(i)
		}
	}
	out := make([]float32, 0, len(rows)*d)
	for _, r := range rows {
		for j, v := range x[int(r)*d : int(r+1)*d] {
			if mean != nil {
				v = float32((float64(v) - mean[j]) / scale[j])
			}
			out = append(out, v)
		}
	}
	return out
}

// TestBorrowData runs the same members, seeds and plans on a group that borrows a raw
// table (all of it or a list of its rows, standardised on every read or not) and on a
// group given the same rows standardised and copied, and requires every number the
// shim hands back to be the same to the bit: on the fast path, which reads the borrowed
// table in place, and on the libtorch path, chosen before borrowing (the rows are then
// copied) or after it (copied when that path first needs them). The caller's table is
// unchanged. The tables span several of the scoring passes' 1024-row chunks.
func TestBorrowData(t *testing.T) {
	const nx, d = 2600, 5
	x := synth(nx, d, 21)
	for i := range x {
		x[i] = 3*x[i] + float32(i%d) // columns of their own mean and spread
	}
	orig := slices.Clone(x)
	mean, scale := []float64{0.1, 1.2, 1.9, 3.05, 4}, []float64{3.1, 2.9, 3, 2.7, 3.3}
	r := rand.New(rand.NewPCG(5, 6))
	var rows []int32 // every row but a seventh, in an order of their own
	for i := range nx {
		if i%7 != 3 {
			rows = append(rows, int32(i))
		}
	}
	r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	cases := []struct {
		name        string
		rows        []int32
		mean, scale []float64
		ref, after  bool // the libtorch path, chosen before (or after) borrowing
	}{
		{name: "scaled, every row", mean: mean, scale: scale},
		{name: "scaled, a row list", rows: rows, mean: mean, scale: scale},
		{name: "raw, a row list", rows: rows},
		{name: "raw, every row"},
		{name: "reference before borrowing", rows: rows, mean: mean, scale: scale, ref: true},
		{name: "reference after borrowing", rows: rows, mean: mean, scale: scale, ref: true, after: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := nx
			if c.rows != nil {
				n = len(c.rows)
			}
			copied := standardised(x, d, c.rows, c.mean, c.scale)
			want := runPathOn(t, c.ref, 2, n, d, func(g *Group) error { return g.SetData(copied, n, d) })
			got := runPathOn(t, c.ref && !c.after, 2, n, d, func(g *Group) error {
				if err := g.BorrowData(x, nx, d, c.rows, c.mean, c.scale); err != nil {
					return err
				}
				if borrowed := g.lent != nil; borrowed != !(c.ref && !c.after) {
					t.Errorf("borrowed %v, want %v", borrowed, !borrowed)
				}
				if c.after {
					g.SetReference(true)
				}
				return nil
			})
			if !reflect.DeepEqual(got, want) {
				t.Error("the group that borrowed the table differs from the group that copied its rows")
			}
			if !slices.Equal(x, orig) {
				t.Fatal("the caller's table changed")
			}
		})
	}
}

// TestBorrowDataLetsGo checks that a group derived from one that borrowed a table reads
// it as its source did and keeps it after the source drops it, and that when the last
// of them drops it the table is unpinned: the collector may free it (a table still
// pinned would never be freed).
func TestBorrowDataLetsGo(t *testing.T) {
	const n, d = 200, 4
	freed := make(chan struct{})
	x := synth(n, d, 8)
	runtime.AddCleanup(&x[0], func(ch chan struct{}) { close(ch) }, freed)
	other := synth(n, d, 8) // the same values, not borrowed

	g, err := NewGroup([]int{d, 6, 3}, 2, false, "cpu", []uint64{1, 2})
	must(t, err)
	defer g.Close()
	must(t, g.BorrowData(x, n, d, nil, nil, nil))
	must(t, g.InitCenter(0.1))
	before, err := g.Distances()
	must(t, err)
	ft, err := g.Derive([]int{1, 0})
	must(t, err)
	defer ft.Close()
	if got := g.lent.refs.Load(); got != 2 {
		t.Fatalf("%d groups share the table, want 2", got)
	}
	must(t, g.DropData())
	if g.lent != nil || ft.lent == nil || ft.lent.refs.Load() != 1 {
		t.Fatal("the source's DropData did not hand back its share only")
	}
	after, err := ft.Distances()
	must(t, err)
	if !slices.Equal(after[:n], before[n:]) || !slices.Equal(after[n:], before[:n]) {
		t.Error("the derived group scores the borrowed table differently once its source dropped it")
	}
	of, err := ft.DistancesOf(other, n, d)
	must(t, err)
	if !slices.Equal(of, after) {
		t.Error("the borrowed table reads differently from the same rows passed in")
	}
	must(t, ft.DropData())
	if ft.lent != nil {
		t.Fatal("DropData kept the table")
	}
	x = nil
	waitFreed(t, freed, "the table was not freed after every group dropped it: still pinned")
}

// TestBorrowDataUnclosed checks that a group collected without Close or DropData
// hands back its share of a borrowed table (a runtime.Pinner collected while still
// pinned panics the whole process), so the table is freed like any other.
func TestBorrowDataUnclosed(t *testing.T) {
	const n, d = 100, 3
	freed := make(chan struct{})
	x := synth(n, d, 5)
	runtime.AddCleanup(&x[0], func(ch chan struct{}) { close(ch) }, freed)
	func() {
		g, err := NewGroup([]int{d, 4, 2}, 1, false, "cpu", []uint64{3})
		must(t, err)
		must(t, g.BorrowData(x, n, d, nil, nil, nil))
		if g.lent == nil {
			t.Fatal("the CPU fast path copied the table instead of borrowing it")
		}
		ft, err := g.Derive([]int{0})
		must(t, err)
		_ = ft // neither group is closed
	}()
	x = nil
	waitFreed(t, freed, "the table of two unclosed, unreachable groups was never unpinned")
}

// waitFreed collects until freed is closed (by a cleanup on the table), failing with msg
// after 10 s.
func waitFreed(t *testing.T, freed <-chan struct{}, msg string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		select {
		case <-freed:
			return
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestBorrowDataErrors checks what BorrowData refuses, and that a refusal leaves the
// group without data.
func TestBorrowDataErrors(t *testing.T) {
	const n, d = 20, 3
	x := synth(n, d, 4)
	x[5*d+2] = float32(math.NaN())
	cases := []struct {
		name string
		rows []int32
		want string // "" for no error
	}{
		{"a non-finite value in a listed row", []int32{0, 4, 5, 6}, "row 2, column 2 is not a finite number"},
		{"a non-finite value in a row left out", []int32{0, 4, 6}, ""},
		{"a row index out of range", []int32{0, 20}, "row list: index out of range"},
		{"a negative row index", []int32{-1, 2}, "row list: index out of range"},
		{"every row, one of them not finite", nil, "row 5, column 2 is not a finite number"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := NewGroup([]int{d, 4, 2}, 1, false, "cpu", []uint64{1})
			must(t, err)
			defer g.Close()
			must(t, g.SetData(synth(n, d, 5), n, d))
			err = g.BorrowData(x, n, d, c.rows, nil, nil)
			if c.want == "" {
				must(t, err)
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one saying %q", err, c.want)
			}
			if _, err := g.Distances(); err == nil || g.N() != 0 || g.lent != nil {
				t.Error("a refused BorrowData left the group with data")
			}
		})
	}
	g, err := NewGroup([]int{d, 4, 2}, 1, false, "cpu", []uint64{1})
	must(t, err)
	defer g.Close()
	for _, bad := range []struct {
		name        string
		x           []float32
		nx, d       int
		mean, scale []float64
	}{
		{"a short matrix", x[:10], n, d, nil, nil},
		{"a mean without a scale", x, n, d, []float64{0, 0, 0}, nil},
		{"a scaler of the wrong width", x, n, d, []float64{0, 0}, []float64{1, 1}},
		{"the wrong number of features", x[:n*2], n, 2, nil, nil},
	} {
		if err := g.BorrowData(bad.x, bad.nx, bad.d, nil, bad.mean, bad.scale); err == nil {
			t.Errorf("%s: accepted", bad.name)
		}
	}
}

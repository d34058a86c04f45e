package data

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestLoadPart reads a table whole and as 3 parts, for a C-order NPY file and a CSV file
// (each read from its blocks' bytes) and a Fortran-order NPY one (read whole, then cut):
// the parts, one after the other, are the whole table's rows, labels and ids.
func TestLoadPart(t *testing.T) {
	const n, d = 10, 3
	var raw, rawF []byte
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(float32(i*10+j)))
		}
	}
	for j := 0; j < d; j++ {
		for i := 0; i < n; i++ {
			rawF = binary.LittleEndian.AppendUint32(rawF, math.Float32bits(float32(i*10+j)))
		}
	}
	var csv strings.Builder
	csv.WriteString("id,a,b,c,y\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&csv, "r%d,%d,%d,%d,%d\n", i, i*10, i*10+1, i*10+2, i%2)
	}
	for _, c := range []struct {
		name string
		path string
		opts LoadOptions
	}{
		{"npy", writeTemp(t, "c.npy", npyBytes("<f4", false, []int{n, d}, raw)), LoadOptions{}},
		{"npy fortran", writeTemp(t, "f.npy", npyBytes("<f4", true, []int{n, d}, rawF)), LoadOptions{}},
		{"csv", writeTemp(t, "t.csv", []byte(csv.String())), LoadOptions{LabelColumn: "y", Selection: Selection{ID: "id"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			whole, err := Load(c.path, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			var x []float32
			var y []int
			var ids []string
			for p := 0; p < 3; p++ {
				o := c.opts
				o.Part = Part{Index: p, Of: 3}
				ds, err := Load(c.path, o)
				if err != nil {
					t.Fatal(err)
				}
				if c.name != "npy fortran" && !ds.partCut {
					t.Errorf("part %d: read whole, not from the block's bytes", p)
				}
				if want := (p+1)*n/3 - p*n/3; ds.N != want {
					t.Errorf("part %d: %d rows, want %d", p, ds.N, want)
				}
				x, y, ids = append(x, ds.X...), append(y, ds.Y...), append(ids, ds.IDs...)
			}
			if !slices.Equal(x, whole.X) || !slices.Equal(y, whole.Y) || !slices.Equal(ids, whole.IDs) {
				t.Errorf("the parts' rows %v %v %v are not the whole table's %v %v %v", x, y, ids, whole.X, whole.Y, whole.IDs)
			}
		})
	}
}

// TestFitScalerParts splits a table with a constant column into 1 and 3 parts, whose
// reduce sums the parts' buffers: the Scaler is FitScaler's of the whole table.
func TestFitScalerParts(t *testing.T) {
	const n, d = 50, 3
	ds := &Dataset{Name: "t", N: n, D: d, X: make([]float32, n*d)}
	for i := 0; i < n; i++ {
		ds.X[i*d], ds.X[i*d+1], ds.X[i*d+2] = float32(i*i%17)+0.1, 2.5, float32(math.Sin(float64(i)))
	}
	want, err := FitScaler(ds)
	if err != nil {
		t.Fatal(err)
	}
	for _, parts := range []int{1, 3} {
		t.Run(fmt.Sprintf("%d parts", parts), func(t *testing.T) {
			got := make([]*Scaler, parts)
			red := newSumReducer(parts)
			var wg sync.WaitGroup
			for p := 0; p < parts; p++ {
				wg.Add(1)
				go func(p int) {
					defer wg.Done()
					lo, hi := p*n/parts, (p+1)*n/parts
					part := &Dataset{Name: "t", N: hi - lo, D: d, X: ds.X[lo*d : hi*d]}
					s, err := FitScalerParts(part, p == 0, func(buf []float64) error { return red.reduce(buf) })
					if err != nil {
						t.Error(err)
					}
					got[p] = s
				}(p)
			}
			wg.Wait()
			for p, s := range got {
				if s == nil {
					continue
				}
				if !slices.Equal(s.ConstantColumns, want.ConstantColumns) {
					t.Errorf("part %d: constant columns %v, want %v", p, s.ConstantColumns, want.ConstantColumns)
				}
				for j := 0; j < d; j++ {
					if math.Abs(s.Mean[j]-want.Mean[j]) > 1e-12 || math.Abs(s.Scale[j]/want.Scale[j]-1) > 1e-12 {
						t.Errorf("part %d column %d: %g/%g, want %g/%g", p, j, s.Mean[j], s.Scale[j], want.Mean[j], want.Scale[j])
					}
				}
			}
		})
	}
}

// sumReducer sums the buffers of parts goroutines, call by call, as an all-reduce does.
type sumReducer struct {
	mu    sync.Mutex
	cond  *sync.Cond
	parts int
	sum   []float64
	in    int   // parts that added their buffer to this round's sum
	out   int   // parts that copied this round's result
	round int64 // completed rounds
}

func newSumReducer(parts int) *sumReducer {
	r := &sumReducer{parts: parts}
	r.cond = sync.NewCond(&r.mu)
	return r
}

func (r *sumReducer) reduce(buf []float64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.in == r.parts { // the previous round is still being read
		r.cond.Wait()
	}
	if r.in == 0 {
		r.sum = make([]float64, len(buf))
	}
	for i, v := range buf {
		r.sum[i] += v
	}
	r.in++
	round := r.round
	if r.in == r.parts {
		r.round++
		r.cond.Broadcast()
	}
	for r.round == round {
		r.cond.Wait()
	}
	copy(buf, r.sum)
	r.out++
	if r.out == r.parts {
		r.in, r.out = 0, 0
		r.cond.Broadcast()
	}
	return nil
}

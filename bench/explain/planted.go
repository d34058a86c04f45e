package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"

	"github.com/udocc/udocc/bench/internal/synth"
	"github.com/udocc/udocc/data"
)

// plantedTable is the planted table of the explanation issues: n rows of d features, of
// which anomalies are normal rows with one to three features moved by five standard
// deviations (the synth package's shifted kind, the moved features known), the others
// normal rows with correlated features: x = A z + 0.3 ε, z five standard normal factors
// and A fixed by the seed, around one of three cluster centres.
func plantedTable(n, d, anomalies int, seed uint64) (*data.Dataset, [][]int, error) {
	if anomalies < 1 || anomalies >= n {
		return nil, nil, fmt.Errorf("planted: %d anomalies in %d rows", anomalies, n)
	}
	r := rand.New(rand.NewPCG(seed, 43))
	const factors, clusters = 5, 3
	a := make([]float64, d*factors)
	for i := range a {
		a[i] = r.NormFloat64()
	}
	centres := make([]float64, clusters*d)
	for i := range centres {
		centres[i] = 3 * r.NormFloat64()
	}
	normals := n - anomalies
	x := make([]float64, normals*d)
	z := make([]float64, factors)
	for i := 0; i < normals; i++ {
		c := centres[r.IntN(clusters)*d:][:d]
		for k := range z {
			z[k] = r.NormFloat64()
		}
		for j := 0; j < d; j++ {
			v := c[j] + 0.3*r.NormFloat64()
			for k, zk := range z {
				v += a[j*factors+k] * zk
			}
			x[i*d+j] = v
		}
	}
	g, err := synth.NewGenerator(x, normals, d, seed, synth.Options{})
	if err != nil {
		return nil, nil, err
	}
	ds, causes, err := g.DatasetCauses(synth.Shifted, float64(anomalies)/float64(n), seed)
	if err != nil {
		return nil, nil, err
	}
	ds.Name = fmt.Sprintf("planted-d%d", d)
	return ds, causes, nil
}

// writePlanted writes the planted table to path as CSV (the features only, named
// x1…xd) and its labels and moved features to path + ".truth" (row,label,moved).
func writePlanted(path string, n, d, anomalies int, seed uint64) error {
	ds, causes, err := plantedTable(n, d, anomalies, seed)
	if err != nil {
		return err
	}
	write := func(p string, body func(w *bufio.Writer)) error {
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		w := bufio.NewWriter(f)
		body(w)
		if err := w.Flush(); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	err = write(path, func(w *bufio.Writer) {
		for j := 0; j < d; j++ {
			if j > 0 {
				w.WriteByte(',')
			}
			fmt.Fprintf(w, "x%d", j+1)
		}
		w.WriteByte('\n')
		for i := 0; i < ds.N; i++ {
			for j, v := range ds.Row(i) {
				if j > 0 {
					w.WriteByte(',')
				}
				w.WriteString(strconv.FormatFloat(float64(v), 'g', -1, 32))
			}
			w.WriteByte('\n')
		}
	})
	if err != nil {
		return err
	}
	return write(path+".truth", func(w *bufio.Writer) {
		w.WriteString("row,label,moved\n")
		for i := 0; i < ds.N; i++ {
			fmt.Fprintf(w, "%d,%d,", i, ds.Y[i])
			for k, j := range causes[i] {
				if k > 0 {
					w.WriteByte(' ')
				}
				fmt.Fprintf(w, "x%d", j+1)
			}
			w.WriteByte('\n')
		}
	})
}

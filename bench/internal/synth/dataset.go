package synth

import (
	"fmt"
	"strconv"

	"github.com/udocc/udocc/data"
)

// NewFromDataset returns a Generator over the rows of ds labelled 0 (its
// normals), keeping ds.Name as the base name and ds.Features as the
// feature names of the tables. ds must carry labels and at least one
// normal row.
func NewFromDataset(ds *data.Dataset, seed uint64, opts Options) (*Generator, error) {
	if ds.Y == nil {
		return nil, fmt.Errorf("synth: %s has no labels, so its normal rows are unknown: %w", ds.Name, ErrInput)
	}
	normals := make([]float64, 0, (ds.N-ds.Anomalies())*ds.D)
	for i, y := range ds.Y {
		if y == 0 {
			for _, v := range ds.Row(i) {
				normals = append(normals, float64(v))
			}
		}
	}
	if len(normals) == 0 {
		return nil, fmt.Errorf("synth: %s has no rows labelled 0: %w", ds.Name, ErrInput)
	}
	g, err := NewGenerator(normals, len(normals)/ds.D, ds.D, seed, opts)
	if err != nil {
		return nil, fmt.Errorf("synth: %s: %w", ds.Name, err)
	}
	g.base = ds.Name
	g.features = append([]string(nil), ds.Features...)
	return g, nil
}

// Dataset returns Table(kind, ratio, seed) as a data.Dataset named by
// Spec.Name ("cardio-local-5"), with the base data set's feature names
// ("x1"…"xd" for a Generator made by NewGenerator), its values rounded to the float32
// a data.Dataset holds.
func (g *Generator) Dataset(kind Kind, ratio float64, seed uint64) (*data.Dataset, error) {
	ds, _, err := g.DatasetCauses(kind, ratio, seed)
	return ds, err
}

// DatasetCauses is Dataset, and the rows' causes as TableCauses gives them.
func (g *Generator) DatasetCauses(kind Kind, ratio float64, seed uint64) (*data.Dataset, [][]int, error) {
	x, y, causes, err := g.TableCauses(kind, ratio, seed)
	if err != nil {
		return nil, nil, err
	}
	features := g.features
	if features == nil {
		features = make([]string, g.d)
		for j := range features {
			features[j] = "x" + strconv.Itoa(j+1)
		}
	}
	spec := Spec{Base: g.base, Kind: kind, Ratio: ratio, Seed: seed}
	return &data.Dataset{
		Name:     spec.Name(),
		N:        len(y),
		D:        g.d,
		X:        narrow(x),
		Y:        y,
		Features: append([]string(nil), features...),
	}, causes, nil
}

// narrow is x as a data.Dataset holds it, in float32.
func narrow(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

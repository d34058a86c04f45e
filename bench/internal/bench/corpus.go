package bench

import (
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// The corpus of the count study (`udocc-bench --study --real --corpus DIR`): every table
// that DIR/GROUPS.csv lists (odds/, adbench/, real/), each with its source group, and
// resampled copies of each, drawn to other shares of anomalies. A copy stays in its
// table's group: anything learned from the corpus is judged leave-one-group-out, and a
// copy of a held-out table is held out with it.

// GroupsFile is the corpus's table of tables and source groups.
const GroupsFile = "GROUPS.csv"

// The resampled copies' shares are drawn log-uniformly from CopyLow to CopyHigh, and a
// copy has at most CopyMaxRows rows (fewer than an original table's RealMaxRows: the
// copies are many, and a share is judged as well on 20,000 rows as on 50,000).
const (
	CopyLow     = 0.002
	CopyHigh    = 0.40
	CopyMaxRows = 20000
)

// CorpusTable is a table that a corpus's GROUPS.csv lists: its name (its path under the
// corpus without the extension), its source group and its file.
type CorpusTable struct {
	Name, Group, Path string
}

// ReadCorpus lists the tables of dir's GROUPS.csv in its order. A table the file lists
// but the folder lacks is an error, and so is a file that lists none.
func ReadCorpus(dir string) ([]CorpusTable, error) {
	path := filepath.Join(dir, GroupsFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("bench: corpus: %w", err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("bench: corpus: %s: %w", path, err)
	}
	var out []CorpusTable
	for i, r := range recs {
		if i == 0 && len(r) >= 2 && r[0] == "table" {
			continue
		}
		if len(r) != 2 || r[0] == "" || r[1] == "" {
			return nil, fmt.Errorf("bench: corpus: %s: row %d: want table,group", path, i+1)
		}
		p := filepath.Join(dir, filepath.FromSlash(r[0]))
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("bench: corpus: %s: row %d: %w", path, i+1, err)
		}
		out = append(out, CorpusTable{Name: strings.TrimSuffix(r[0], filepath.Ext(r[0])), Group: r[1], Path: p})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("bench: corpus: %s lists no tables", path)
	}
	return out, nil
}

// corpusTables lists the tables of o.Corpus's GROUPS.csv (ReadCorpus), each followed by
// o.Copies resampled copies.
func corpusTables(o RealOptions) ([]realTable, error) {
	tables, err := ReadCorpus(o.Corpus)
	if err != nil {
		return nil, err
	}
	var out []realTable
	for _, t := range tables {
		out = append(out, realTable{name: t.Name, group: t.Group, path: t.Path})
		for c, s := range copyShares(t.Name, o.Copies) {
			out = append(out, realTable{
				name: fmt.Sprintf("%s~copy%d", t.Name, c), group: t.Group, path: t.Path,
				source: t.Name, share: s,
			})
		}
	}
	return out, nil
}

// copyShares are the k shares of a table's copies: log-uniform on [CopyLow, CopyHigh],
// one draw in each of k equal strata of ln(share) (so that the copies of one table
// spread over the range), from a seed of the table's name.
func copyShares(name string, k int) []float64 {
	var h uint64 = 14695981039346656037
	for _, c := range []byte(name) {
		h = (h ^ uint64(c)) * 1099511628211
	}
	rng := rand.New(rand.NewPCG(h, 0xc0b1e5))
	lo, hi := math.Log(CopyLow), math.Log(CopyHigh)
	out := make([]float64, k)
	for i := range out {
		u := (float64(i) + rng.Float64()) / float64(k)
		out[i] = math.Exp(lo + u*(hi-lo))
	}
	return out
}

// copyRows draws the rows of a copy of a table with labels y at the given share of
// anomalies, at most maxRows rows, from seed: below the table's share its anomalies are
// subsampled (every normal row kept), above it its normal rows (every anomaly kept); a
// copy keeps at least one anomaly and at least 20 normal rows. Then, above maxRows, the
// rows are thinned evenly over both classes.
func copyRows(y []int, share float64, maxRows int, seed uint64) []int {
	var norm, anom []int
	for i, v := range y {
		if v == 1 {
			anom = append(anom, i)
		} else {
			norm = append(norm, i)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0xc0b1e5))
	rng.Shuffle(len(norm), func(i, j int) { norm[i], norm[j] = norm[j], norm[i] })
	rng.Shuffle(len(anom), func(i, j int) { anom[i], anom[j] = anom[j], anom[i] })
	nn, na := len(norm), len(anom)
	if float64(na)/float64(nn+na) > share {
		na = int(math.Round(share * float64(nn) / (1 - share)))
	} else {
		nn = int(math.Round(float64(na) * (1 - share) / share))
	}
	na = max(na, 1)
	nn = max(nn, min(20, len(norm)))
	if tot := nn + na; tot > maxRows {
		f := float64(maxRows) / float64(tot)
		nn = max(int(float64(nn)*f), 1)
		na = max(int(math.Round(float64(na)*f)), 1)
	}
	rows := append(append([]int(nil), norm[:min(nn, len(norm))]...), anom[:min(na, len(anom))]...)
	return rows
}

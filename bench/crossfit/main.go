// Command crossfit measures cross-fitted scores for the count study (issue 40): on every
// table of a corpus's GROUPS.csv and its resampled copies (the count study's own, from
// bench.CopyShares and bench.CopyRows), it draws two disjoint random halves of the rows
// (each at most the default's training sample, 2,048 rows), fits the default detector
// on each half alone, and scores every row of the table with both fits. A row's score
// from the fit that did not train on it is out of sample; from the fit that did, in
// sample. It writes one CSV per table (label, the half the row is in: 1, 2 or 0 for
// neither; both fits' scores) and one JSON line per table. It is a measurement, not a
// test: docs/threshold.md reads its files.
//
//	go run ./bench/crossfit -corpus ../shared/data -out /tmp/xfit
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/udocc/udocc/bench/internal/bench"
	"github.com/udocc/udocc/data"
	udocc "github.com/udocc/udocc/internal/detector"
	"github.com/udocc/udocc/internal/torch"
	"github.com/udocc/udocc/metrics"
)

type record struct {
	Table   string  `json:"table"`
	Group   string  `json:"group"`
	Source  string  `json:"source"`
	Seed    uint64  `json:"seed"`
	N       int     `json:"n"`
	D       int     `json:"d"`
	Half    int     `json:"half"`
	True    float64 `json:"true_ratio"`
	ROCAUC1 float64 `json:"rocauc1"`
	ROCAUC2 float64 `json:"rocauc2"`
	Seconds float64 `json:"seconds"`
}

func main() {
	torch.KeepFreedPages()
	corpus := flag.String("corpus", "../shared/data", "data folder with GROUPS.csv")
	out := flag.String("out", "xfit", "output folder (index.jsonl and one CSV per table)")
	seed := flag.Uint64("seed", 0, "seed of the copies, the halves and the fits")
	copies := flag.Int("copies", 4, "resampled copies of each table")
	half := flag.Int("half", 2048, "rows of a half at most")
	only := flag.String("tables", "", "comma-separated table names to fit; default every table")
	flag.Parse()
	if err := run(*corpus, *out, *seed, *copies, *half, *only); err != nil {
		fmt.Fprintln(os.Stderr, "crossfit:", err)
		os.Exit(1)
	}
}

func run(corpus, out string, seed uint64, copies, half int, only string) error {
	tables, err := bench.ReadCorpus(corpus)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	index := filepath.Join(out, "index.jsonl")
	done, err := bench.DoneLines(index, func(r record) string { return r.Table })
	if err != nil {
		return err
	}
	f, err := os.OpenFile(index, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	want := map[string]bool{}
	for _, t := range strings.Split(only, ",") {
		if t != "" {
			want[t] = true
		}
	}
	for i, t := range tables {
		if len(want) > 0 && !want[t.Name] {
			continue
		}
		names := []string{t.Name}
		shares := []float64{0}
		for c, s := range bench.CopyShares(t.Name, copies) {
			names = append(names, fmt.Sprintf("%s~copy%d", t.Name, c))
			shares = append(shares, s)
		}
		var full *data.Dataset
		for j, name := range names {
			if done[name] {
				continue
			}
			var ds *data.Dataset
			if shares[j] == 0 {
				if ds, _, _, err = bench.LoadRealTable(t.Path, seed, bench.RealMaxRows); err != nil {
					return err
				}
			} else {
				if full == nil {
					if full, _, _, err = bench.LoadRealTable(t.Path, seed, 1<<62); err != nil {
						return err
					}
				}
				ds = bench.Subset(full, bench.CopyRows(full.Y, shares[j], bench.CopyMaxRows, seed))
			}
			r := record{Table: name, Group: t.Group, Source: t.Name, Seed: seed, N: ds.N, D: ds.D,
				True: float64(ds.Anomalies()) / float64(ds.N)}
			t0 := time.Now()
			in, s1, s2, err := crossFit(ds, seed, half)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			r.Seconds = time.Since(t0).Seconds()
			r.Half = len(in)
			if r.ROCAUC1, err = metrics.ROCAUC(ds.Y, s1); err != nil {
				return err
			}
			if r.ROCAUC2, err = metrics.ROCAUC(ds.Y, s2); err != nil {
				return err
			}
			if err := writeRows(filepath.Join(out, strings.ReplaceAll(name, "/", "_")+".csv"), ds.Y, in, s1, s2); err != nil {
				return err
			}
			if err := enc.Encode(r); err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "crossfit: %d/%d %s: n %d, ROCAUC %.3f/%.3f, %.1f s\n", i+1, len(tables), name, ds.N, r.ROCAUC1, r.ROCAUC2, r.Seconds)
		}
	}
	return nil
}

// crossFit fits the default detector on two disjoint random halves of ds's rows (at
// most half rows each) and scores every row with both: in[i] is the half row i is in
// (1, 2, or 0 for neither).
func crossFit(ds *data.Dataset, seed uint64, half int) (in []int8, s1, s2 []float64, err error) {
	perm := rand.New(rand.NewPCG(seed, 0xc5f17)).Perm(ds.N)
	m := min(ds.N/2, half)
	in = make([]int8, ds.N)
	var scores [2][]float64
	for k := range 2 {
		rows := slices.Clone(perm[k*m : (k+1)*m])
		for _, i := range rows {
			in[i] = int8(k + 1)
		}
		sub := bench.Subset(ds, rows)
		model, err := udocc.FitDataset(context.Background(), sub, nil, udocc.Options{Seed: seed + uint64(k)})
		if err != nil {
			return nil, nil, nil, err
		}
		all := *ds
		all.X = slices.Clone(ds.X)
		scores[k], _, err = model.ScoreDataset(context.Background(), &all)
		model.Close()
		if err != nil {
			return nil, nil, nil, err
		}
	}
	return in, scores[0], scores[1], nil
}

func writeRows(path string, y []int, in []int8, s1, s2 []float64) error {
	var b strings.Builder
	b.WriteString("label,half,s1,s2\n")
	for i := range y {
		fmt.Fprintf(&b, "%d,%d,%s,%s\n", y[i], in[i], strconv.FormatFloat(s1[i], 'g', 7, 64), strconv.FormatFloat(s2[i], 'g', 7, 64))
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

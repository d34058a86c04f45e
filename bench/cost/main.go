// Command cost fits udocc's default detector, and variants of it that cost less, on every
// table of a data folder's GROUPS.csv (odds/, adbench/, real/), and writes one JSON line
// per table and variant: rows, ROCAUC, PRAUC, the fit's seconds (FitDataset in this
// process; the table already read) and the flagged share. It is a measurement, not a
// test: bench/notes/cost.md reads its lines, leave-one-group-out, to choose the default's cost
// settings, and gives the command.
//
// A variant is NAME=KEY:VALUE,KEY:VALUE… over the keys train-rows, pretrain-epochs,
// screen-epochs and epochs (the defaults' fields of the same names), bottleneck (the
// default widths, 32,16,8, with this last one), width (widths w, w/2, w/4 on every
// table), members (Members), trim-pct (Trim, in percent),
// pretrain-lr-e5 and lr-e6 (PretrainLR in units of 1e-5, LR in units of 1e-6), batch
// (BatchSize), wd-e7 (WeightDecay in units of 1e-7) and gaussian-pct (Gaussian, in
// percent), member-seed (the members' seeds start at the fit's seed plus this) and
// sample-seed (the training sample, and a wide table's components, are drawn from the
// fit's seed plus this); 0 of train-rows, gaussian-pct,
// pretrain-epochs, screen-epochs or wd-e7 means none, as the flags of udocc fit say it.
// "default" is the defaults as they are.
// Tables above -max-rows rows are fitted on a seeded sample of that many rows, as `udocc
// bench --study --real` does (bench.LoadRealTable: the same rows for the same seed), so
// that the default's lines can be checked against that study's. Lines already in -out
// are kept and their fits skipped: an interrupted run goes on where it stopped.
//
//	go run ./bench/cost -corpus ../shared/data -out /tmp/cost.jsonl \
//	    -variants 'default,all=train-rows:0,s2048=train-rows:2048'
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/udocc/udocc/bench/internal/bench"
	udocc "github.com/udocc/udocc/internal/detector"
	"github.com/udocc/udocc/internal/torch"
	"github.com/udocc/udocc/metrics"
)

// record is one fit: a table under a variant.
type record struct {
	Table   string  `json:"table"`
	Group   string  `json:"group"`
	Variant string  `json:"variant"`
	Seed    uint64  `json:"seed"`
	N       int     `json:"n"`
	D       int     `json:"d"`
	FullN   int     `json:"full_n"`
	True    float64 `json:"true_ratio"`
	ROCAUC  float64 `json:"rocauc"`
	PRAUC   float64 `json:"prauc"`
	Flagged float64 `json:"flagged"`
	Seconds float64 `json:"seconds"`
}

type variant struct {
	name string
	set  func(*udocc.Ensemble, *udocc.Options)
}

func main() {
	// A program owns its process: it keeps the pages its fits free (the library never
	// sets malloc by itself; see torch.KeepFreedPages).
	torch.KeepFreedPages()
	corpus := flag.String("corpus", "../shared/data", "data folder with GROUPS.csv")
	out := flag.String("out", "cost.jsonl", "JSON lines written (appended) here")
	spec := flag.String("variants", "default", "variants: NAME=KEY:VALUE,... joined by ';' (\"default\": the defaults)")
	seed := flag.Uint64("seed", 0, "the fits' seed")
	maxRows := flag.Int("max-rows", 50000, "tables above this many rows are fitted on a seeded sample of it")
	only := flag.String("tables", "", "comma-separated table names (path without extension) to fit; default every table")
	threads := flag.Int("threads", 0, "CPU threads (0: every core)")
	scores := flag.String("scores", "", "also write each fit's per-row scores here, as TABLE-VARIANT-SEED.csv (row of the table, 0-based; label; score)")
	flag.Parse()
	if err := run(*corpus, *out, *spec, *seed, *maxRows, *only, *threads, *scores); err != nil {
		fmt.Fprintln(os.Stderr, "cost:", err)
		os.Exit(1)
	}
}

func run(corpus, out, spec string, seed uint64, maxRows int, only string, threads int, scoreDir string) error {
	vs, err := parseVariants(spec)
	if err != nil {
		return err
	}
	tables, err := bench.ReadCorpus(corpus)
	if err != nil {
		return err
	}
	done, err := bench.DoneLines(out, func(r record) string { return key(r.Table, r.Variant, r.Seed) })
	if err != nil {
		return err
	}
	f, err := os.OpenFile(out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	var want map[string]bool
	if only != "" {
		want = map[string]bool{}
		for _, t := range strings.Split(only, ",") {
			want[t] = true
		}
	}
	for i, t := range tables {
		name := t.Name
		if want != nil && !want[name] {
			continue
		}
		var todo []variant
		for _, v := range vs {
			if !done[key(name, v.name, seed)] {
				todo = append(todo, v)
			}
		}
		if len(todo) == 0 {
			continue
		}
		ds, rowsOf, full, err := bench.LoadRealTable(t.Path, seed, maxRows)
		if err != nil {
			return err
		}
		for _, v := range todo {
			opts := udocc.Options{Seed: seed, Threads: threads}
			var ens udocc.Ensemble
			v.set(&ens, &opts)
			// FitDataset imputes in place; the tables here have no missing cells, but a
			// copy keeps every variant's input the same whatever it does.
			c := *ds
			c.X = slices.Clone(ds.X)
			t0 := time.Now()
			m, err := udocc.FitDataset(context.Background(), &c, ens, opts)
			if err != nil {
				return fmt.Errorf("%s, variant %s: %w", name, v.name, err)
			}
			r := record{Table: name, Group: t.Group, Variant: v.name, Seed: seed, N: ds.N, D: ds.D, FullN: full,
				True: float64(ds.Anomalies()) / float64(ds.N), Seconds: time.Since(t0).Seconds(), Flagged: m.Ratio()}
			scores := m.Scores()
			m.Close()
			if scoreDir != "" {
				if err := writeScores(scoreDir, name, v.name, seed, rowsOf, ds.Y, scores); err != nil {
					return err
				}
			}
			if r.ROCAUC, r.PRAUC, err = metrics.AUCs(ds.Y, scores); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if err := enc.Encode(r); err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "cost: %d/%d %s %s: ROCAUC %.4f, %.1f s\n", i+1, len(tables), name, v.name, r.ROCAUC, r.Seconds)
		}
	}
	return nil
}

func key(table, variant string, seed uint64) string {
	return fmt.Sprintf("%s\x00%s\x00%d", table, variant, seed)
}

// writeScores writes one fit's scores beside each row's index in the table and its label.
func writeScores(dir, table, variant string, seed uint64, rows, y []int, scores []float64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("row,label,score\n")
	for i, s := range scores {
		r := i
		if rows != nil {
			r = rows[i]
		}
		fmt.Fprintf(&b, "%d,%d,%s\n", r, y[i], strconv.FormatFloat(s, 'g', -1, 64))
	}
	name := fmt.Sprintf("%s-%s-%d.csv", strings.ReplaceAll(table, "/", "_"), variant, seed)
	return os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644)
}

func parseVariants(spec string) ([]variant, error) {
	var out []variant
	for _, s := range strings.Split(spec, ";") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if s == "default" {
			out = append(out, variant{name: s, set: func(*udocc.Ensemble, *udocc.Options) {}})
			continue
		}
		name, kvs, ok := strings.Cut(s, "=")
		if !ok {
			return nil, fmt.Errorf("variant %q: want NAME=KEY:VALUE,...", s)
		}
		type kv struct {
			k string
			v int
		}
		var sets []kv
		for _, p := range strings.Split(kvs, ",") {
			k, v, ok := strings.Cut(p, ":")
			n, err := strconv.Atoi(v)
			if !ok || err != nil {
				return nil, fmt.Errorf("variant %s: %q: want KEY:INTEGER", name, p)
			}
			switch k {
			case "train-rows", "pretrain-epochs", "screen-epochs", "epochs", "bottleneck", "width", "members", "trim-pct", "pretrain-lr-e5", "lr-e6", "batch", "wd-e7", "gaussian-pct", "member-seed", "sample-seed":
			default:
				return nil, fmt.Errorf("variant %s: unknown key %q", name, k)
			}
			sets = append(sets, kv{k, n})
		}
		out = append(out, variant{name: name, set: func(e *udocc.Ensemble, o *udocc.Options) {
			seed, members, memberSeed := o.Seed, o.Members, -1
			for _, s := range sets {
				switch s.k {
				case "member-seed": // the members' seeds start at the fit's seed plus this (Seeds)
					memberSeed = s.v
					continue
				case "sample-seed": // the training sample's seed is the fit's seed plus this (Seed)
					o.Seed = seed + uint64(s.v)
					continue
				case "members":
					members = s.v
				}
				if s.v == 0 && s.k != "epochs" {
					// A key's 0 means none (every row, no pretraining, no screening), as
					// the flags of udocc fit say it; the library's zero is its default.
					s.v = -1
				}
				switch s.k {
				case "train-rows":
					e.TrainRows = s.v
				case "pretrain-epochs":
					o.PretrainEpochs = s.v
				case "screen-epochs":
					e.ScreenEpochs = s.v
				case "epochs":
					o.Epochs = s.v
				case "bottleneck": // the default widths with this last one
					o.Hidden = []int{32, 16, s.v}
				case "members": // the ensemble's members (Members)
					o.Members = s.v
				case "width": // widths w, w/2, w/4 on every table (the default: 32,16,8; 32,16,4 up to 8 features)
					o.Hidden = []int{s.v, max(1, s.v/2), max(1, s.v/4)}
				case "trim-pct": // the screening's share left out, in percent
					e.Trim = float64(s.v) / 100
				case "pretrain-lr-e5": // pretraining's learning rate in units of 1e-5
					o.PretrainLR = float64(s.v) * 1e-5
				case "lr-e6": // fine-tuning's learning rate in units of 1e-6
					o.LR = float64(s.v) * 1e-6
				case "batch": // the minibatch's rows
					o.BatchSize = s.v
				case "wd-e7": // Adam's weight decay in units of 1e-7 (0: none)
					o.WeightDecay = float64(s.v) * 1e-7
				case "gaussian-pct": // a projected table's Gaussian weight in percent (0: none)
					e.Gaussian = float64(s.v) / 100
				}
			}
			if memberSeed >= 0 {
				if members == 0 {
					_, def := udocc.Defaults(nil)
					members = def.Members
				}
				o.Seeds = nil
				for k := range members {
					o.Seeds = append(o.Seeds, seed+uint64(memberSeed+k))
				}
			}
		}})
	}
	return out, nil
}

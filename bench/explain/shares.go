package main

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"time"

	"github.com/udocc/udocc/bench/internal/synth"
	"github.com/udocc/udocc/data"
	udocc "github.com/udocc/udocc/internal/detector"
)

// shareStats are the figures of the explanations issue on one table's flagged rows.
type shareStats struct {
	rows        int     // flagged rows explained
	firstPos    int     // rows whose first share is positive
	meanTop3    float64 // mean over rows of the top three raising parts over the rise
	meanFirst   float64 // mean over rows of the first share (raising shares)
	negTop      int     // rows with a negative share among the top five
	badSum      int     // rows whose raising shares do not sum to 1 (1e-9), where some raise
	noneRaise   int     // rows where no feature raises the score
	interacts   int     // rows whose interaction is reported
	interactNot int     // of those, rows where no single feature's part is ≥ half the rise
	halfGroup   int     // rows where no single feature carries half the rise (Carrying(0.5) longer than one)
	halfSizes   []int   // their Carrying(0.5) lengths
	meanOff     float64 // mean over rows of the features at least 3 MADs off the normal median
	seconds     float64
}

// statsOf explains rows of ds by o and gathers shareStats.
func statsOf(m *udocc.Model, ds *data.Dataset, rows []int, o udocc.ExplainOptions) (shareStats, []udocc.Attribution, error) {
	var s shareStats
	start := time.Now()
	atts, err := m.ExplainDataset(context.Background(), ds, rows, o)
	if err != nil {
		return s, nil, err
	}
	s.seconds = time.Since(start).Seconds()
	median, spread := m.Normal()
	for r, a := range atts {
		s.rows++
		for j, v := range ds.Row(rows[r]) {
			if math.Abs(float64(v)-median[j]) >= 3*spread[j] && spread[j] > 0 {
				s.meanOff++
			}
		}
		sh := a.Shares()
		top := a.Top(5)
		if len(top) == 0 {
			s.noneRaise++
		} else if sh[top[0]] > 0 {
			s.firstPos++
			s.meanFirst += sh[top[0]]
		}
		sum, t3 := 0.0, 0.0
		for _, v := range sh {
			sum += v
		}
		if len(top) > 0 && math.Abs(sum-1) > 1e-9 {
			s.badSum++
		}
		for q, j := range top {
			if sh[j] < 0 {
				s.negTop++
				break
			}
			if q < 3 {
				t3 += a.Features[j]
			}
		}
		if a.Rise() > 0 {
			s.meanTop3 += t3 / a.Rise()
		}
		if half := a.Carrying(0.5); len(half) > 1 {
			s.halfGroup++
			s.halfSizes = append(s.halfSizes, len(half))
		}
		if a.Interacts() {
			s.interacts++
			if len(top) == 0 || a.Features[top[0]] < a.Rise()/2 {
				s.interactNot++
			}
		}
	}
	if s.rows > 0 {
		s.meanTop3 /= float64(s.rows)
		s.meanFirst /= float64(s.rows)
		s.meanOff /= float64(s.rows)
	}
	return s, atts, nil
}

// sharesReport fits the default detector on each set and reports, for its flagged rows,
// the figures of the explanations issue, by the default (Shapley) and by occlusion.
func sharesReport(dir string, names []string, threads, samples int) error {
	opts := udocc.Options{Threads: threads}
	fmt.Println("| set | d | flagged | method | first share > 0 | no feature raises | mean first share | top three of the rise, mean | negative top-5 share | shares ≠ 1 | interaction reported (of them, no feature ≥ half the rise) | no feature carries half the rise: rows (features to carry it, median) | features ≥ 3 MADs off the normal median, mean | s |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, name := range names {
		ds, err := data.Load(filepath.Join(dir, name+".mat"), data.LoadOptions{})
		if err != nil {
			return err
		}
		m, err := udocc.FitDataset(context.Background(), ds, nil, opts)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		rows := flaggedRows(m)
		for _, o := range []udocc.ExplainOptions{{Samples: samples}, {Method: udocc.Occlusion}} {
			s, _, err := statsOf(m, ds, rows, o)
			if err != nil {
				m.Close()
				return fmt.Errorf("%s: %w", name, err)
			}
			meth := string(o.Method)
			if meth == "" {
				meth = "default (" + m.DefaultExplainMethod() + ")"
			}
			med := "–"
			if len(s.halfSizes) > 0 {
				slices.Sort(s.halfSizes)
				med = fmt.Sprint(s.halfSizes[len(s.halfSizes)/2])
			}
			fmt.Printf("| %s | %d | %d | %s | %d | %d | %.3f | %.1f %% | %d | %d | %d (%d) | %d (%s) | %.1f | %.2f |\n", name, ds.D, s.rows, meth, s.firstPos, s.noneRaise,
				s.meanFirst, 100*s.meanTop3, s.negTop, s.badSum, s.interacts, s.interactNot, s.halfGroup, med, s.meanOff, s.seconds)
		}
		m.Close()
	}
	return nil
}

// agreementReport fits the default detector on each table of at most
// ExactShapleyFeatures features (the sets named, and planted tables: shifted tables of
// those sets and of plantedTable at d = 10) and reports the share of flagged rows whose
// top feature by each method is exact Shapley's, and, for the planted anomalies, how
// often each method's top three hold all the moved features (faithfulness).
func agreementReport(dir string, names []string, threads, seeds int) error {
	opts := udocc.Options{Threads: threads}
	others := []struct {
		name string
		o    udocc.ExplainOptions
	}{
		{"default", udocc.ExplainOptions{}},
		{"sampled Shapley (16 permutations)", udocc.ExplainOptions{Samples: 16}},
		{"sampled Shapley (8 permutations)", udocc.ExplainOptions{Samples: 8}},
		{"sampled Shapley (4 permutations)", udocc.ExplainOptions{Samples: 4}},
		{"occlusion", udocc.ExplainOptions{Method: udocc.Occlusion}},
		{"integrated gradients", udocc.ExplainOptions{Method: udocc.IntegratedGradients}},
	}
	type table struct {
		ds     *data.Dataset
		causes [][]int
	}
	var tables []table
	for _, name := range names {
		ds, err := data.Load(filepath.Join(dir, name+".mat"), data.LoadOptions{})
		if err != nil {
			return err
		}
		if ds.D > udocc.ExactShapleyFeatures {
			return fmt.Errorf("%s has %d features, more than %d", name, ds.D, udocc.ExactShapleyFeatures)
		}
		tables = append(tables, table{ds, nil})
		gen, err := synth.NewFromDataset(ds, 0, synth.Options{})
		if err != nil {
			return err
		}
		for s := 0; s < seeds; s++ {
			t, causes, err := gen.DatasetCauses(synth.Shifted, 0.05, uint64(s))
			if err != nil {
				return err
			}
			tables = append(tables, table{t, causes})
		}
	}
	for s := 0; s < seeds; s++ {
		t, causes, err := plantedTable(2000, 10, 100, uint64(s))
		if err != nil {
			return err
		}
		t.Name = fmt.Sprintf("planted-d10-%d", s)
		tables = append(tables, table{t, causes})
	}
	fmt.Print("| table | d | flagged | planted among them |")
	for _, o := range others {
		fmt.Printf(" %s: top = exact's, %% |", o.name)
	}
	fmt.Print(" exact Shapley: faithful, % |")
	for _, o := range others {
		fmt.Printf(" %s: faithful, %% |", o.name)
	}
	fmt.Println()
	fmt.Printf("|---|---|---|---|%s\n", stringsRepeat("---|", 2*len(others)+1))
	agreeAll, rowsAll := make([]int, len(others)), 0
	faithAll, plantedAll := make([]int, len(others)+1), 0
	for _, tb := range tables {
		m, err := udocc.FitDataset(context.Background(), tb.ds, nil, opts)
		if err != nil {
			return fmt.Errorf("%s: %w", tb.ds.Name, err)
		}
		rows := flaggedRows(m)
		exact, err := m.ExplainDataset(context.Background(), tb.ds, rows, udocc.ExplainOptions{Exact: true})
		if err != nil {
			m.Close()
			return err
		}
		agree, faith, planted := make([]int, len(others)), make([]int, len(others)+1), 0
		isPlanted := func(r int) bool { return tb.causes != nil && tb.ds.Y[rows[r]] == 1 && len(tb.causes[rows[r]]) > 0 }
		faithful := func(a udocc.Attribution, r int) int { return int(hit(a.Top(3), tb.causes[rows[r]]).all) }
		for r, a := range exact {
			if isPlanted(r) {
				planted++
				faith[0] += faithful(a, r)
			}
		}
		for k, o := range others {
			atts, err := m.ExplainDataset(context.Background(), tb.ds, rows, o.o)
			if err != nil {
				m.Close()
				return err
			}
			for r, a := range atts {
				et, ot := exact[r].Top(1), a.Top(1)
				if len(et) > 0 && len(ot) > 0 && et[0] == ot[0] {
					agree[k]++
				}
				if isPlanted(r) {
					faith[k+1] += faithful(a, r)
				}
			}
		}
		m.Close()
		fmt.Printf("| %s | %d | %d | %d |", tb.ds.Name, tb.ds.D, len(rows), planted)
		for k := range others {
			fmt.Printf(" %s |", pct(float64(agree[k]), float64(len(rows))))
			agreeAll[k] += agree[k]
		}
		for k := range faith {
			fmt.Printf(" %s |", pct(float64(faith[k]), float64(planted)))
			faithAll[k] += faith[k]
		}
		fmt.Println()
		rowsAll += len(rows)
		plantedAll += planted
	}
	fmt.Printf("| **all** | | %d | %d |", rowsAll, plantedAll)
	for k := range others {
		fmt.Printf(" **%s** |", pct(float64(agreeAll[k]), float64(rowsAll)))
	}
	for k := range faithAll {
		fmt.Printf(" **%s** |", pct(float64(faithAll[k]), float64(plantedAll)))
	}
	fmt.Println()
	return nil
}

func stringsRepeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}

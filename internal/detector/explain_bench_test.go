package detector_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/udocc/udocc/internal/detector"
)

// BenchmarkExplain is the default explanation (Shapley: 8 permutations of satellite's 36
// features, 280 scored rows a row, through the ensemble's 10 networks) of satellite's
// 200 highest-scored rows, under the default model, on 1 and 2 threads. The part of the
// time that does not halve from 1 thread to 2 is the host's serial work between the
// shim's parallel calls.
func BenchmarkExplain(b *testing.B) {
	ds, m := oddsFit(b, "satellite.mat")
	defer m.Close()
	s := m.Scores()
	rows := make([]int, ds.N)
	for i := range rows {
		rows[i] = i
	}
	slices.SortStableFunc(rows, func(a, b int) int { return cmp.Compare(s[b], s[a]) })
	rows = rows[:200]
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			m.SetThreads(threads)
			for i := 0; i < b.N; i++ {
				if _, err := m.ExplainDataset(context.Background(), ds, rows, detector.ExplainOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/float64(len(rows))*1000, "µs/row")
		})
	}
}

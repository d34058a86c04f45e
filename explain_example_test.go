package udocc_test

import (
	"context"
	"fmt"

	"github.com/udocc/udocc"
)

// ExampleModel_Explain names the features that drive the score of each flagged row,
// with their shares, against the normal rows' median.
func ExampleModel_Explain() {
	rows := shiftedTable(200, 4, 3) // every tenth row departs in its third feature
	m, err := udocc.Fit(context.Background(), rows, quick())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	atts, err := m.Explain(rows)
	if err != nil {
		fmt.Println(err)
		return
	}
	median, spread := m.Normal()
	for i, a := range atts {
		if !m.Labels()[i] {
			continue
		}
		top := a.Top(1)
		if len(top) == 0 {
			continue
		}
		j := top[0]
		fmt.Printf("row %d: score %.3g; feature %d (%.3g, normally %.3g ± %.3g) has %.0f %% of it\n",
			i, a.Score, j+1, rows[i][j], median[j], spread[j], 100*a.Shares()[j])
	}
}

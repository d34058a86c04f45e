package udocc_test

import (
	"context"
	"fmt"

	"github.com/udocc/udocc"
)

// ExampleModel_Explain names the feature that raises each planted row's score most. Every
// tenth row of the table departs from the bulk by +8 in its third feature alone, so the
// third is the feature that leads on every one of them.
func ExampleModel_Explain() {
	rows := shiftedTable(200, 4, 3)
	m, err := udocc.Fit(context.Background(), rows, nil, quick())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	atts, err := m.Explain(context.Background(), rows)
	if err != nil {
		fmt.Println(err)
		return
	}
	planted, third := 0, 0
	for i, a := range atts {
		if i%10 != 9 {
			continue
		}
		planted++
		if top := a.Top(1); len(top) == 1 && top[0] == 2 {
			third++
		}
	}
	fmt.Printf("%d planted rows; the third feature leads on %d of them\n", planted, third)
	// Output:
	// 20 planted rows; the third feature leads on 20 of them
}

// shiftedTable is table's normal rows, with every tenth row moved by 8 in feature 2
// alone: the feature that explains those rows is known.
func shiftedTable(n, d int, seed uint64) [][]float64 {
	rows := table(n, d, seed)
	for i := range rows {
		if i%10 == 9 {
			for j := range rows[i] {
				rows[i][j] -= 8
			}
			rows[i][2] += 8
		}
	}
	return rows
}

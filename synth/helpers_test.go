package synth

import (
	"fmt"
	"slices"
)

// rowsOf returns the rows of x (row-major, d columns) whose label is want,
// each rendered as an exact string, sorted.
func rowsOf(x []float64, y []int, d, want int) []string {
	var rows []string
	for i, yi := range y {
		if yi == want {
			rows = append(rows, fmt.Sprint(x[i*d:(i+1)*d]))
		}
	}
	slices.Sort(rows)
	return rows
}

// sameMultiset reports whether two sorted row lists are equal.
func sameMultiset(a, b []string) bool { return slices.Equal(a, b) }

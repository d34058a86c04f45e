package bench

import "github.com/udocc/udocc/data"

// CopyShares are the shares of anomalies of a table's k resampled copies in the count
// study's corpus (log-uniform on [CopyLow, CopyHigh], one in each of k strata of
// ln(share), from a seed of the table's name): the study's own copies, for tools that
// measure a count on them outside the study.
func CopyShares(name string, k int) []float64 { return copyShares(name, k) }

// CopyRows are the rows (indices into y) of the study's copy of a table with labels y at
// the given share of anomalies, at most maxRows rows, from seed; Subset makes the copy.
func CopyRows(y []int, share float64, maxRows int, seed uint64) []int {
	return copyRows(y, share, maxRows, seed)
}

// Subset is a new table of ds's rows that rows lists (sorted into table order, as the
// study's copies are: keepRows), labels kept; ds is not changed.
func Subset(ds *data.Dataset, rows []int) *data.Dataset {
	c := *ds
	keepRows(&c, rows)
	return &c
}

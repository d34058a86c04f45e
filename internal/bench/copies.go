package bench

// CopyShares are the shares of anomalies of a table's k resampled copies in the count
// study's corpus (log-uniform on [CopyLow, CopyHigh], one in each of k strata of
// ln(share), from a seed of the table's name): the study's own copies, for tools that
// measure a count on them outside the study.
func CopyShares(name string, k int) []float64 { return copyShares(name, k) }

// CopyRows are the rows (indices into y, in table order) of the study's copy of a table
// with labels y at the given share of anomalies, at most maxRows rows, from seed.
func CopyRows(y []int, share float64, maxRows int, seed uint64) []int {
	rows := copyRows(y, share, maxRows, seed)
	return rows
}

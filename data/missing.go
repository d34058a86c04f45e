package data

import (
	"fmt"
	"slices"
)

// dropColumns leaves the features cols (0-based, ascending) out of ds, in place.
func (ds *Dataset) dropColumns(cols []int) error {
	if len(cols) == 0 {
		return nil
	}
	keep := make([]int, 0, ds.D-len(cols))
	for j := range ds.D {
		if !slices.Contains(cols, j) {
			keep = append(keep, j)
		}
	}
	if len(keep) == 0 {
		return fmt.Errorf("no numeric feature columns are left: %w", errEmpty)
	}
	x := ds.X[:0]
	for i := range ds.N {
		row := ds.X[i*ds.D : (i+1)*ds.D]
		for _, j := range keep {
			x = append(x, row[j]) // never ahead of what is read: len(keep) < D
		}
	}
	features := make([]string, len(keep))
	for k, j := range keep {
		features[k] = ds.Features[j]
	}
	if ds.Missing != nil {
		missing := make([]int, len(keep))
		for k, j := range keep {
			missing[k] = ds.Missing[j]
		}
		ds.Missing = missing
	}
	ds.X, ds.D, ds.Features = x, len(keep), features
	return nil
}

// settleMissing counts ds's missing cells (NaN in X) per column, leaves out the
// columns with no value at all (EmptyColumns), and the rows the policy leaves out:
// those with no value at all under MissingKeep (EmptyRows), those with any missing
// cell under MissingDropRows (RowsDropped). A data-parallel block (part) refuses
// missing cells: its ranks could not agree on the columns and rows they leave out.
//
// keepEmpty keeps the rows every feature of which is missing, for a reader that adds
// features after (the text columns' encoding), which then leaves them out
// (dropEmptyRows).
func (ds *Dataset) settleMissing(policy Missing, part, keepEmpty bool) error {
	count := make([]int, ds.D)
	any := false
	for k, v := range ds.X {
		if v != v {
			count[k%ds.D]++
			any = true
		}
	}
	if !any {
		return nil
	}
	if part {
		for k, v := range ds.X {
			if v != v {
				return fmt.Errorf("row %d, column %d (%s): a missing value, which a data-parallel fit does not take (fill it in first): %w",
					k/ds.D+1, k%ds.D+1, quoteValue(ds.Features[k%ds.D]), ErrMissingValue)
			}
		}
	}
	ds.Missing = count
	var empty []int
	for j, c := range count {
		if c == ds.N {
			empty = append(empty, j)
			ds.EmptyColumns = append(ds.EmptyColumns, ds.Features[j])
		}
	}
	if len(empty) == ds.D {
		return fmt.Errorf("every cell of columns %s is missing: %w", quoteList(ds.Features, 12), errEmpty)
	}
	if err := ds.dropColumns(empty); err != nil {
		return err
	}
	keep := make([]int, 0, ds.N)
	for i := range ds.N {
		nan := 0
		for _, v := range ds.X[i*ds.D : (i+1)*ds.D] {
			if v != v {
				nan++
			}
		}
		switch {
		case nan == 0:
			keep = append(keep, i)
		case policy == MissingDropRows:
			ds.RowsDropped++
		case nan == ds.D && !keepEmpty:
			ds.EmptyRows = append(ds.EmptyRows, i)
		default:
			keep = append(keep, i)
		}
	}
	if len(keep) < ds.N {
		if len(keep) == 0 {
			return remedyError(errEmpty, fmt.Sprintf("every row has a missing value (%d rows), so ", ds.N), setting("Missing", string(MissingDropRows)), " leaves none")
		}
		ds.keepRows(keep)
	}
	for j := range ds.Missing {
		ds.Missing[j] = 0
	}
	left := 0
	for k, v := range ds.X {
		if v != v {
			ds.Missing[k%ds.D]++
			left++
		}
	}
	if left == 0 {
		ds.Missing = nil // nothing missing is left
	}
	return nil
}

// keepRows keeps the rows keep (0-based, ascending) of ds, with their labels and ids,
// in place, and records each one's place in the file (RowIndex).
func (ds *Dataset) keepRows(keep []int) {
	x := ds.X[:0]
	for _, i := range keep {
		x = append(x, ds.X[i*ds.D:(i+1)*ds.D]...)
	}
	if ds.Y != nil {
		y := ds.Y[:0]
		for _, i := range keep {
			y = append(y, ds.Y[i])
		}
		ds.Y = y
	}
	if ds.IDs != nil {
		ids := ds.IDs[:0]
		for _, i := range keep {
			ids = append(ids, ds.IDs[i])
		}
		ds.IDs = ids
	}
	ds.X, ds.N, ds.RowIndex = x, len(keep), keep
}

// dropEmptyRows leaves out the rows every feature of which is missing, numeric and
// encoded alike, recording their place in the file in EmptyRows, as settleMissing does
// for a table read in one pass.
func (ds *Dataset) dropEmptyRows() error {
	keep := make([]int, 0, ds.N)
	for i := range ds.N {
		empty := true
		for _, v := range ds.Row(i) {
			if v == v {
				empty = false
				break
			}
		}
		if !empty {
			keep = append(keep, i)
			continue
		}
		row := i
		if ds.RowIndex != nil {
			row = ds.RowIndex[i]
		}
		ds.EmptyRows = append(ds.EmptyRows, row)
	}
	if len(keep) == ds.N {
		return nil
	}
	if len(keep) == 0 {
		return fmt.Errorf("every row's every cell is missing (%d rows): %w", ds.N, errEmpty)
	}
	before := ds.RowIndex
	ds.keepRows(keep)
	if before != nil {
		for k, i := range ds.RowIndex {
			ds.RowIndex[k] = before[i]
		}
	}
	slices.Sort(ds.EmptyRows)
	if ds.Missing != nil {
		clear(ds.Missing)
		left := 0
		for k, v := range ds.X {
			if v != v {
				ds.Missing[k%ds.D]++
				left++
			}
		}
		if left == 0 {
			ds.Missing = nil
		}
	}
	return nil
}

package data

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxHeaderBytes bounds the first line hasScoreColumns reads of a CSV file.
const maxHeaderBytes = 1 << 20

// HasScoreColumns reports whether the table at path has ScoreColumns side by side among
// its column names. It reads the first line of a CSV file (at most 1 MiB), or the
// schema of a Parquet file (by its extension). That is how udocc knows a file it wrote
// before, which it may write over. A file it cannot read as either is not one (false,
// nil). Only an error opening path is returned.
func HasScoreColumns(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var names []string
	if strings.EqualFold(filepath.Ext(path), ".parquet") {
		st, err := f.Stat()
		if err != nil {
			return false, err
		}
		pf, err := openParquet(f, st.Size())
		if err != nil {
			return false, nil
		}
		for _, c := range pf.Root().Columns() {
			names = append(names, c.Name())
		}
	} else {
		line, err := bufio.NewReaderSize(f, maxHeaderBytes).ReadSlice('\n')
		if err != nil { // no line end in the first MiB, or none at all
			return false, nil
		}
		if names, err = csv.NewReader(bytes.NewReader(line)).Read(); err != nil {
			return false, nil
		}
	}
	// Where udocc writes them: last, after the table's columns (--append-to), or after
	// row and an optional id column (scores.csv).
	sc := ScoreColumns()
	k := len(sc)
	at := func(i int) bool { return i >= 0 && i+k <= len(names) && slices.Equal(names[i:i+k], sc) }
	scoresCSV := len(names) > 0 && names[0] == "row" && (at(1) || at(2))
	return at(len(names)-k) || scoresCSV, nil
}

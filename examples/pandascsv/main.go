// Command pandascsv writes visits.csv and visits-eu.csv (';' and decimal commas) into a
// folder: a table made the way pandas writes one, with an unnamed index, a category, a
// date, blank cells and a label (package internal/pandascsv).
//
//	go run ./examples/pandascsv [-n 400] [-seed 1] DIR
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/udocc/udocc/internal/pandascsv"
)

func main() {
	n := flag.Int("n", 400, "rows (at least 20)")
	seed := flag.Uint64("seed", 1, "the rows' seed")
	flag.Parse()
	if flag.NArg() != 1 || *n < 20 {
		fmt.Fprintln(os.Stderr, "usage: pandascsv [-n ROWS≥20] [-seed S] DIR")
		os.Exit(2)
	}
	dir := flag.Arg(0)
	for name, eu := range map[string]bool{"visits.csv": false, "visits-eu.csv": true} {
		f, err := os.Create(filepath.Join(dir, name))
		if err == nil {
			err = pandascsv.Write(f, *n, *seed, eu)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "pandascsv:", err)
			os.Exit(1)
		}
	}
}

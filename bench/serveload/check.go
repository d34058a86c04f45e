package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"slices"
	"strconv"
)

// runCheck scores every row of the table through the server, 1000 rows a request, and
// compares each score with the score column of c.scores bit for bit.
func runCheck(c config) error {
	f, err := os.Open(c.scores)
	if err != nil {
		return err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return fmt.Errorf("%s: %w", c.scores, err)
	}
	col := slices.Index(recs[0], "score")
	if col < 0 || len(recs)-1 != c.ds.N {
		return fmt.Errorf("%s: want a score column and %d rows", c.scores, c.ds.N)
	}
	hc := client(1)
	same := 0
	for lo := 0; lo < c.ds.N; lo += 1000 {
		n := min(1000, c.ds.N-lo)
		code, r, err := score(hc, c.url, body(c.ds, lo, n))
		if err != nil || code != 200 {
			return fmt.Errorf("rows %d..%d: status %d, %v", lo+1, lo+n, code, err)
		}
		for i, s := range r.scores() {
			want, err := strconv.ParseFloat(recs[1+lo+i][col], 64)
			if err != nil {
				return err
			}
			if s == want {
				same++
			} else {
				fmt.Printf("row %d: served %v, udocc score %v\n", lo+i+1, s, want)
			}
		}
	}
	fmt.Printf("%d of %d scores identical to udocc score's\n", same, c.ds.N)
	if same != c.ds.N {
		return fmt.Errorf("%d scores differ", c.ds.N-same)
	}
	return nil
}

// Package disttrace reads the traces that UDOCC_DIST_TRACE=PREFIX makes every rank of a
// data-parallel run write (PREFIX.rank.N: one line per collective the rank entered, its
// kind and number of values) and compares them: every rank must have entered the same
// collectives in the same order. It serves the tests of the library and of `udocc fit
// --nproc`.
package disttrace

import (
	"bufio"
	"fmt"
	"os"
)

// Read returns the lines of rank's trace PREFIX.rank.N.
func Read(prefix string, rank int) ([]string, error) {
	f, err := os.Open(fmt.Sprintf("%s.rank.%d", prefix, rank))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		lines = append(lines, s.Text())
	}
	return lines, s.Err()
}

// Compare checks that the traces of ranks 1 .. world-1 are rank 0's line for line. It
// returns rank 0's lines and, where a rank's part from them, the index of the first line
// that differs and an error naming the rank and both collectives (at is -1 otherwise).
func Compare(prefix string, world int) (ref []string, at int, err error) {
	ref, err = Read(prefix, 0)
	if err != nil {
		return nil, -1, err
	}
	if len(ref) == 0 {
		return nil, -1, fmt.Errorf("rank 0's trace %s.rank.0 is empty", prefix)
	}
	for r := 1; r < world; r++ {
		got, err := Read(prefix, r)
		if err != nil {
			return ref, -1, err
		}
		for i := 0; i < max(len(ref), len(got)); i++ {
			a, b := "(end)", "(end)"
			if i < len(ref) {
				a = ref[i]
			}
			if i < len(got) {
				b = got[i]
			}
			if a != b {
				return ref, i, fmt.Errorf("rank %d's collective %d is %q, rank 0's %q", r, i+1, b, a)
			}
		}
	}
	return ref, -1, nil
}

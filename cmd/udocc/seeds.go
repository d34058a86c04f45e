package main

import (
	"fmt"
	"strconv"
	"strings"
)

// maxSeedRange is the most seeds one range a-b of seedList may name.
const maxSeedRange = 1000

// seedList reads a list of seeds as `udocc fit --seed` and `udocc bench --seeds`
// spell it: "3", a range "0-9", a list "1,4,7", or ranges and seeds mixed. A seed named
// twice is an error: its members or runs would be the same network.
func seedList(s string) ([]uint64, error) {
	var out []uint64
	seen := map[uint64]bool{}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.ParseUint(lo, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a seed", part)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(hi, 10, 64); err != nil || b < a || b-a >= maxSeedRange {
				return nil, fmt.Errorf("%q is not a range a-b with a <= b and at most %d seeds", part, maxSeedRange)
			}
		}
		// Counted, not compared with b: v <= b holds for every v when b is the
		// largest uint64, and v++ would wrap to 0.
		for i := uint64(0); i <= b-a; i++ {
			v := a + i
			if seen[v] {
				return nil, fmt.Errorf("seed %d is named twice", v)
			}
			seen[v] = true
			out = append(out, v)
		}
	}
	return out, nil
}

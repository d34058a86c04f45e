// Package seedlist reads a list of seeds as the udocc commands spell it on their command
// lines (udocc fit --seed, udocc-bench --seeds): "3", a range "0-9", a list "1,4,7", or
// ranges and seeds mixed. Parse is the one parser of such lists.
package seedlist

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxRange is the most seeds one range a-b may name.
const MaxRange = 1000

// Parse reads a list of seeds: "3", a range "0-9", a list "1,4,7", or ranges and seeds
// mixed, in the order given. A seed named twice is an error: its members or runs would
// be the same network.
func Parse(s string) ([]uint64, error) {
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
			if b, err = strconv.ParseUint(hi, 10, 64); err != nil || b < a || b-a >= MaxRange {
				return nil, fmt.Errorf("%q is not a range a-b with a <= b and at most %d seeds", part, MaxRange)
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

package parallel

import (
	"errors"
	"fmt"
	"testing"
)

// TestFor runs every task once for any thread count, including more threads than tasks.
func TestFor(t *testing.T) {
	for _, tc := range []struct{ n, threads int }{{0, 4}, {1, 4}, {7, 1}, {7, 2}, {7, 3}, {100, 16}, {3, 8}} {
		t.Run(fmt.Sprintf("n=%d/threads=%d", tc.n, tc.threads), func(t *testing.T) {
			runs := make([]int, tc.n)
			For(tc.n, tc.threads, func(i int) { runs[i]++ })
			for i, r := range runs {
				if r != 1 {
					t.Fatalf("task %d ran %d times", i, r)
				}
			}
		})
	}
}

// TestForErrLowest returns the lowest failed task's error whatever the thread count.
func TestForErrLowest(t *testing.T) {
	for _, threads := range []int{1, 2, 3, 8} {
		t.Run(fmt.Sprintf("threads=%d", threads), func(t *testing.T) {
			err := ForErr(50, threads, func(i int) error {
				if i == 17 || i == 31 || i == 44 {
					return fmt.Errorf("task %d", i)
				}
				return nil
			})
			if err == nil || err.Error() != "task 17" {
				t.Fatalf("err = %v, want task 17", err)
			}
			if err := ForErr(50, threads, func(int) error { return nil }); err != nil {
				t.Fatalf("no task failed, err = %v", err)
			}
			sentinel := errors.New("only")
			if err := ForErr(1, threads, func(int) error { return sentinel }); !errors.Is(err, sentinel) {
				t.Fatalf("err = %v, want the only task's", err)
			}
		})
	}
}

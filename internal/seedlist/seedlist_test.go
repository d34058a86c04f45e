package seedlist

import (
	"slices"
	"testing"
)

func TestSeedList(t *testing.T) {
	cases := []struct {
		in   string
		want []uint64 // nil: an error
	}{
		{"0", []uint64{0}},
		{"7", []uint64{7}},
		{"0-2", []uint64{0, 1, 2}},
		{"0-9", []uint64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{"1,4,7", []uint64{1, 4, 7}},
		{"1,4-5, 7", []uint64{1, 4, 5, 7}},
		{"0-1, 5", []uint64{0, 1, 5}},
		{"3-3", []uint64{3}},
		{"0-999", nil}, // filled in below: the longest range
		{"", nil},
		{"abc", nil},
		{"-1", nil},
		{"3-1", nil},
		{"0-", nil},
		{"0,,1", nil},
		{"0-1000", nil},
		{"1,0-2", nil},
		{"4,4", nil},
		{"18446744073709551615", []uint64{1<<64 - 1}},
		{"18446744073709551614-18446744073709551615", []uint64{1<<64 - 2, 1<<64 - 1}},
		{"18446744073709551616", nil},
	}
	for i := range 1000 {
		cases[8].want = append(cases[8].want, uint64(i))
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := Parse(c.in)
			switch {
			case c.want == nil && err == nil:
				t.Errorf("Parse(%q) = %v; want an error", c.in, got)
			case c.want != nil && (err != nil || !slices.Equal(got, c.want)):
				t.Errorf("Parse(%q) = %v, %v; want %v", c.in, got, err, c.want)
			}
		})
	}
}

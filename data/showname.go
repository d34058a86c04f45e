package data

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// ShowName is a column name as a terminal may show it. It is as it is where every
// character prints, else quoted with escapes (strconv.Quote). A name with a newline or
// an escape sequence can then neither forge a report line nor drive the terminal.
func ShowName(name string) string {
	for _, r := range name {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return strconv.Quote(name)
		}
	}
	return name
}

// ShowNames is ShowName of each name.
func ShowNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = ShowName(n)
	}
	return out
}

package data

import (
	"bytes"
	"strings"

	"github.com/udocc/udocc/internal/decimal"
)

// pointed is s with its decimal comma made a point, where comma is set and s holds
// exactly one comma and no point ("1,5" is 1.5); s itself otherwise. A cell with both
// ("1.234,5", a thousands separator) is left as it is, and so refused as a number.
func pointed(s string, comma bool) string {
	if !comma || strings.Count(s, ",") != 1 || strings.Contains(s, ".") {
		return s
	}
	return strings.Replace(s, ",", ".", 1)
}

// decimalLines is how many of a text's first lines DetectDecimal looks at.
const decimalLines = 200

// DetectDecimal is the decimal separator of a delimited text whose first bytes are head
// and whose delimiter is delim. It is ',' where delim is not a comma and most cells
// with a fraction on the first lines (decimalLines) are numbers only with a decimal
// comma ("1,5"). It is '.' otherwise. Cells are split at delim, quotes ignored. It is a
// guess over many cells, which LoadOptions.Decimal overrides.
func DetectDecimal(head []byte, delim rune) rune {
	if delim == ',' || delim == whitespace {
		return '.'
	}
	comma, point := 0, 0
	for i, line := range bytes.SplitN(head, []byte("\n"), decimalLines+1) {
		if i == decimalLines {
			break
		}
		for _, cell := range strings.Split(string(line), string(delim)) {
			s := strings.Trim(strings.TrimSpace(cell), `"`)
			switch {
			case strings.Contains(s, ".") && decimal.IsDecimal(s):
				point++
			case strings.Contains(s, ",") && decimal.IsDecimal(pointed(s, true)):
				comma++
			}
		}
	}
	if comma > point {
		return ','
	}
	return '.'
}

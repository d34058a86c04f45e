package data

import (
	"strings"
	"testing"
)

// TestGoLiteralsAreText checks that Go's number literals (hex floats, digit
// separators), which strconv.ParseFloat reads, are text in a table as they are to
// pandas (hostile round 4, L14).
func TestGoLiteralsAreText(t *testing.T) {
	for _, cell := range []string{"0x1p3", "1_0", "0X1P-2", "1e1_0"} {
		t.Run(cell, func(t *testing.T) {
			body := "a,b\n1,2\n3," + cell + "\n5,6\n"
			ds, err := decodeCSV([]byte(body), LoadOptions{})
			if err == nil {
				t.Fatalf("read %q as %v", cell, ds.X)
			}
			if !strings.Contains(err.Error(), `"b"`) {
				t.Fatalf("error %v does not name column b", err)
			}
		})
	}
}

package labelhint

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/udocc/udocc/data"
)

// TestNamedHints: columns named as labels usually are, taking two values, are hinted.
func TestNamedHints(t *testing.T) {
	for _, name := range []string{"is_anomaly", "anomaly", "outlier", "class", "Label"} {
		ds, err := data.ReadCSV(strings.NewReader("a,"+name+"\n1,0\n2,1\n3,0\n"), data.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := Of(ds); len(got) != 1 || got[0].Name != name {
			t.Errorf("%s: hints %v", name, got)
		}
	}
}

// TestLikelyLabels checks that a two-valued column named like a label is reported, and
// that other columns are not.
func TestLikelyLabels(t *testing.T) {
	text := "a,Target,class,y,outlier\n1,0,1,5,0\n2,1,2,6,0\n3,1,3,5,0\n"
	ds, err := data.ReadCSV(strings.NewReader(text), data.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// class takes three values, outlier one.
	if got, want := likelyNames(ds), []string{"Target", "y"}; !slices.Equal(got, want) {
		t.Errorf("LikelyLabels %q, want %q", got, want)
	}
}

func likelyNames(ds *data.Dataset) []string {
	var out []string
	for _, l := range Of(ds) {
		out = append(out, l.Name)
	}
	return out
}

// TestLikelyLabelsByValues: a 0/1 column with a minority under 40 % is hinted by its
// values alone as the last (or first) column, named Outcome or not; a block of one-hot
// columns is not, nor a balanced 0/1 column (issue 42 item 4).
func TestLikelyLabelsByValues(t *testing.T) {
	var b strings.Builder
	b.WriteString("a,b,hot1,hot2,hot3,c,Outcome\n")
	for i := range 20 {
		hot := [3]int{}
		hot[i%3] = 1
		fmt.Fprintf(&b, "%d,%d,%d,%d,%d,%d,%d\n", i, i*i%7, hot[0], hot[1], hot[2], i%3, map[bool]int{true: 1}[i%5 == 0])
	}
	ds, err := data.ReadCSV(strings.NewReader(b.String()), data.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := Of(ds)
	if len(got) != 1 || got[0].Name != "Outcome" {
		t.Errorf("LikelyLabels %+v, want Outcome alone", got)
	}
	// The same column named plainly, as the last one, is hinted by its values; moved
	// into the one-hot block, it is not.
	text := strings.Replace(b.String(), "Outcome", "z", 1)
	ds, _ = data.ReadCSV(strings.NewReader(text), data.LoadOptions{})
	if got := Of(ds); len(got) != 1 || got[0].Name != "z" || !strings.Contains(got[0].Why, "20 % of rows 1") {
		t.Errorf("last 0/1 column z: hints %+v", got)
	}
	ds, _ = data.ReadCSV(strings.NewReader(text), data.LoadOptions{Selection: data.Selection{Columns: []string{"a", "b", "hot1", "z", "hot2", "hot3"}}})
	if got := likelyNames(ds); len(got) != 0 {
		t.Errorf("z among one-hot columns: hints %q, want none", got)
	}
}

package data_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/udocc/udocc/data"
)

// ExampleLoad reads a CSV file with a label column and a blank cell, which the model
// fills in later (MissingKeep).
func ExampleLoad() {
	dir, _ := os.MkdirTemp("", "data-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "pumps.csv")
	os.WriteFile(path, []byte("pressure,flow,fault\n1.5,20,0\n1.4,,0\n9.8,3,1\n"), 0o644)
	ds, err := data.Load(path, data.LoadOptions{LabelColumn: "fault", Missing: data.MissingKeep})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ds.N, ds.D, ds.Features, ds.Y, ds.Missing)
	// Output: 3 2 [pressure flow] [0 0 1] [0 1]
}

// ExampleReadCSV reads delimited text from a reader, here a semicolon-separated table
// with decimal commas.
func ExampleReadCSV() {
	ds, err := data.ReadCSV(strings.NewReader("a;b\n1,5;2\n3,25;4\n"), data.LoadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ds.X, ds.Notes[0])
	// Output: [1.5 2 3.25 4] the numbers have decimal commas (1,5 is 1.5), as most of the first lines' cells do: LoadOptions.Decimal = '.' reads them otherwise
}

// ExampleRemedyError shows a refusal that names the setting that would read the table,
// spelled as Go sets it and, by Render, as a caller chooses.
func ExampleRemedyError() {
	_, err := data.ReadCSV(strings.NewReader("a,kind\n1,x\n2,y\n"), data.LoadOptions{})
	var re *data.RemedyError
	if errors.As(err, &re) {
		fmt.Println(re.Remedy.Settings()[0])
		fmt.Println(re.Remedy.Render(func(s data.Setting) string { return "<" + s.Field + ">" }))
	}
	// Output:
	// {Selection.Drop [kind]}
	// column "kind" is not numeric (line 2, column 2: "x"); leave it out with <Selection.Drop>, or every such column with <Selection.DropText>: not a number
}

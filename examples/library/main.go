// Command library is the README's library example: it fits the default detector on the
// README's table, examples/pumps.csv, prints the threshold and the share of rows
// flagged, and saves the model to ./model. Run it from the repository's root.
package main

import (
	"context"
	"fmt"
	"log"

	"github.com/udocc/udocc"
	"github.com/udocc/udocc/data"
)

func main() {
	// Column fault is only for checking; blank cells get their column's training median.
	opts := data.LoadOptions{LabelColumn: "fault", Missing: data.MissingKeep}
	table, err := data.Load("examples/pumps.csv", opts) // CSV, Parquet, .mat, .npy, .npz
	if err != nil {
		log.Fatal(err)
	}
	m, err := udocc.FitDataset(context.Background(), table, nil, udocc.Options{}) // the defaults
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	fmt.Printf("threshold %.4g: %.1f %% of %d rows flagged\n", m.Threshold(), 100*m.Ratio(), table.N)
	if err := m.Save("model"); err != nil { // udocc.Load and `udocc score --model model` read it
		log.Fatal(err)
	}
}

// Package pandascsv writes a table of clinic visits the way pandas' DataFrame.to_csv
// writes one: an unnamed index column first (header ""), a category (clinic), a
// high-cardinality category (doctor), a date (visit_date), numbers with blank cells, and
// a 0/1 label. Its European variant is ';'-separated with decimal commas, as
// to_csv(sep=";", decimal=",") writes it. Tests and examples/pandascsv make their
// fixtures with it; the rows are the same for a given seed.
package pandascsv

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"
)

// Clinics are the clinic column's values in the normal rows; anomalies come from
// clinic "Z", which is rare.
var Clinics = []string{"north", "south", "east", "west"}

// Write writes n rows (n ≥ 20) to w: ',' and decimal points, or ';' and decimal commas
// where european. Every 20th row is an anomaly (label 1): a cost ten times the usual, at
// clinic "Z"; some age and cost cells are blank.
func Write(w io.Writer, n int, seed uint64, european bool) error {
	sep, point := ",", "."
	if european {
		sep, point = ";", ","
	}
	r := rand.New(rand.NewPCG(seed, 65))
	num := func(v float64) string { return strings.Replace(fmt.Sprintf("%.2f", v), ".", point, 1) }
	var b strings.Builder
	b.WriteString(strings.Join([]string{"", "clinic", "doctor", "visit_date", "age", "cost", "label"}, sep) + "\n")
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		anomaly := i%20 == 19
		clinic := Clinics[r.IntN(len(Clinics))]
		cost := 100 + 15*r.NormFloat64()
		age := fmt.Sprint(30 + r.IntN(40))
		label := "0"
		if anomaly {
			clinic, cost, label = "Z", 10*cost, "1"
		}
		costCell := num(cost)
		if i%17 == 3 {
			costCell = ""
		}
		if i%13 == 5 {
			age = ""
		}
		doctor := fmt.Sprintf("dr%02d", r.IntN(30))
		date := start.AddDate(0, 0, r.IntN(365)).Format("2006-01-02")
		b.WriteString(strings.Join([]string{fmt.Sprint(i), clinic, doctor, date, age, costCell, label}, sep) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

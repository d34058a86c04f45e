// Command pumps writes examples/pumps.csv, the README's first table: 1,000 readings of
// centrifugal pumps, 30 of them from faulty pumps, with a few cells blank the ways real
// exports leave them. The table is made up, so it ships with no licence of its own.
//
// A normal pump's readings follow its speed by the affinity laws: flow grows with the
// speed, head (pressure) with its square, power with their product; temperature follows
// power, and vibration grows slowly with speed. A fault breaks one of these links:
//
//   - a worn bearing: vibration two to four times its normal level, and hotter;
//   - cavitation: pressure 30-50 % low, vibration up;
//   - a clogged intake: flow 30-50 % low, pressure up a little;
//   - a failing motor: power 25-40 % high, and hotter.
//
// Column fault is 1 for those 30 rows and 0 otherwise. Regenerate with go generate.
package main

//go:generate go run . -out ../pumps.csv

import (
	"flag"
	"io"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
)

// Rows, faults and the seed of the table.
const (
	rows   = 1000
	faults = 30
	seed   = 2024
)

// blanks are the cells left blank, by 0-based data row and column, and how; row 200
// has no value at all.
var blanks = map[[2]int]string{
	{0, 2}: "NA", {5, 4}: "", {10, 3}: "null", {33, 5}: "NaN", {40, 1}: "",
}

const emptyRow = 200

var header = []string{"speed_rpm", "flow_m3h", "pressure_bar", "power_kw", "temperature_c", "vibration_mms", "fault"}

func main() {
	out := flag.String("out", "", "file to write (default: stdout)")
	flag.Parse()
	w := io.Writer(os.Stdout)
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		w = f
	}
	if err := write(w); err != nil {
		log.Fatal(err)
	}
}

// write writes the table as CSV with a header.
func write(w io.Writer) error {
	r := rand.New(rand.NewPCG(seed, 1))
	faulty := r.Perm(rows)[:faults]
	kind := make(map[int]int, faults)
	for k, i := range faulty {
		kind[i] = 1 + k%4
	}
	var b strings.Builder
	b.WriteString(strings.Join(header, ",") + "\n")
	for i := range rows {
		v := reading(r, kind[i])
		cells := make([]string, len(header))
		for j, d := range []int{0, 1, 2, 1, 1, 2} {
			cells[j] = strconv.FormatFloat(v[j], 'f', d, 64)
			if s, ok := blanks[[2]int{i, j}]; ok {
				cells[j] = s
			}
			if i == emptyRow {
				cells[j] = ""
			}
		}
		cells[6] = "0"
		if kind[i] > 0 {
			cells[6] = "1"
		}
		b.WriteString(strings.Join(cells, ",") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// reading is one pump's speed, flow, pressure, power, temperature and vibration; fault
// 0 is a sound pump, 1-4 the faults of the package comment.
func reading(r *rand.Rand, fault int) [6]float64 {
	speed := 1450 + 1550*r.Float64()
	s := speed / 2900
	flow := 60 * s * (1 + 0.04*r.NormFloat64())
	pressure := 4.5 * s * s * (1 + 0.04*r.NormFloat64())
	vibration := (1.2 + 1.3*s) * (1 + 0.15*math.Abs(r.NormFloat64()))
	switch fault {
	case 2:
		pressure *= 0.5 + 0.2*r.Float64()
		vibration *= 1.5 + 0.5*r.Float64()
	case 3:
		flow *= 0.5 + 0.2*r.Float64()
		pressure *= 1.05 + 0.1*r.Float64()
	}
	// Hydraulic power (kW) = flow (m³/s) · pressure (Pa) / efficiency 0.7, in kW.
	power := flow / 3600 * pressure * 1e5 / 0.7 / 1000 * (1 + 0.03*r.NormFloat64())
	temperature := 35 + 1.6*power + 1.5*r.NormFloat64()
	switch fault {
	case 1:
		vibration *= 2 + 2*r.Float64()
		temperature += 6 + 6*r.Float64()
	case 4:
		extra := 0.25 + 0.15*r.Float64()
		power *= 1 + extra
		temperature += 1.6 * power * extra
	}
	return [6]float64{speed, flow, pressure, power, temperature, vibration}
}

// Command speedfig draws bench/speed.sh's figures: seconds per epoch against the number
// of rows, log-log, udocc beside PyTorch eager and the arithmetic floor, one figure per
// phase, from the tab-separated table speed.sh writes.
//
//	go run ./bench/speedfig TABLE.tsv OUTDIR
package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/udocc/udocc/internal/plots"
)

// row is one line of the table: n, d, phase, then milliseconds per model-epoch.
type row struct {
	n, d                             int
	phase                            string
	k1, k10, eager, eagerDNNL, floor float64
}

func read(path string) ([]row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []row
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fs := strings.Split(sc.Text(), "\t")
		if line == 1 {
			continue // header
		}
		if len(fs) != 8 {
			return nil, fmt.Errorf("%s: line %d: %d fields, want 8", path, line, len(fs))
		}
		var r row
		var errs [7]error
		r.n, errs[0] = strconv.Atoi(fs[0])
		r.d, errs[1] = strconv.Atoi(fs[1])
		r.phase = fs[2]
		r.k1, errs[2] = strconv.ParseFloat(fs[3], 64)
		r.k10, errs[3] = strconv.ParseFloat(fs[4], 64)
		r.eager, errs[4] = strconv.ParseFloat(fs[5], 64)
		r.eagerDNNL, errs[5] = strconv.ParseFloat(fs[6], 64)
		r.floor, errs[6] = strconv.ParseFloat(fs[7], 64)
		for _, err := range errs {
			if err != nil {
				return nil, fmt.Errorf("%s: line %d: %w", path, line, err)
			}
		}
		rows = append(rows, r)
	}
	return rows, sc.Err()
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: speedfig TABLE.tsv OUTDIR")
		os.Exit(2)
	}
	rows, err := read(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "speedfig:", err)
		os.Exit(1)
	}
	titles := map[string]string{
		"pretrain": "pretraining epoch (autoencoder), d = 20, 32-16-8, one thread",
		"finetune": "fine-tuning epoch (training + scores), d = 20, 32-16-8, one thread",
	}
	for _, phase := range []string{"pretrain", "finetune"} {
		var n, k1, k10, eager, eagerDNNL, floor []float64
		for _, r := range rows {
			if r.phase != phase || r.d != 20 {
				continue
			}
			n = append(n, float64(r.n))
			k1 = append(k1, r.k1/1e3)
			k10 = append(k10, r.k10/1e3)
			eager = append(eager, r.eager/1e3)
			eagerDNNL = append(eagerDNNL, r.eagerDNNL/1e3)
			floor = append(floor, r.floor/1e3)
		}
		f := plots.Figure{Title: titles[phase], XLabel: "rows n", YLabel: "seconds per epoch (per model)",
			LogX: true, LogY: true, Series: []plots.Series{
				{Name: "udocc K=1", X: n, Y: k1, Color: plots.Blue},
				{Name: "udocc K=10, per model", X: n, Y: k10, Color: plots.Green},
				{Name: "PyTorch eager", X: n, Y: eager, Color: plots.Red},
				{Name: "PyTorch eager, oneDNN sgemm", X: n, Y: eagerDNNL, Color: plots.Orange},
				{Name: "arithmetic floor", X: n, Y: floor, Color: plots.Grey, Dashed: true},
			}}
		if err := f.Save(filepath.Join(os.Args[2], "speed-"+phase+".png")); err != nil {
			fmt.Fprintln(os.Stderr, "speedfig:", err)
			os.Exit(1)
		}
	}
}

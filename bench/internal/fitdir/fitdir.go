// Package fitdir reads what the studies need of a `udocc fit` output folder: the rows'
// scores and true labels (scores.csv) and the label-free count beside them
// (summary.json). bench/review and bench/answers read the corpus's cached fits with it.
package fitdir

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/udocc/udocc/internal/review"
)

// Fit is one fit's folder as the studies read it.
type Fit struct {
	// Scores and Y are every row's score and true label (true_label 1), in row order.
	Scores []float64
	Y      []bool
	// Prior is the label-free count: the share flagged and its 80 % interval.
	Prior review.Prior
	// ROCAUC and Flagged are summary.json's.
	ROCAUC  float64
	Flagged int
}

// Read reads the fit in dir. scores.csv must have a score and a true_label column.
func Read(dir string) (*Fit, error) {
	var sum struct {
		SelectedRatio    float64    `json:"selected_ratio"`
		SelectedInterval [2]float64 `json:"selected_ratio_interval"`
		ROCAUC           float64    `json:"rocauc"`
		Flagged          int        `json:"flagged"`
	}
	path := filepath.Join(dir, "summary.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	fit := &Fit{ROCAUC: sum.ROCAUC, Flagged: sum.Flagged,
		Prior: review.Prior{Share: sum.SelectedRatio, Low: sum.SelectedInterval[0], High: sum.SelectedInterval[1]}}
	f, err := os.Open(filepath.Join(dir, "scores.csv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	si, li := slices.Index(head, "score"), slices.Index(head, "true_label")
	if si < 0 || li < 0 {
		return nil, fmt.Errorf("%s: no score or true_label column", f.Name())
	}
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			return fit, nil
		}
		if err != nil {
			return nil, err
		}
		s, err := strconv.ParseFloat(rec[si], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: score: %w", f.Name(), line, err)
		}
		fit.Scores = append(fit.Scores, s)
		fit.Y = append(fit.Y, rec[li] == "1")
	}
}

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/udocc/udocc/internal/dynamics"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/udocc/udocc/internal/atomicfile"
	lib "github.com/udocc/udocc/internal/detector"
	"github.com/udocc/udocc/internal/parallel"
)

// write puts every output of a fit into dir, the transaction's fresh folder. The model
// and the figures do not wait for the explanations: they are written beside them, on a
// goroutine of their own, and the first error in the order below is returned (the
// transaction then leaves no file behind). Explaining is the shim's work on the fit's
// threads, building each block of scored rows is Go's on one, and the writes fill the
// gaps between.
func (f *fitted) write(ctx context.Context, dir string) error {
	var cols []scoreColumn
	if len(f.members) > 1 && f.o.table.members {
		for _, m := range f.members {
			cols = append(cols, scoreColumn{fmt.Sprintf("seed%d", m.Seed), m.Scores, m.Labels})
		}
	}
	var (
		beside          sync.WaitGroup
		saveErr, figErr error
		figSeconds      float64
	)
	beside.Add(1)
	go func() {
		defer beside.Done()
		if saveErr = f.m.Save(filepath.Join(dir, "model")); saveErr != nil {
			return
		}
		t0 := time.Now()
		figErr = f.figures(dir)
		figSeconds = time.Since(t0).Seconds()
	}()
	err := f.writeExplained(ctx, dir, cols)
	beside.Wait()
	switch {
	case err != nil:
		return err
	case saveErr != nil:
		return saveErr
	case figErr != nil:
		return figErr
	}
	f.summary.Timings.FiguresSeconds = figSeconds
	b, err := json.MarshalIndent(f.summary, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, "summary.json"), append(b, '\n')); err != nil {
		return err
	}
	f.prog.phase("written", "scores.csv, the model, the figures and summary.json")
	return nil
}

// writeExplained explains the flagged rows and writes scores.csv and history.csv.
func (f *fitted) writeExplained(ctx context.Context, dir string, cols []scoreColumn) error {
	t0 := time.Now()
	ex, err := explainFlagged(ctx, f.m, f.ds, f.m.Scores(), f.m.Labels(), f.o.explain, f.o.explainRows)
	if err != nil {
		return err
	}
	f.explainedNote = explainedNote(ex)
	if ex != nil {
		f.summary.Timings.ExplainSeconds = time.Since(t0).Seconds()
		f.prog.phase("explained", fmt.Sprintf("%d flagged %s", len(ex.rows), plural(len(ex.rows), "row", "rows")))
	}
	if err := writeScores(filepath.Join(dir, "scores.csv"), f.m.Scores(), scoresFile{id: idOf(f.ds), labels: f.m.Labels(),
		prob: probabilities(f.m, f.m.Scores()), y: f.ds.Y, cols: cols, ex: ex, rows: f.ds.RowIndex, digits: f.o.table.digits}); err != nil {
		return err
	}
	return f.writeHistory(filepath.Join(dir, "history.csv"))
}

// scoreColumn is one member's scores and labels, for an ensemble's scores.csv.
type scoreColumn struct {
	name   string
	scores []float64
	labels []bool
}

// scoresFile is what scores.csv holds beside the scores: the model's labels and
// probabilities, the true labels where known, each member's scores, the explanations,
// and each row's place in the file where rows were left out.
type scoresFile struct {
	id     idColumn
	labels []bool
	prob   []float64 // each row's probability of being an anomaly; nil without a threshold
	y      []int
	cols   []scoreColumn
	ex     *explainColumns
	rows   []int // each row's 0-based data row in the file; nil when every row was kept
	digits int   // significant digits of the scores; 0: exact (strconv's shortest form)
}

// writeScores writes row (the 1-based data row of the file), the id column where there
// is one, score, rank (1 = most anomalous), label, probability and, where known, the
// true label; then each member's score (and label, where members have their own) for a
// seed ensemble; then, where ex is not nil, the features driving each flagged row.
func writeScores(path string, scores []float64, f scoresFile) error {
	ranks := anomalyRanks(scores)
	prec := f.digits
	if prec == 0 {
		prec = -1
	}
	row := func(b []byte, i int) []byte {
		r := i
		if f.rows != nil {
			r = f.rows[i]
		}
		b = strconv.AppendInt(b, int64(r)+1, 10) // 1-based, as editors number lines
		if f.id.values != nil {
			b = append(append(b, ','), csvField(f.id.values[i])...)
		}
		b = strconv.AppendFloat(append(b, ','), scores[i], 'g', prec, 64)
		b = strconv.AppendInt(append(b, ','), int64(ranks[i]), 10)
		b = append(append(b, ','), label(f.labels, i)...)
		if f.prob != nil {
			b = strconv.AppendFloat(append(b, ','), f.prob[i], 'f', 4, 64)
		}
		if f.y != nil {
			b = strconv.AppendInt(append(b, ','), int64(f.y[i]), 10)
		}
		for _, c := range f.cols {
			b = strconv.AppendFloat(append(b, ','), c.scores[i], 'g', prec, 64)
			if c.labels != nil {
				b = append(append(b, ','), label(c.labels, i)...)
			}
		}
		return append(f.ex.cells(b, i), '\n')
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		bw.WriteString("row")
		if f.id.values != nil {
			bw.WriteString("," + csvField(f.id.name))
		}
		bw.WriteString(",score,rank,label")
		if f.prob != nil {
			bw.WriteString(",probability")
		}
		if f.y != nil {
			bw.WriteString(",true_label")
		}
		for _, c := range f.cols {
			fmt.Fprintf(bw, ",score_%s", c.name)
			if c.labels != nil {
				fmt.Fprintf(bw, ",label_%s", c.name)
			}
		}
		f.ex.header(bw)
		bw.WriteString("\n")
		if err := bw.Flush(); err != nil {
			return err
		}
		return writeRows(w, len(scores), row)
	})
}

// anomalyRanks are the ranks of scores, 1 for the highest (the most anomalous row) to
// n: the direction of every rank udocc writes.
func anomalyRanks(scores []float64) []int32 {
	r := dynamics.Ranks32(scores)
	n := int32(len(r))
	for i := range r {
		r[i] = n + 1 - r[i]
	}
	return r
}

// probabilities are m's Probability of each score; nil where the model gives none.
func probabilities(m *lib.Model, scores []float64) []float64 {
	if math.IsInf(m.Threshold(), 1) || len(scores) == 0 || math.IsNaN(m.Probability(scores[0])) {
		return nil
	}
	return m.Probabilities(scores)
}

// rowBlock is the rows writeRows formats as one task.
const rowBlock = 1 << 14

// writeRows writes rows 0 .. n-1 to w, each as row appends it: blocks of rowBlock rows are
// formatted on the process's cores (GOMAXPROCS), as many blocks at a time as there are
// cores, and written in row order, so the bytes do not depend on the count.
func writeRows(w io.Writer, n int, row func(b []byte, i int) []byte) error {
	threads := runtime.GOMAXPROCS(0)
	bufs := make([][]byte, threads)
	for lo := 0; lo < n; lo += threads * rowBlock {
		blocks := min(threads, (n-lo+rowBlock-1)/rowBlock)
		parallel.For(blocks, threads, func(t int) {
			b := bufs[t][:0]
			for i := lo + t*rowBlock; i < min(lo+(t+1)*rowBlock, n); i++ {
				b = row(b, i)
			}
			bufs[t] = b
		})
		for _, b := range bufs[:blocks] {
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
	}
	return nil
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// label is "1" or "0", or empty when the method gives no labels.
func label(labels []bool, i int) string {
	switch {
	case labels == nil:
		return ""
	case labels[i]:
		return "1"
	}
	return "0"
}

func nanEmpty(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return ftoa(v)
}

// writeHistory writes one row per member and fine-tuning epoch.
func (f *fitted) writeHistory(path string) error {
	header := []string{"seed", "epoch", "loss", "train_size", "delta_star", "delta_bar", "selected_ratio", "min_scaled", "ties", "radius", "seconds"}
	if f.ds.Y != nil {
		header = append(header, "rocauc", "prauc", "f1")
	}
	var rows [][]string
	for k, hist := range f.m.History() {
		for j, h := range hist {
			star, ties := "", ""
			if h.DeltaStar > 0 {
				star, ties = strconv.Itoa(h.DeltaStar), strconv.Itoa(h.Ties)
			}
			radius := ""
			if h.Radius != 0 {
				radius = ftoa(h.Radius)
			}
			r := []string{strconv.FormatUint(f.members[k].Seed, 10), strconv.Itoa(h.Epoch), ftoa(h.Loss), strconv.Itoa(h.TrainSize),
				star, nanEmpty(h.DeltaBar), nanEmpty(h.SelectedRatio), nanEmpty(h.MinScaled), ties, radius, ftoa(h.Seconds)}
			if f.ds.Y != nil {
				r = append(r, "", "", "")
				if j < len(f.epochs[k]) {
					m := f.epochs[k][j]
					r[len(r)-3], r[len(r)-2], r[len(r)-1] = nanEmpty(m.rocauc), nanEmpty(m.prauc), nanEmpty(m.f1)
				}
			}
			rows = append(rows, r)
		}
	}
	// Only the columns with a value: the default ensemble has no δ search, no radius
	// and no per-epoch labels, and an empty column is noise.
	var keep []int
	for c := range header {
		for _, r := range rows {
			if r[c] != "" {
				keep = append(keep, c)
				break
			}
		}
	}
	if len(rows) == 0 {
		keep = []int{0, 1, 2, 3, 10}
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		line := func(r []string) {
			for i, c := range keep {
				if i > 0 {
					bw.WriteByte(',')
				}
				bw.WriteString(r[c])
			}
			bw.WriteByte('\n')
		}
		line(header)
		for _, r := range rows {
			line(r)
		}
		return bw.Flush()
	})
}

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"strconv"

	lib "github.com/udocc/udocc"
	"github.com/udocc/udocc/internal/atomicfile"
	"github.com/udocc/udocc/internal/parallel"
)

// write puts every output of a fit into dir, the transaction's fresh folder.
func (f *fitted) write(ctx context.Context, dir string) error {
	var cols []scoreColumn
	if len(f.members) > 1 {
		for _, m := range f.members {
			cols = append(cols, scoreColumn{fmt.Sprintf("seed%d", m.Seed), m.Scores, m.Labels})
		}
	}
	ex, err := explainFlagged(ctx, f.m, f.ds, f.m.Labels(), f.o.explain)
	if err != nil {
		return err
	}
	if err := writeScores(filepath.Join(dir, "scores.csv"), idOf(f.ds), f.m.Scores(), f.m.Labels(), f.ds.Y, cols, ex); err != nil {
		return err
	}
	if err := f.writeHistory(filepath.Join(dir, "history.csv")); err != nil {
		return err
	}
	if err := f.m.Save(filepath.Join(dir, "model")); err != nil {
		return err
	}
	if err := f.figures(dir); err != nil {
		return err
	}
	b, err := json.MarshalIndent(f.summary, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(filepath.Join(dir, "summary.json"), append(b, '\n'))
}

// scoreColumn is one member's scores and labels, for an ensemble's scores.csv.
type scoreColumn struct {
	name   string
	scores []float64
	labels []bool
}

// writeScores writes row, the id column where there is one, score, rank (1 = most
// normal), label and, where known, the true label; then each member's score and label
// for an ensemble; then, where ex is not nil, the features driving each flagged row.
func writeScores(path string, id idColumn, scores []float64, labels []bool, y []int, cols []scoreColumn, ex *explainColumns) error {
	ranks := lib.Ranks(scores)
	row := func(b []byte, i int) []byte {
		b = strconv.AppendInt(b, int64(i), 10)
		if id.values != nil {
			b = append(append(b, ','), csvField(id.values[i])...)
		}
		b = strconv.AppendFloat(append(b, ','), scores[i], 'g', -1, 64)
		b = strconv.AppendInt(append(b, ','), int64(ranks[i]), 10)
		b = append(append(b, ','), label(labels, i)...)
		if y != nil {
			b = strconv.AppendInt(append(b, ','), int64(y[i]), 10)
		}
		for _, c := range cols {
			b = strconv.AppendFloat(append(b, ','), c.scores[i], 'g', -1, 64)
			b = append(append(b, ','), label(c.labels, i)...)
		}
		return append(ex.cells(b, i), '\n')
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		bw.WriteString("row")
		if id.values != nil {
			bw.WriteString("," + csvField(id.name))
		}
		bw.WriteString(",score,rank,label")
		if y != nil {
			bw.WriteString(",true_label")
		}
		for _, c := range cols {
			fmt.Fprintf(bw, ",score_%s,label_%s", c.name, c.name)
		}
		ex.header(bw)
		bw.WriteString("\n")
		if err := bw.Flush(); err != nil {
			return err
		}
		return writeRows(w, len(scores), row)
	})
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
	return atomicfile.Write(path, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		bw.WriteString("seed,epoch,loss,train_size,delta_star,delta_bar,selected_ratio,min_scaled,ties,radius,seconds")
		if f.ds.Y != nil {
			bw.WriteString(",rocauc,prauc,f1")
		}
		bw.WriteString("\n")
		for k, hist := range f.m.History() {
			for j, h := range hist {
				rec := h
				star := ""
				if rec.DeltaStar > 0 {
					star = strconv.Itoa(rec.DeltaStar)
				}
				fmt.Fprintf(bw, "%d,%d,%s,%d,%s,%s,%s,%s,%d,%s,%s", f.members[k].Seed, h.Epoch, ftoa(h.Loss), h.TrainSize,
					star, nanEmpty(rec.DeltaBar), nanEmpty(rec.SelectedRatio), nanEmpty(rec.MinScaled), rec.Ties,
					ftoa(h.Radius), ftoa(h.Seconds))
				if f.ds.Y != nil && j < len(f.epochs[k]) {
					m := f.epochs[k][j]
					fmt.Fprintf(bw, ",%s,%s,%s", nanEmpty(m.rocauc), nanEmpty(m.prauc), nanEmpty(m.f1))
				}
				bw.WriteString("\n")
			}
		}
		return bw.Flush()
	})
}

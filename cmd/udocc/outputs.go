package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/udocc/udocc/dynamics"
	"github.com/udocc/udocc/internal/atomicfile"
	"github.com/udocc/udocc/models"
	"github.com/udocc/udocc/torch"
)

// write puts every output of a fit into dir, the transaction's fresh folder.
func (f *fitted) write(dir string) error {
	rs := f.run.Results
	cols := []scoreColumn{}
	if len(rs) > 1 {
		for _, r := range rs {
			cols = append(cols, scoreColumn{fmt.Sprintf("seed%d", r.Member.Seed), r.Scores, r.Labels})
		}
	}
	if err := writeScores(filepath.Join(dir, "scores.csv"), idOf(f.ds), f.scores, f.labels, f.ds.Y, cols); err != nil {
		return err
	}
	if err := f.writeHistory(filepath.Join(dir, "history.csv")); err != nil {
		return err
	}
	if err := f.writeModel(filepath.Join(dir, "model")); err != nil {
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
// for an ensemble.
func writeScores(path string, id idColumn, scores []float64, labels []bool, y []int, cols []scoreColumn) error {
	ranks := dynamics.Ranks(scores)
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
		bw.WriteString("\n")
		for i, s := range scores {
			fmt.Fprintf(bw, "%d", i)
			if id.values != nil {
				bw.WriteString("," + csvField(id.values[i]))
			}
			fmt.Fprintf(bw, ",%s,%d,%s", ftoa(s), ranks[i], label(labels, i))
			if y != nil {
				fmt.Fprintf(bw, ",%d", y[i])
			}
			for _, c := range cols {
				fmt.Fprintf(bw, ",%s,%s", ftoa(c.scores[i]), label(c.labels, i))
			}
			bw.WriteString("\n")
		}
		return bw.Flush()
	})
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
		for k, r := range f.run.Results {
			for j, h := range r.History {
				rec := h.Record
				star := ""
				if rec.DeltaStar > 0 {
					star = strconv.Itoa(rec.DeltaStar)
				}
				fmt.Fprintf(bw, "%d,%d,%s,%d,%s,%s,%s,%s,%d,%s,%s", r.Member.Seed, h.Epoch, ftoa(h.Loss), h.TrainSize,
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

// writeModel saves the networks and model.json into the new folder dir. Feature names
// are saved only when they came from the file, so that score matches columns by name
// exactly when both files have names.
func (f *fitted) writeModel(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	meta := &models.Meta{
		Format: models.Format, Udocc: Version, Libtorch: torch.Version(), Method: f.summary.Method,
		Data: f.ds.Name, Sizes: append([]int{f.ds.D}, f.cfg.Hidden...), Scaler: *f.scaler,
	}
	if f.ds.Named {
		meta.Features = f.ds.Features
	}
	if !f.ds.Selection.IsZero() {
		meta.Selection = &f.ds.Selection
	}
	for k, r := range f.run.Results {
		name := fmt.Sprintf("member-%d.pt", r.Member.Seed)
		if err := f.run.Save(k, filepath.Join(dir, name)); err != nil {
			return err
		}
		mem := models.Member{Seed: r.Member.Seed, Network: name, Threshold: num(thresholds(f.run.Results)[k])}
		if f.ens != nil {
			mem.Threshold = nil
			mem.Autoencoder = fmt.Sprintf("autoencoder-%d.pt", r.Member.Seed)
			if err := f.run.SaveAutoencoder(k, filepath.Join(dir, mem.Autoencoder)); err != nil {
				return err
			}
		}
		meta.Members = append(meta.Members, mem)
	}
	if f.ens != nil {
		meta.Ensemble, meta.Threshold, meta.ThresholdRule = f.ens, num(f.thr), f.summary.Config.Threshold
	}
	return models.WriteMeta(dir, meta)
}

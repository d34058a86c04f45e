package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/models"
	"github.com/udocc/udocc/torch"
)

// summary is summary.json. Keys with labels-only meaning are omitted without labels;
// thresholds and ratios are null for methods that have none.
type summary struct {
	Udocc         string     `json:"udocc"`
	Libtorch      string     `json:"libtorch"`
	Data          string     `json:"data"`
	Source        string     `json:"source"`
	Method        string     `json:"method"`
	N             int        `json:"n"`
	D             int        `json:"d"`
	Config        configJSON `json:"config"`
	Seed          uint64     `json:"seed"`
	Seeds         []uint64   `json:"seeds"`
	Device        string     `json:"device"`
	Header        *bool      `json:"header,omitempty"` // CSV: whether line 1 was read as the header
	DeltaBar      *float64   `json:"delta_bar"`
	SelectedRatio *float64   `json:"selected_ratio"`
	RatioEpochs   *spread    `json:"selected_ratio_epochs"`
	Threshold     *float64   `json:"threshold"`
	Flagged       int        `json:"flagged"`
	Timings       timings    `json:"timings"`
	labelMetrics
	Constant []int `json:"constant_columns,omitempty"`
	// Features are the columns trained on, in order; Selection how they were chosen.
	Features    []string        `json:"features"`
	Selection   *data.Selection `json:"selection,omitempty"`
	TextDropped []string        `json:"text_columns_dropped,omitempty"`
	Members     []memberSummary `json:"members,omitempty"`
}

type configJSON struct {
	Arch           []int    `json:"arch"`
	PretrainEpochs int      `json:"pretrain_epochs"`
	Epochs         int      `json:"epochs"`
	BatchSize      int      `json:"batch_size"`
	LR             float64  `json:"lr"`
	PretrainLR     float64  `json:"pretrain_lr"`
	WeightDecay    float64  `json:"weight_decay"`
	Ratio          float64  `json:"ratio,omitempty"`
	Threshold      string   `json:"threshold_rule,omitempty"`
	Members        int      `json:"members,omitempty"`         // the ensemble method's
	DistanceWeight *float64 `json:"distance_weight,omitempty"` // the ensemble method's w
	Preset         string   `json:"preset"`
	Ranks          int      `json:"ranks,omitempty"` // a data-parallel run's W
	RankScores     string   `json:"rank_scores"`
	Threads        int      `json:"threads"`
}

type timings struct {
	PretrainSeconds float64 `json:"pretrain_seconds"`
	FinetuneSeconds float64 `json:"finetune_seconds"`
	TotalSeconds    float64 `json:"total_seconds"`
}

// spread summarises a value over epochs.
type spread struct {
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}

// memberSummary is one seed of an ensemble.
type memberSummary struct {
	Seed          uint64   `json:"seed"`
	DeltaBar      *float64 `json:"delta_bar"`
	SelectedRatio *float64 `json:"selected_ratio"`
	Threshold     *float64 `json:"threshold"`
	Flagged       int      `json:"flagged"`
	ROCAUC        *float64 `json:"rocauc,omitempty"`
	PRAUC         *float64 `json:"prauc,omitempty"`
	F1            *float64 `json:"f1,omitempty"`
}

// labelMetrics are the metrics of summary.json where labels are known; all null (and
// omitted) without labels, F1, precision and recall also without a threshold.
type labelMetrics struct {
	ROCAUC    *float64 `json:"rocauc,omitempty"`
	PRAUC     *float64 `json:"prauc,omitempty"`
	F1        *float64 `json:"f1,omitempty"`
	Precision *float64 `json:"precision,omitempty"`
	Recall    *float64 `json:"recall,omitempty"`
	TrueRatio *float64 `json:"true_ratio,omitempty"`
}

// metricsOf evaluates scores and labels against the truth y; the zero value when the
// metrics are undefined (y nil, or one class only).
func metricsOf(y []int, scores []float64, labels []bool) labelMetrics {
	var m labelMetrics
	if y == nil {
		return m
	}
	ev, err := evaluate(y, scores, labels)
	if err != nil {
		return m
	}
	m.ROCAUC, m.PRAUC, m.TrueRatio = num(ev.ROCAUC), num(ev.PRAUC), num(ev.TrueRatio)
	if ev.hasLabels {
		m.F1, m.Precision, m.Recall = num(ev.F1), num(ev.Precision), num(ev.Recall)
	}
	return m
}

// num is a JSON number, or null for NaN and ±Inf.
func num(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func flagged(labels []bool) int {
	c := 0
	for _, l := range labels {
		if l {
			c++
		}
	}
	return c
}

func (f *fitted) summarise(o fitOptions, seeds []uint64, total float64) summary {
	rs := f.run.Results
	s := summary{
		Udocc: Version, Libtorch: torch.Version(), Data: f.ds.Name, Source: f.ds.Path,
		Method: o.method, N: f.ds.N, D: f.ds.D, Seed: seeds[0], Seeds: seeds, Device: o.Device,
		Config: configJSON{
			Arch: f.cfg.Hidden, PretrainEpochs: f.cfg.PretrainEpochs, Epochs: f.cfg.Epochs,
			BatchSize: f.cfg.BatchSize, LR: f.cfg.LR, PretrainLR: f.cfg.PretrainLR, WeightDecay: f.cfg.WeightDecay, Ratio: o.ratio,
			RankScores: string(f.cfg.Scores), Threads: o.threads, Preset: o.preset, Ranks: ranksOf(o),
		},
		Threshold: num(models.CombinedThreshold(thresholds(rs))),
		Flagged:   flagged(f.labels),
		Timings: timings{PretrainSeconds: f.run.PretrainSeconds, FinetuneSeconds: f.run.FinetuneSeconds,
			TotalSeconds: total},
		Constant: f.scaler.ConstantColumns,
	}
	if strings.EqualFold(filepath.Ext(f.ds.Path), ".csv") {
		s.Header = &f.ds.Named
	}
	s.Features, s.TextDropped = f.ds.Features, f.ds.TextDropped
	if !f.ds.Selection.IsZero() {
		s.Selection = &f.ds.Selection
	}
	if o.method == "proposed" {
		s.Config.Threshold = o.threshold
		if o.threshold == "paper" {
			s.Config.Threshold += "/" + o.ties
		}
	}
	if f.ens != nil {
		s.Threshold = num(f.thr)
		s.Config.Threshold = o.threshold
		if o.contamination > 0 {
			s.Config.Threshold = fmt.Sprintf("contamination=%g", o.contamination)
		}
		s.Config.Members = len(rs)
		s.Config.DistanceWeight = &f.ens.DistanceWeight
		r := float64(flagged(f.labels)) / float64(f.ds.N)
		s.SelectedRatio = &r
		if f.ds.Y != nil {
			s.labelMetrics = metricsOf(f.ds.Y, f.scores, f.labels)
		}
		for i, r := range rs {
			m := memberSummary{Seed: seeds[i]}
			lm := metricsOf(f.ds.Y, r.Scores, nil)
			m.ROCAUC, m.PRAUC = lm.ROCAUC, lm.PRAUC
			s.Members = append(s.Members, m)
		}
		return s
	}
	var bars, ratios []float64
	for _, r := range rs {
		b, q := deltaBar(r)
		bars, ratios = append(bars, b), append(ratios, q)
	}
	s.DeltaBar, s.SelectedRatio = num(mean(bars)), num(mean(ratios))
	if len(rs) == 1 {
		s.RatioEpochs = ratioSpread(rs[0])
	}
	if f.ds.Y != nil {
		s.labelMetrics = metricsOf(f.ds.Y, f.scores, f.labels)
	}
	if len(rs) > 1 {
		for i, r := range rs {
			m := memberSummary{Seed: seeds[i], DeltaBar: num(bars[i]), SelectedRatio: num(ratios[i]),
				Threshold: num(r.Threshold), Flagged: flagged(r.Labels)}
			lm := metricsOf(f.ds.Y, r.Scores, r.Labels)
			m.ROCAUC, m.PRAUC, m.F1 = lm.ROCAUC, lm.PRAUC, lm.F1
			s.Members = append(s.Members, m)
		}
	}
	return s
}

func mean(xs []float64) float64 {
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}

// ranksOf is a data-parallel run's number of ranks W, 0 in a single process.
func ranksOf(o fitOptions) int {
	if o.dist == nil {
		return 0
	}
	return o.dist.World()
}

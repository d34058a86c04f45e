package bench

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/odds"
	"github.com/udocc/udocc/internal/scale"
	"github.com/udocc/udocc/internal/training"
)

// CurveDatasets are the data sets of the paper's Fig. 3, whose proposed runs keep their
// accumulated Eq. (5) crossing counts in the results.
var CurveDatasets = []string{"satellite", "cardio", "thyroid"}

// dataset is one loaded data set of the grid with its training configuration.
type dataset struct {
	name, path string
	sha        string // SHA-256 of the file, hex
	ds         *data.Dataset
	anomalies  int
	ratio      float64 // anomalies / n, exactly
	cfg        training.Config
	config     Config // cfg as recorded, with its fingerprint
}

// dataFile finds the file of the data set called name in dir: the ODDS registry's file
// for the ten sets of Table I, else name.mat or name.npz (with variables X and y).
func dataFile(dir, name string) (string, error) {
	if s, ok := odds.Lookup(name); ok {
		return filepath.Join(dir, s.File), nil
	}
	for _, ext := range []string{".mat", ".npz"} {
		p := filepath.Join(dir, name+ext)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("bench: data set %q: no %s.mat or %s.npz in %s", name, name, name, dir)
}

// loadDataset reads and checks one data set: it must have labels with both classes, and
// an ODDS set must have the shape of Table I.
func loadDataset(dir, name string, train training.Config) (*dataset, error) {
	path, err := dataFile(dir, name)
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("bench: data set %q: %w ('udocc-bench datasets fetch --data %s' downloads the ODDS files)", name, err, dir)
		}
		return nil, fmt.Errorf("bench: data set %q: %w", name, err)
	}
	sum := sha256.Sum256(raw)
	ds, err := data.Load(path, data.LoadOptions{})
	if err != nil {
		return nil, err
	}
	if ds.Y == nil {
		return nil, fmt.Errorf("bench: %s: no labels (variable y): the benchmark needs them for its metrics", path)
	}
	a := ds.Anomalies()
	if a == 0 || a == ds.N {
		return nil, fmt.Errorf("bench: %s: %d of %d rows are labelled anomalous: need both classes", path, a, ds.N)
	}
	if s, ok := odds.Lookup(name); ok && (s.N != ds.N || s.D != ds.D || s.Anomalies != a) {
		return nil, fmt.Errorf("bench: %s: %d x %d with %d anomalies, but the paper's %s is %d x %d with %d",
			path, ds.N, ds.D, a, name, s.N, s.D, s.Anomalies)
	}
	hidden, _ := models.Preset(name)
	cfg := train
	cfg.Hidden = hidden
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("bench: data set %q: %w", name, err)
	}
	d := &dataset{
		name: name, path: path, sha: hex.EncodeToString(sum[:]), ds: ds,
		anomalies: a, ratio: float64(a) / float64(ds.N), cfg: cfg,
	}
	d.config = recordConfig(cfg)
	return d, nil
}

// recordConfig is cfg as a results line records it, with its fingerprint: the first 16
// hex digits of the SHA-256 of the config's JSON without the fingerprint. Every setting
// that changes the numbers is in it; the device, the group mode and the job count are
// not (they change the numbers only by float rounding).
func recordConfig(cfg training.Config) Config {
	c := Config{
		Arch: append([]int(nil), cfg.Hidden...), PretrainEpochs: cfg.PretrainEpochs, Epochs: cfg.Epochs,
		BatchSize: cfg.BatchSize, LR: cfg.LR, PretrainLR: cfg.PretrainLR, WeightDecay: cfg.WeightDecay, WarmUp: cfg.WarmUp,
		CenterEps: cfg.CenterEps, Scores: string(cfg.Scores),
	}
	b, err := json.Marshal(c)
	if err != nil {
		panic("bench: config does not marshal: " + err.Error())
	}
	sum := sha256.Sum256(b)
	c.Fingerprint = hex.EncodeToString(sum[:8])
	return c
}

// standardised returns the data standardised to zero mean and unit variance per
// column, as the paper does.
func (d *dataset) standardised() (*data.Dataset, error) {
	sc, err := scale.Fit(d.ds)
	if err != nil {
		return nil, fmt.Errorf("bench: %s: %w", d.path, err)
	}
	std, err := sc.Transform(d.ds)
	if err != nil {
		return nil, fmt.Errorf("bench: %s: %w", d.path, err)
	}
	return std, nil
}

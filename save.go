package udocc

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/torch"
	"github.com/udocc/udocc/internal/training"
)

// Save writes the model into the folder dir in the format of the model/ folder that
// `udocc fit` writes (model.json and one network file per member), which Load and
// `udocc score --model` read. It is atomic: everything is written into a temporary
// folder beside dir and renamed into place, replacing a previous dir whole.
func (m *Model) Save(dir string) (err error) {
	if m.nets == nil {
		return fmt.Errorf("udocc: save %s: the model is closed", dir)
	}
	dir = filepath.Clean(dir)
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return fmt.Errorf("udocc: save: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("udocc: save: %w", err)
	}
	for k, mem := range m.meta.Members {
		if err := m.nets[k].Save(0, filepath.Join(tmp, mem.Network)); err != nil {
			return fmt.Errorf("udocc: save %s: %w", dir, err)
		}
		if mem.Autoencoder != "" {
			if err := m.aes[k].Save(0, filepath.Join(tmp, mem.Autoencoder)); err != nil {
				return fmt.Errorf("udocc: save %s: %w", dir, err)
			}
		}
	}
	if err := m.meta.RecordFiles(tmp); err != nil {
		return fmt.Errorf("udocc: save %s: %w", dir, err)
	}
	if err := models.WriteMeta(tmp, m.meta); err != nil {
		return fmt.Errorf("udocc: save %s: %w", dir, err)
	}
	// A folder cannot be renamed over another: move the old one aside first, and
	// remove it only once the new one is in place.
	old := ""
	if _, err := os.Stat(dir); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return fmt.Errorf("udocc: save: %w", err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			os.Rename(old, dir)
		}
		return fmt.Errorf("udocc: save: %w", err)
	}
	if old != "" {
		os.RemoveAll(old)
	}
	return nil
}

// Load reads a model that Save or `udocc fit` wrote into dir, onto device ("cpu",
// "cuda" or "cuda:N"). A loaded model has the threshold but no training scores, labels
// or history.
func Load(dir, device string) (*Model, error) {
	if !validDevice(device) {
		return nil, fmt.Errorf("udocc: load %s: device %q: want cpu, cuda or cuda:N", dir, device)
	}
	meta, err := models.ReadMeta(dir)
	if err != nil {
		return nil, fmt.Errorf("udocc: load: %w", err)
	}
	if err := training.CheckMeta(meta); err != nil {
		return nil, fmt.Errorf("udocc: load %s: %w", filepath.Join(dir, models.MetaFile), err)
	}
	m := &Model{meta: meta, device: device, thr: math.Inf(1)}
	if err := m.load(dir); err != nil {
		m.Close()
		return nil, err
	}
	if meta.Ensemble != nil {
		m.thr = *meta.Threshold
	} else {
		m.thr = models.CombinedThreshold(meta.Thresholds())
	}
	return m, nil
}

// load reads the networks of m.meta's members from dir onto m.device, each checked
// first against its role and hash in m.meta.Files.
func (m *Model) load(dir string) error {
	if err := m.meta.CheckFiles(dir); err != nil {
		return fmt.Errorf("udocc: load: %w", err)
	}
	open := func(name string) (*torch.Group, error) {
		path := filepath.Join(dir, name)
		g, err := torch.Load(path, m.device)
		if err != nil {
			return nil, fmt.Errorf("udocc: network %s: %w", path, err)
		}
		if got := g.Sizes(); !slices.Equal(got, m.meta.Sizes) {
			g.Close()
			return nil, fmt.Errorf("udocc: %s: sizes %v, but the network %s has %v", filepath.Join(dir, models.MetaFile), m.meta.Sizes, path, got)
		}
		return g, nil
	}
	for _, mem := range m.meta.Members {
		g, err := open(mem.Network)
		if err != nil {
			return err
		}
		m.nets = append(m.nets, g)
		if mem.Autoencoder != "" {
			if g, err = open(mem.Autoencoder); err != nil {
				return err
			}
			m.aes = append(m.aes, g)
		}
	}
	return nil
}

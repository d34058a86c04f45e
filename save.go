package udocc

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/outdir"
	"github.com/udocc/udocc/internal/torch"
	"github.com/udocc/udocc/internal/training"
)

// savedFiles are the names Save writes into its folder, as outdir.Begin matches them.
var savedFiles = []string{models.MetaFile, "member-*.pt", "autoencoder-*.pt"}

// ErrNotModelFolder reports a Save path that holds something Save did not write: a file,
// or a folder with other files in it. Save never deletes what it did not write.
var ErrNotModelFolder = errors.New("it holds files that Save did not write")

// Save writes the model into the folder dir in the format of the model/ folder that
// `udocc fit` writes (model.json and one network file per member), which Load and
// `udocc score --model` read. It is one transaction: everything is written into a
// temporary folder beside dir and swapped in for dir by one rename, replacing a previous
// model there whole; a failed write (a full disk) is an error that leaves a previous
// model as it was and no temporary folder. dir must be missing, empty, or a folder
// holding only a saved model's files; anything else (a file, a folder with other files)
// is refused with ErrNotModelFolder. Two Saves to one dir at once: the second fails.
func (m *Model) Save(dir string) (err error) {
	if err := m.calls.enter(); err != nil {
		return fmt.Errorf("udocc: save %s: %w", dir, err)
	}
	defer m.calls.leave()
	if st, err := os.Lstat(dir); err == nil && !st.IsDir() {
		return fmt.Errorf("udocc: save %s: it is not a folder (a file, or a link, which Save would replace): %w", dir, ErrNotModelFolder)
	}
	tx, err := outdir.Begin(dir, savedFiles, false)
	if errors.Is(err, outdir.ErrForeign) {
		return fmt.Errorf("udocc: save %s: %w (%w)", dir, ErrNotModelFolder, err)
	}
	if err != nil {
		return fmt.Errorf("udocc: save: %w", err)
	}
	defer tx.Abort()
	tmp := tx.Dir()
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
	// model.json last: a folder without it is no model that Load or score accepts.
	if err := models.WriteMeta(tmp, m.meta); err != nil {
		return fmt.Errorf("udocc: save %s: %w", dir, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("udocc: save: %w", err)
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
			return nil, fmt.Errorf("udocc: %s: sizes %v, but the network file %s holds layers of sizes %v: one of them was changed", filepath.Join(dir, models.MetaFile), m.meta.Sizes, path, got)
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

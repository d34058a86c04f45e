package detector

import (
	"errors"
	"fmt"
	"github.com/udocc/udocc/internal/method"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/outdir"
)

// savedFiles are the names Save writes into its folder, as outdir.Begin matches them.
var savedFiles = []string{models.MetaFile, "member-*.pt", "autoencoder-*.pt"}

// ErrNotModelFolder reports a Save path that holds something Save did not write: a file,
// or a folder with other files in it. Save never deletes what it did not write.
var ErrNotModelFolder = errors.New("it holds files that Save did not write")

// Save writes the model into the folder dir, as `udocc fit` writes its model/ folder:
// model.json and one network file per member. Load and `udocc score --model` read it.
//
// It is one transaction. Everything is written into a temporary folder beside dir and
// swapped in for dir by one rename, replacing a previous model there whole. A failed
// write (a full disk) leaves a previous model as it was and no temporary folder. dir
// must be missing, empty, or hold only a saved model's files. Anything else is refused
// with ErrNotModelFolder, as are "" and a folder inside another model's folder. Of two
// Saves to one dir at once, the second fails. Saves of one model run one at a time;
// Score and Explain may run beside them.
func (m *Model) Save(dir string) (err error) {
	if err := m.calls.enter(); err != nil {
		return fmt.Errorf("udocc: save %s: %w", dir, err)
	}
	defer m.calls.leave()
	// Save records the files it wrote in m.meta: one Save at a time.
	m.saveMu.Lock()
	defer m.saveMu.Unlock()
	if dir == "" {
		return fmt.Errorf("udocc: save: an empty folder name: %w", ErrNotModelFolder)
	}
	if outer, ok := insideModel(dir); ok {
		return fmt.Errorf("udocc: save %s: it lies inside the model folder %s, which holds its own files only: %w", dir, outer, ErrNotModelFolder)
	}
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

// modelFolder refuses a dir that is no folder, or holds no model.json, with what the
// user likely meant: the model/ folder inside a fit's --out folder.
func modelFolder(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("udocc: load %s: no such folder: %w", dir, fs.ErrNotExist)
	case err != nil:
		return fmt.Errorf("udocc: load: %w", err)
	case !st.IsDir():
		return fmt.Errorf("udocc: load %s: not a folder (a model is a folder holding model.json): %w", dir, models.ErrFormat)
	}
	if _, err := os.Lstat(filepath.Join(dir, models.MetaFile)); !errors.Is(err, fs.ErrNotExist) {
		return nil // ReadMeta says what is wrong with it, if anything
	}
	inner := filepath.Join(dir, "model")
	if _, err := os.Stat(filepath.Join(inner, models.MetaFile)); err == nil {
		return fmt.Errorf("udocc: load %s: no model.json here; a fit's output folder holds its model in model/: use %s: %w", dir, inner, fs.ErrNotExist)
	}
	return fmt.Errorf("udocc: load %s: no model.json in this folder, so no saved model: %w", dir, fs.ErrNotExist)
}

// insideModel reports the nearest folder above dir that holds a model.json.
func insideModel(dir string) (string, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for p := filepath.Dir(abs); ; p = filepath.Dir(p) {
		if st, err := os.Stat(filepath.Join(p, models.MetaFile)); err == nil && st.Mode().IsRegular() {
			return p, true
		}
		if p == filepath.Dir(p) {
			return "", false
		}
	}
}

// Load reads a model that Save or `udocc fit` wrote into dir, onto device ("cpu",
// "cuda" or "cuda:N"). A loaded model has the threshold but no training scores, labels
// or history.
func Load(dir, device string) (*Model, error) {
	if !validDevice(device) {
		return nil, fmt.Errorf("udocc: load %s: device %q: want cpu, cuda or cuda:N", dir, device)
	}
	if err := modelFolder(dir); err != nil {
		return nil, err
	}
	meta, err := models.ReadMeta(dir)
	if err != nil {
		return nil, fmt.Errorf("udocc: load: %w", err)
	}
	if err := method.CheckMeta(meta); err != nil {
		return nil, fmt.Errorf("udocc: load %s: %w", filepath.Join(dir, models.MetaFile), err)
	}
	fit, err := method.Load(meta, dir, device)
	if err != nil {
		return nil, err
	}
	return newModel(fit, meta, device), nil
}

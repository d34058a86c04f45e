package odds

import (
	"os"
	"path/filepath"
)

// FindDir returns the directory holding the ODDS files: where $UDOCC_DATA is set,
// its odds folder (the corpus's layout: odds/, adbench/, real/), or the folder itself
// where it has none ("" if it is not a directory); else the first
// "shared/data/odds" directory found in the working directory or one of its
// parents — the checkout's sibling ../shared/data/odds when run from
// anywhere inside the repository — else "".
func FindDir() string {
	if dir := os.Getenv("UDOCC_DATA"); dir != "" {
		if sub := filepath.Join(dir, "odds"); isDir(sub) {
			return sub
		}
		if isDir(dir) {
			return dir
		}
		return ""
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if cand := filepath.Join(dir, "shared", "data", "odds"); isDir(cand) {
			return cand
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

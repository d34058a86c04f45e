package models

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/udocc/udocc/internal/regfile"
)

// The roles of a saved model's network files.
const (
	RoleEncoder     = "encoder"     // a member's one-class network: encoder, center and radius
	RoleAutoencoder = "autoencoder" // a member's pretrained autoencoder (the ensemble method)
)

// ErrChanged reports a network file of a saved model whose bytes are not those it was
// saved with.
var ErrChanged = errors.New("a network file is not the one the model was saved with")

// File is one network file of a saved model: what it holds (its role, the member it
// belongs to and the model's method) and the SHA-256 of its bytes as the fit wrote them.
// A file replaced since, swapped with another member's, or taken from another model or
// another role, even of the same shape, then fails CheckFiles instead of scoring rows
// with the wrong network.
type File struct {
	Name   string `json:"name"`
	Role   string `json:"role"`
	Member int    `json:"member"` // index into Meta.Members
	Seed   uint64 `json:"seed"`
	Method string `json:"method"`
	SHA256 string `json:"sha256"` // lower-case hex
	// Bytes is the file's size as the fit wrote it; 0 in a model.json written before
	// sizes were recorded. A file of another size is refused before it is read.
	Bytes int64 `json:"bytes,omitempty"`
}

// HashFile is the lower-case hex SHA-256 of the regular file at path and its size;
// a device, a named pipe or a socket is refused (internal/regfile) before it is read,
// and so is a file of other than want bytes where want > 0.
func HashFile(path string, want int64) (string, int64, error) {
	f, st, err := regfile.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	if want > 0 && st.Size() != want {
		return "", 0, fmt.Errorf("%s: %d bytes, but the model's %s records %d: %w", path, st.Size(), MetaFile, want, ErrChanged)
	}
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// roles lists the files the members name, each with its role, member and seed; the
// hash is left empty.
func (m *Meta) roles() []File {
	var out []File
	for k, mem := range m.Members {
		out = append(out, File{Name: mem.Network, Role: RoleEncoder, Member: k, Seed: mem.Seed, Method: m.Method})
		if mem.Autoencoder != "" {
			out = append(out, File{Name: mem.Autoencoder, Role: RoleAutoencoder, Member: k, Seed: mem.Seed, Method: m.Method})
		}
	}
	return out
}

// RecordFiles sets m.Files from the network files the members name, as they lie in dir
// now: the writer of a model calls it once every file is written.
func (m *Meta) RecordFiles(dir string) error {
	files := m.roles()
	for i := range files {
		h, n, err := HashFile(filepath.Join(dir, files[i].Name), 0)
		if err != nil {
			return fmt.Errorf("models: %w", err)
		}
		files[i].SHA256, files[i].Bytes = h, n
	}
	m.Files = files
	return nil
}

// fileMismatch is the first field of f, as model.json spells it, that differs from w,
// the file the members name, with both values; "" where they agree (sha256 and bytes
// are the file's own, only checked for their form).
func fileMismatch(f, w File) (field string, got, want any) {
	switch {
	case f.Name != w.Name:
		return "name", fmt.Sprintf("%q", f.Name), fmt.Sprintf("%q", w.Name)
	case f.Role != w.Role:
		return "role", f.Role, w.Role
	case f.Member != w.Member:
		return "member", f.Member, w.Member
	case f.Seed != w.Seed:
		return "seed", f.Seed, w.Seed
	case f.Method != w.Method:
		return "method", f.Method, w.Method
	case len(f.SHA256) != sha256.Size*2:
		return "sha256", fmt.Sprintf("%q", f.SHA256), fmt.Sprintf("%d hex digits", sha256.Size*2)
	case f.Bytes < 0:
		return "bytes", f.Bytes, "a size >= 0"
	}
	return "", nil, nil
}

// CheckFiles checks that m.Files describes every network file the members name, in its
// role, and that each file in dir still has the bytes the fit wrote; an error names the
// file, what it should hold and, where its bytes are another recorded file's, whose they
// are.
func (m *Meta) CheckFiles(dir string) error {
	want := m.roles()
	meta := filepath.Join(dir, MetaFile)
	if len(m.Files) != len(want) {
		return fmt.Errorf("models: %s: files: %d entries, but the %d members name %d network files: %w",
			meta, len(m.Files), len(m.Members), len(want), ErrFormat)
	}
	for i, w := range want {
		f := m.Files[i]
		if field, got, exp := fileMismatch(f, w); field != "" {
			return fmt.Errorf("models: %s: files[%d].%s is %v, but members[%d] makes it %v (%s's %s): %w",
				meta, i, field, got, w.Member, exp, w.Name, w.Role, ErrFormat)
		}
	}
	byHash, sizes := map[string]File{}, map[int64]bool{}
	for _, f := range m.Files {
		byHash[f.SHA256], sizes[f.Bytes] = f, true
	}
	for _, f := range m.Files {
		path := filepath.Join(dir, f.Name)
		want := f.Bytes
		if st, err := os.Stat(path); err == nil && st.Size() != want && sizes[st.Size()] {
			want = 0 // another recorded file's size: hashed, to name whose file it is
		}
		h, _, err := HashFile(path, want)
		if err != nil {
			return fmt.Errorf("models: %w", err)
		}
		if h == f.SHA256 {
			continue
		}
		what := fmt.Sprintf("member %d's %s (seed %d)", f.Member, f.Role, f.Seed)
		if o, ok := byHash[h]; ok {
			return fmt.Errorf("models: %s should hold %s but holds member %d's %s (%s): the model's files were swapped or copied over each other: %w",
				path, what, o.Member, o.Role, o.Name, ErrChanged)
		}
		return fmt.Errorf("models: %s should hold %s of this %s model, but its bytes are not the ones the fit wrote (sha256 %.12s…, model.json records %.12s…): it was replaced, perhaps by another model's file: %w",
			path, what, m.Method, h, f.SHA256, ErrChanged)
	}
	return nil
}

package models

import (
	"encoding/base64"
	"fmt"
	"unicode/utf8"

	"github.com/udocc/udocc/data"
)

// JSON strings are UTF-8: a column name of other bytes (a Latin-1 header such as
// "caf\xe9") would be written with U+FFFD in their place, and a model could not find
// its own training file's columns again. Meta.NameBytes keeps every column name that
// model.json holds (the features and the selection's), base64, whenever one of them is
// not valid UTF-8; Features and Selection then show the names for people, with U+FFFD,
// and ReadMeta takes the names from NameBytes.

// NameBytes are a Meta's column names as bytes, base64 (see above).
type NameBytes struct {
	Features []string `json:"features"`
	ID       string   `json:"id,omitempty"`
	Columns  []string `json:"columns,omitempty"`
	Drop     []string `json:"drop,omitempty"`
}

// names are the column names m holds, the selection's after the features'.
func (m *Meta) names() []string {
	out := append([]string(nil), m.Features...)
	if s := m.Selection; s != nil {
		out = append(append(append(out, s.ID), s.Columns...), s.Drop...)
	}
	return out
}

func encode(names []string) []string {
	var out []string
	for _, n := range names {
		out = append(out, base64.StdEncoding.EncodeToString([]byte(n)))
	}
	return out
}

// encodeNames sets m.NameBytes when some column name is not valid UTF-8, and clears it
// otherwise.
func (m *Meta) encodeNames() {
	m.NameBytes = nil
	for _, n := range m.names() {
		if !utf8.ValidString(n) {
			nb := &NameBytes{Features: encode(m.Features)}
			if s := m.Selection; s != nil {
				nb.ID = encode([]string{s.ID})[0]
				nb.Columns, nb.Drop = encode(s.Columns), encode(s.Drop)
			}
			m.NameBytes = nb
			return
		}
	}
}

// decodeNames replaces m's column names by those of m.NameBytes, where it is set.
func (m *Meta) decodeNames() error {
	nb := m.NameBytes
	if nb == nil {
		return nil
	}
	decode := func(field string, to, from []string) error {
		if len(from) != len(to) {
			return fmt.Errorf("name_bytes.%s: %d names for %d: %w", field, len(from), len(to), ErrFormat)
		}
		for i, s := range from {
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return fmt.Errorf("name_bytes.%s[%d]: %v: %w", field, i, err, ErrFormat)
			}
			to[i] = string(b)
		}
		return nil
	}
	if err := decode("features", m.Features, nb.Features); err != nil {
		return err
	}
	s := m.Selection
	if s == nil {
		s = &data.Selection{}
		if nb.ID != "" || nb.Columns != nil || nb.Drop != nil {
			return fmt.Errorf("name_bytes: names of a selection, but model.json has none: %w", ErrFormat)
		}
	}
	id := []string{s.ID}
	if err := decode("id", id, []string{nb.ID}); err != nil {
		return err
	}
	s.ID = id[0]
	if err := decode("columns", s.Columns, nb.Columns); err != nil {
		return err
	}
	return decode("drop", s.Drop, nb.Drop)
}

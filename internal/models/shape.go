package models

import (
	"fmt"
	"io"
)

// MaxColumns is the most columns a model may have: no array of model.json is longer.
// A fit refuses a wider table before training (CheckSize), so every model a fit saves
// loads.
const MaxColumns = 1 << 20

// maxElements bounds the elements of all of model.json's arrays together: some
// sixteen arrays of one value a column.
const maxElements = 16 * MaxColumns

// MaxMembers is the most networks a model may have. It bounds model.json's members and
// files arrays (two files a member).
const MaxMembers = 1000

// maxDepth bounds the nesting of model.json's values; udocc writes four levels.
const maxDepth = 16

// shapeReader passes model.json's bytes through to the JSON decoder and refuses, as
// they pass, an array longer than MaxColumns (members and files: MaxMembers, 2 ×
// MaxMembers), more than maxElements array elements in all, and nesting deeper than
// maxDepth. encoding/json reads a whole value before it decodes it, so a file that would
// decode into far more memory than it holds is refused before any of it is decoded.
type shapeReader struct {
	r        io.Reader
	path     string
	off      int64   // bytes passed so far
	open     []count // the arrays and objects open, outermost first
	inStr    bool    // inside a string
	inScalar bool    // inside a number or literal
	esc      bool    // the previous byte was a backslash inside a string
	elems    int64   // array elements seen in all
	key      []byte  // the top-level key last read (its first bytes)
	inKey    bool    // inside a string that is a key of the top-level object
	wantKey  bool    // the next string in an object is a key
}

// count is an open array's element count and the most it may have; an open object
// has max -1.
type count struct{ n, max int64 }

func (s *shapeReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	for i, c := range p[:n] {
		if e := s.step(c); e != nil {
			return 0, fmt.Errorf("%s: byte %d: %w: %w", s.path, s.off+int64(i), e, ErrTooLarge)
		}
	}
	s.off += int64(n)
	return n, err
}

// step reads one byte. It needs no validation of the grammar: the decoder does that.
// A value starts at '"', '[', '{' or the first byte of a number or literal; one that
// starts inside an open array is counted.
func (s *shapeReader) step(c byte) error {
	if s.inStr {
		switch {
		case s.esc:
			s.esc = false
		case c == '\\':
			s.esc = true
		case c == '"':
			s.inStr, s.inKey = false, false
		case s.inKey && len(s.key) < 16:
			s.key = append(s.key, c)
		}
		return nil
	}
	inObject := len(s.open) > 0 && s.open[len(s.open)-1].max < 0
	switch c {
	case ' ', '\t', '\n', '\r':
		s.inScalar = false
		return nil
	case ',', ':':
		s.inScalar = false
		s.wantKey = c == ',' && inObject
		return nil
	case ']', '}':
		s.inScalar = false
		if len(s.open) > 0 {
			s.open = s.open[:len(s.open)-1]
		}
		return nil
	}
	if s.inScalar {
		return nil // a later byte of a number or literal
	}
	if top := len(s.open) - 1; top >= 0 && !inObject {
		s.open[top].n++
		s.elems++
		if s.open[top].n > s.open[top].max {
			return fmt.Errorf("an array of more than %d values", s.open[top].max)
		}
		if s.elems > maxElements {
			return fmt.Errorf("more than %d array values in all", maxElements)
		}
	}
	switch c {
	case '"':
		s.inStr = true
		if s.wantKey && len(s.open) == 1 {
			s.inKey, s.key = true, s.key[:0]
		}
		s.wantKey = false
	case '[', '{':
		if len(s.open) == maxDepth {
			return fmt.Errorf("values nested more than %d deep", maxDepth)
		}
		next := count{max: -1}
		if c == '[' {
			next.max = MaxColumns
			if len(s.open) == 1 { // a top-level field's array
				switch string(s.key) {
				case "members":
					next.max = MaxMembers
				case "files":
					next.max = 2 * MaxMembers
				}
			}
		}
		s.open = append(s.open, next)
		s.wantKey = c == '{'
	default:
		s.inScalar = true
	}
	return nil
}

// checkShape refuses, before it is written, a model.json that ReadMeta would refuse
// for its shape.
func checkShape(path string, b []byte) error {
	s := &shapeReader{path: path}
	for i, c := range b {
		if err := s.step(c); err != nil {
			return fmt.Errorf("models: %s: byte %d: %w (it could not be loaded): %w", path, i, err, ErrTooLarge)
		}
	}
	return nil
}

package data

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/udocc/udocc/internal/mat5"
)

// npyBytes builds a .npy file (format 1.0) the way numpy.save lays it out:
// the header dictionary padded with spaces so the data starts at a multiple
// of 64 bytes, then raw.
func npyBytes(descr string, fortran bool, shape []int, raw []byte) []byte {
	s := make([]string, len(shape))
	for i, d := range shape {
		s[i] = fmt.Sprint(d)
	}
	tuple := "(" + strings.Join(s, ", ") + ")"
	if len(shape) == 1 {
		tuple = "(" + s[0] + ",)"
	}
	order := "False"
	if fortran {
		order = "True"
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr, order, tuple)
	pad := 64 - (10+len(dict)+1)%64
	hdr := dict + strings.Repeat(" ", pad%64) + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	b.WriteByte(byte(len(hdr)))
	b.WriteByte(byte(len(hdr) >> 8))
	b.WriteString(hdr)
	b.Write(raw)
	return b.Bytes()
}

// npzBytes zips the named .npy payloads (entry names get ".npy" appended),
// deflated when compress is set (numpy.savez_compressed) or stored
// (numpy.savez).
func npzBytes(t testing.TB, compress bool, names []string, payloads [][]byte) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	method := zip.Store
	if compress {
		method = zip.Deflate
	}
	for i, name := range names {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name + ".npy", Method: method})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(payloads[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// matBytes encodes vars with mat5.Write.
func matBytes(t testing.TB, opts mat5.WriteOptions, vars ...mat5.Var) []byte {
	var b bytes.Buffer
	if err := mat5.Write(&b, vars, opts); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// writeTemp writes b to a file called name in a fresh temporary directory.
func writeTemp(t testing.TB, name string, b []byte) string {
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// f32 is xs as a Dataset holds them, rounded to float32.
func f32(xs []float64) []float32 {
	out := make([]float32, len(xs))
	for i, v := range xs {
		out[i] = float32(v)
	}
	return out
}

// f64 is xs widened to float64.
func f64(xs []float32) []float64 {
	out := make([]float64, len(xs))
	for i, v := range xs {
		out[i] = float64(v)
	}
	return out
}

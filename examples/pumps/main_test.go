package main

import (
	"bytes"
	"os"
	"testing"
)

// TestPumpsCSV checks that examples/pumps.csv is what this command writes, byte for
// byte: the shipped table is the generated one (go generate rewrites it).
func TestPumpsCSV(t *testing.T) {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	shipped, err := os.ReadFile("../pumps.csv")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), shipped) {
		t.Error("examples/pumps.csv differs from what examples/pumps writes: run go generate ./examples/pumps")
	}
}

package torch

import (
	"debug/elf"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShimExports holds the shim to being a guest in its host's process (doc.go): of
// lib/libudocc_torch.so's defined dynamic symbols, the only global ones are its udocc_ C
// ABI (and the linker's markers). Weak ones are allowed: the instances of libtorch's inline functions and templates,
// which any library compiled against its headers carries and the loader merges. An
// ifunc (target_clones) or a BLAS name defined here would be global and fail.
func TestShimExports(t *testing.T) {
	lib := filepath.Join("..", "..", "lib", "libudocc_torch.so")
	if _, err := os.Stat(lib); err != nil {
		t.Skip("no lib/libudocc_torch.so: ./build.sh builds it")
	}
	f, err := elf.Open(lib)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	abi := 0
	for _, s := range syms {
		if s.Section == elf.SHN_UNDEF || elf.ST_BIND(s.Info) != elf.STB_GLOBAL {
			continue
		}
		switch s.Name {
		case "_edata", "__bss_start", "_end": // the linker's markers of the data's end
			continue
		}
		if strings.HasPrefix(s.Name, "udocc_") {
			abi++
			continue
		}
		t.Errorf("the shim exports %s (%v, %v): only its udocc_ C ABI may be global", s.Name, elf.ST_TYPE(s.Info), elf.ST_BIND(s.Info))
	}
	if abi == 0 {
		t.Error("the shim exports no udocc_ function")
	}
}
